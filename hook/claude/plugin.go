package claude

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// PluginVersionsFile is the plugin's versions, one a line with the sum of its files then
// (PluginSum), oldest first, by its path in the repository. Claude Code updates an installed
// plugin only when the version it finds differs from its own (2.1.330 keeps each version in
// a directory of its own), so every change to the plugin's files needs a new version:
// "make generate" adds one when the files' sum is not the last line's, and the tests fail
// until it has.
const PluginVersionsFile = "hook/claude/plugin-versions.txt"

//go:embed plugin-versions.txt
var pluginVersions []byte

// PluginVersion returns the version of the Claude Code plugin: the last of
// PluginVersionsFile (read when first asked, not at every start).
func PluginVersion() string { return pluginVersion.Get() }

var pluginVersion = lazy.Value[string]{Make: func() string {
	r, err := ParsePluginReleases(pluginVersions)
	if err != nil || len(r) == 0 {
		panic(fmt.Sprintf("%s: %v", PluginVersionsFile, err)) // a test keeps it valid
	}
	return r[len(r)-1].Version
}}

// PluginRelease is one version of the plugin and the sum of its files at that version.
type PluginRelease struct{ Version, Sum string }

// ParsePluginReleases reads PluginVersionsFile: "VERSION SUM" lines ("#" starts a comment),
// versions 1.0.N going up, no sum twice.
func ParsePluginReleases(data []byte) ([]PluginRelease, error) {
	var out []PluginRelease
	last := -1
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want VERSION SUM", i+1)
		}
		n, err := patchOf(f[0])
		if err != nil || n <= last {
			return nil, fmt.Errorf("line %d: version %q does not follow the one before", i+1, f[0])
		}
		if slices.ContainsFunc(out, func(r PluginRelease) bool { return r.Sum == f[1] }) {
			return nil, fmt.Errorf("line %d: the sum of an earlier version", i+1)
		}
		last = n
		out = append(out, PluginRelease{f[0], f[1]})
	}
	return out, nil
}

// patchOf is N of a version 1.0.N.
func patchOf(v string) (int, error) {
	rest, ok := strings.CutPrefix(v, "1.0.")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, fmt.Errorf("version %q is not 1.0.N", v)
	}
	return n, nil
}

// NextPluginRelease is the release the plugin's files, of sum, belong to: the last one if
// they have its sum, otherwise a new one (added true) with the next version.
func NextPluginRelease(releases []PluginRelease, sum string) (r PluginRelease, added bool) {
	if n := len(releases); n > 0 && releases[n-1].Sum == sum {
		return releases[n-1], false
	}
	next := 0
	if n := len(releases); n > 0 {
		p, _ := patchOf(releases[n-1].Version)
		next = p + 1
	}
	return PluginRelease{Version: "1.0." + strconv.Itoa(next), Sum: sum}, true
}

// PluginSum is the sha256 of the plugin's files (and the marketplace's), their version
// left out.
func PluginSum() string {
	files := PluginFilesAt("")
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(files[name]))
		h.Write(files[name])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// PluginDir is where the plugin lives in the repository, which is also its marketplace
// (.claude-plugin/marketplace.json at the root).
const PluginDir = "plugins/ralph-loop"

// PluginFiles are the files of ralph-loop's Claude Code plugin and of the marketplace that
// lists it, by their path in the repository. The plugin's hooks are the ones a project-scope
// install writes: they run the ralph-loop found on PATH (which leaves every event to any other
// set of ralph-loop's hooks in the settings, so none runs twice), and on a machine without one they
// do nothing but tell the user once, at the session's start (and when a prompt names
// ralph), how to install it. A plugin cannot set Claude Code's environment, so the block cap
// stays at Claude Code's default of 8 blocks without a tool call in between.
func PluginFiles() map[string][]byte { return PluginFilesAt(PluginVersion()) }

// PluginFilesAt are PluginFiles with the version given.
func PluginFilesAt(version string) map[string][]byte {
	const desc = "Keep the agent working on a task, in its current session, until it prints an exact completion promise after real work: /ralph-loop, /ulw-loop, /cancel-ralph"
	files := map[string][]byte{}
	files[".claude-plugin/marketplace.json"] = indent(map[string]any{
		"name":  "ralph-loop",
		"owner": map[string]any{"name": "The ralph-loop authors"},
		"plugins": []any{map[string]any{
			"name":        "ralph-loop",
			"source":      "./" + PluginDir,
			"description": desc,
			"version":     version,
		}},
	})
	files[path.Join(PluginDir, ".claude-plugin/plugin.json")] = indent(map[string]any{
		"name":        "ralph-loop",
		"version":     version,
		"description": desc,
		"license":     "MIT",
	})
	files[path.Join(PluginDir, "hooks/hooks.json")] = pluginHooks()
	for _, cf := range inject.CommandsFor("claude") {
		files[path.Join(PluginDir, "commands", cf.Name)] = []byte(cf.Content)
	}
	return files
}

// pluginHooks is hooks/hooks.json: Installer's events, in its order, each running the
// portable command.
func pluginHooks() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"hooks\": {")
	for i, ev := range Installer.Events {
		if i > 0 {
			b.WriteString(",")
		}
		entry := struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int64  `json:"timeout"`
			Async   bool   `json:"async,omitempty"`
		}{"command", install.PortableCommandAt(Installer, ev, install.ScopePlugin), int64(ev.Timeout.Seconds()), ev.Async}
		group := struct {
			Matcher string `json:"matcher,omitempty"`
			Hooks   []any  `json:"hooks"`
		}{ev.Matcher, []any{entry}}
		b.WriteString("\n    " + string(marshal(ev.Name, "")) + ": " + string(marshal([]any{group}, "    ")))
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes()
}

// marshal encodes v indented by two spaces after prefix, leaving <, > and & as they are
// (they are shell syntax in the commands).
func marshal(v any, prefix string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	_ = enc.Encode(v) // maps, slices and strings: never fails
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func indent(v any) []byte {
	return append(marshal(v, ""), '\n')
}

// Generated returns the plugin's files and the marketplace that lists it as they should
// read, by their slash paths from the repository's root, with PluginVersionsFile as read
// there and, when the files changed, a new version added to it; dir is the plugin's
// directory, where no other file belongs ("make generate").
func (Host) Generated(root string) (files map[string][]byte, dir string, err error) {
	versions, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(PluginVersionsFile)))
	if err != nil {
		return nil, "", err
	}
	releases, err := ParsePluginReleases(versions)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", PluginVersionsFile, err)
	}
	r, added := NextPluginRelease(releases, PluginSum())
	files = PluginFilesAt(r.Version)
	if added {
		versions = append(bytes.TrimRight(versions, "\n"), []byte("\n"+r.Version+" "+r.Sum+"\n")...)
	}
	files[PluginVersionsFile] = versions
	return files, PluginDir, nil
}
