package codex

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// StopTimeoutSeconds is the Stop hook's timeout that install writes: it leaves a loop's
// checks (--check) 15 minutes; the other hooks never take more than a few seconds.
const StopTimeoutSeconds = 900

// Installer installs ralph-loop into Codex: hooks in $CODEX_HOME/hooks.json (user scope) or
// .codex/hooks.json (project scope, committed), the skills that let the TUI arm and cancel
// a loop ($ralph-loop, $ulw-loop, $cancel-ralph), and the hooks' trust in the user's
// config.toml, written as Codex's own /hooks screen writes it: without it Codex skips the
// hooks without a word.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "codex",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "hooks.json", CommandsDir: "skills", Describe: "$CODEX_HOME (~/.codex)"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".codex/hooks.json", CommandsDir: ".codex/skills", Shared: true,
			Describe: ".codex/hooks.json"},
	},
	// Codex 0.169.0 reads plain JSON only: a byte order mark, comments or a trailing comma
	// and it runs no hook of the file (TestSettingsSyntax).
	Shape: install.Nested,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always, Kind: install.SessionEvent},
		{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// The guard looks at shell commands and patches only.
		{Name: "PreToolUse", Matcher: "Bash|apply_patch", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "PostToolUse", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "Stop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		// The end of codex exec (the loop ends SESSION_ENDED), and the user's Esc or Ctrl-C
		// (the loop ends, resumable). Codex 0.169.0 gives these two at most 3 s whatever the
		// file says (its hooks/list shows timeoutSec 3 for a hook asking 10) and hashes the 3
		// for trust: asking 3 keeps the trust entries install writes valid.
		{Name: "SessionEnd", Timeout: 3 * time.Second},
		{Name: "Interrupt", Timeout: 3 * time.Second},
	},
}

// Installer returns Codex's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Codex's code in its installer (Installer.Host): its skills, the hooks'
// trust, and its protocol.
type installer struct{}

var (
	_ install.CommandFiler = installer{}
	_ install.Extender     = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

// Commands are the skills.
func (installer) Commands(string) []install.File {
	var files []install.File
	for _, s := range inject.Skills(Words) {
		// The mark is the description line's start: a hint may follow it.
		files = append(files, install.File{Name: filepath.Join(s.Name, "SKILL.md"), Content: s.Content, Mark: "\n" + s.Description})
	}
	return files
}

// Extra keeps the hooks trusted (trust).
func (installer) Extra(x install.ExtraInput) ([]install.Change, error) { return trust(x) }

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Codex's configuration directory: $CODEX_HOME, or ~/.codex.
func userDir(getenv func(string) string) (string, error) {
	return install.DirFromEnv(getenv, HomeEnv, ".codex")
}

// trust plans the change to the user's config.toml that keeps the hooks file's trust as
// its content changes (see Retrust). The keys name the hooks file by its path; when that
// path goes through a symbolic link, the same entries are written for the resolved path too,
// since Codex may name it either way.
func trust(x install.ExtraInput) ([]install.Change, error) {
	if x.UserDir == "" {
		return nil, errors.New("no Codex configuration directory (set HOME or CODEX_HOME) for the hooks' trust")
	}
	path := filepath.Join(x.UserDir, "config.toml")
	old, perm, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	prev, err := os.ReadFile(x.Settings)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", x.Settings, err)
	}
	ours := func(cmd string) bool { return x.Target.Ours(cmd, x.Record) }
	config := string(old)
	names := []string{x.Settings}
	if real, err := filepath.EvalSymlinks(filepath.Dir(x.Settings)); err == nil {
		if r := filepath.Join(real, filepath.Base(x.Settings)); r != x.Settings {
			names = append(names, r)
		}
	}
	n := 0
	for _, name := range names {
		before, err := Handlers(name, prev, ours)
		if err != nil {
			before = nil // a hooks file that is not JSON: the planner refuses it
		}
		after, err := Handlers(name, x.Content, ours)
		if err != nil {
			return nil, err
		}
		if config, err = Retrust(config, before, after); err != nil {
			return nil, fmt.Errorf("update %s: %w; trust ralph-loop's hooks in Codex's /hooks screen instead", path, err)
		}
		if name == x.Settings {
			for _, e := range after {
				if e.Ours {
					n++
				}
			}
		}
	}
	c := install.Change{Path: path, Old: old, Perm: perm}
	switch {
	case !x.Install && old != nil && strings.TrimSpace(config) == "" && x.Record != nil && slices.Contains(x.Record.Created, path):
		// Install created it for the trust entries alone: nothing else is in it.
		c.Action = "remove"
	case config == string(old):
		c.Action = "unchanged"
	case old == nil:
		c.Action, c.Content = "create", []byte(config)
	default:
		c.Action, c.Content, c.Backup = "update", []byte(config), "yes"
	}
	if x.Install {
		c.Note = fmt.Sprintf("trusts ralph-loop's %s as Codex's /hooks screen would (Codex skips untrusted hooks)", inject.Plural(n, "hook", "hooks"))
		if x.Scope.Base == install.ProjectBase && !projectTrusted(config, x.ProjectDir) {
			c.Note += fmt.Sprintf("; Codex runs a project's hooks only once the project is trusted: start codex in %s and trust it", x.ProjectDir)
		}
	} else if c.Action != "unchanged" {
		c.Note = "removes the trust of ralph-loop's hooks"
	}
	return []install.Change{c}, nil
}

// readConfig reads config.toml (nil if it does not exist).
func readConfig(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4<<20 {
		return nil, 0, fmt.Errorf("read %s: not a regular file of at most 4 MiB", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, fi.Mode().Perm(), nil
}

// projectTrusted reports whether config.toml marks the project trusted.
func projectTrusted(config, dir string) bool {
	lines, err := parseTOML(config)
	if err != nil {
		return false
	}
	in := false
	for _, ln := range lines {
		switch {
		case ln.header:
			in = ln.table == "projects."+tomlQuote(dir)
		case in && ln.key == "trust_level":
			return bytes.Equal([]byte(ln.value), []byte(`"trusted"`))
		}
	}
	return false
}
