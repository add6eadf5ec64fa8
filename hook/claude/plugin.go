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
// "make generate" adds one (the last one's patch plus one) when the files' sum is not the
// last line's, and the tests fail until it has. The plugin's version is the version of the
// release that ships it (docs/release.md): to release another, a maintainer gives it to the
// plugin first (WithPluginVersion, "go run ./cmd/internal/generate -plugin-version X.Y.Z").
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
// versions X.Y.Z going up. Two versions may have the same files: a release given another
// number than the files' last (WithPluginVersion), or files changed back.
func ParsePluginReleases(data []byte) ([]PluginRelease, error) {
	var out []PluginRelease
	var last [3]int
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want VERSION SUM", i+1)
		}
		v, err := ParseVersion(f[0])
		if err != nil || len(out) > 0 && !later(v, last) {
			return nil, fmt.Errorf("line %d: version %q does not follow the one before", i+1, f[0])
		}
		last = v
		out = append(out, PluginRelease{f[0], f[1]})
	}
	return out, nil
}

// ParseVersion reads a release version X.Y.Z (numbers without leading zeros, nothing more).
func ParseVersion(s string) ([3]int, error) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q is not X.Y.Z", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return v, fmt.Errorf("version %q is not X.Y.Z", s)
		}
		v[i] = n
	}
	return v, nil
}

// later reports whether version a comes after b.
func later(a, b [3]int) bool { return slices.Compare(a[:], b[:]) > 0 }

// NextPluginRelease is the release the plugin's files, of sum, belong to: the last one if
// they have its sum, otherwise a new one (added true) with the next version (the last one's
// patch plus one).
func NextPluginRelease(releases []PluginRelease, sum string) (r PluginRelease, added bool) {
	n := len(releases)
	if n > 0 && releases[n-1].Sum == sum {
		return releases[n-1], false
	}
	if n == 0 {
		return PluginRelease{Version: "1.0.0", Sum: sum}, true
	}
	v, _ := ParseVersion(releases[n-1].Version)
	return PluginRelease{Version: fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]+1), Sum: sum}, true
}

// WithPluginVersion returns PluginVersionsFile's text (versions) with version added for the
// plugin's files of sum, for a release of that number: it must come after the last one.
func WithPluginVersion(versions []byte, version, sum string) ([]byte, error) {
	releases, err := ParsePluginReleases(versions)
	if err != nil {
		return nil, err
	}
	v, err := ParseVersion(version)
	if err != nil {
		return nil, err
	}
	if n := len(releases); n > 0 {
		if last, _ := ParseVersion(releases[n-1].Version); !later(v, last) {
			return nil, fmt.Errorf("the plugin is at %s already: a new version must come after it", releases[n-1].Version)
		}
	}
	return append(bytes.TrimRight(versions, "\n"), []byte("\n"+version+" "+sum+"\n")...), nil
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

// PluginFilesAt are the files of ralph-loop's Claude Code plugin at the version given, and
// of the marketplace that lists it, by their path in the repository. The plugin's hooks are
// the ones a project-scope install writes: they run the ralph-loop found on PATH (which
// leaves every event to any other set of ralph-loop's hooks in the settings, so none runs
// twice), and on a machine without one the hook script the plugin ships
// (install.PluginScript), which blocks the stops of a loop still active and otherwise does
// nothing but tell the user once, at the session's start (and when a prompt names ralph), how
// to install it. A plugin cannot set Claude Code's environment, so the block cap stays at
// Claude Code's default of 8 blocks without a tool call in between.
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
	files[path.Join(PluginDir, install.PluginScript)] = []byte(Installer.Script())
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
