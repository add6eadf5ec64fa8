package claude

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/state"
)

// settingsWorld is a home, a project and a managed settings directory of Claude Code's.
type settingsWorld struct {
	home, project, managed string
}

func newSettingsWorld(t *testing.T) settingsWorld {
	t.Helper()
	root := t.TempDir()
	w := settingsWorld{filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "managed")}
	for _, d := range []string{filepath.Join(w.home, ".claude"), filepath.Join(w.project, ".claude"), w.managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w settingsWorld) getenv(k string) string { return homeOnly(w.home)(k) }

// homeOnly is an environment with only HOME set, to home.
func homeOnly(home string) func(string) string {
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

func (w settingsWorld) view(t *testing.T) ([]state.Setting, error) {
	t.Helper()
	return settingsView(w.getenv, w.project, w.managed)
}

func (w settingsWorld) write(t *testing.T, rel, content string) {
	t.Helper()
	path := filepath.Join(w.project, rel)
	if filepath.IsAbs(rel) {
		path = rel
	}
	hosttest.WriteFile(t, path, content)
}

const installedHooks = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ralph-loop hook --host claude", "timeout": 900}]}]}}`

// Each case is a project settings file before and after a change, read as Claude Code
// 2.1.330 reads it (cmd/internal/e2e/claude/settings_test.go checks the effects there):
// whether the view changed, and whether the new one can be told at all.
func TestSettingsView(t *testing.T) {
	cases := []struct {
		name, before, after string
		changed, doubt      bool
	}{
		{"unchanged", installedHooks, installedHooks, false, false},
		{"spaces and key order", `{"b": 1, "a": {"x": [1, 2]}}`, "{\n  \"a\": {\"x\": [1,2]},\n  \"b\": 1.0\n}", false, false},
		{"a byte-order mark", installedHooks, "\ufeff" + installedHooks, false, false},
		{"an always-allow rule", installedHooks, `{"permissions": {"allow": ["Bash(ls)"]}, ` + installedHooks[1:], false, false},
		{"an allow list of something else", installedHooks, `{"permissions": {"allow": [5]}, ` + installedHooks[1:], true, false},
		{"an always-allow rule for edits", installedHooks, `{"permissions": {"allow": ["Edit(//home/**)"]}, ` + installedHooks[1:], true, false},
		{"an always-ask rule", installedHooks, `{"permissions": {"ask": ["Bash(git push:*)"]}, ` + installedHooks[1:], false, false},
		{"a deny rule taken out", `{"permissions": {"deny": ["Edit(//x/**)"]}}`, `{"permissions": {"deny": []}}`, true, false},
		{"the Stop hook's timeout", installedHooks, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ralph-loop hook --host claude", "timeout": 1}]}]}}`, true, false},
		{"the Stop hook's command", installedHooks, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/nonexistent/ralph-loop hook --host claude", "timeout": 900}]}]}}`, true, false},
		{"the Stop hook's type", installedHooks, `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "ralph-loop hook --host claude", "timeout": 900}]}]}}`, true, false},
		{"a second Stop hook", installedHooks, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ralph-loop hook --host claude", "timeout": 900}, {"type": "command", "command": "echo '{\"continue\": false}'"}]}]}}`, true, false},
		{"a hook of another event", installedHooks, `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}], "Stop": [{"hooks": [{"type": "command", "command": "ralph-loop hook --host claude", "timeout": 900}]}]}}`, true, false},
		{"keys that differ in case", `{}`, `{"disableAllHooks": true, "disableallhooks": false}`, true, true},
		{"a key in another case only", `{}`, `{"DisableAllHooks": true}`, true, false},
		{"equal keys, the last as before", `{"disableAllHooks": false}`, `{"disableAllHooks": true, "disableAllHooks": false}`, false, false},
		{"equal keys, the last changed", `{"disableAllHooks": false}`, `{"disableAllHooks": false, "disableAllHooks": true}`, true, false},
		{"a comment", installedHooks, "// the hooks\n" + installedHooks, true, false},
		{"a trailing comma", `{"a": 1}`, `{"a": 1,}`, true, false},
		{"more after the object", installedHooks, installedHooks + " {}", true, false},
		{"a value of the wrong type", installedHooks, `{"model": 123, ` + installedHooks[1:], true, false},
		{"an unknown key", installedHooks, `{"zzz": 5, ` + installedHooks[1:], true, false},
		{"the hooks' environment", installedHooks, `{"env": {"XDG_STATE_HOME": "/tmp/x"}, ` + installedHooks[1:], true, false},
		{"the sandbox", `{"sandbox": {"enabled": true}}`, `{"sandbox": {"enabled": false}}`, true, false},
		{"emptied", installedHooks, "", true, false},
		{"a plugin instead", installedHooks, `{"enabledPlugins": {"ralph-loop@x": true}}`, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newSettingsWorld(t)
			w.write(t, ".claude/settings.json", c.before)
			before, err := w.view(t)
			if err != nil {
				t.Fatalf("view before: %v", err)
			}
			w.write(t, ".claude/settings.json", c.after)
			after, err := w.view(t)
			var amb *AmbiguousError
			if got := err != nil; got != c.doubt {
				t.Errorf("error %v, want one: %v", err, c.doubt)
			} else if c.doubt && !errors.As(err, &amb) {
				t.Errorf("error %v, want an AmbiguousError", err)
			}
			if got := !slices.Equal(before, after); got != c.changed {
				t.Errorf("changed %v, want %v\nbefore %v\nafter  %v", got, c.changed, before, after)
			}
		})
	}
}

// Every file Claude Code reads counts: a new file at any scope, a managed drop-in, a file
// that cannot be read.
func TestSettingsViewFiles(t *testing.T) {
	w := newSettingsWorld(t)
	// No settings at all: still a record, which a loop keeps (an empty list would read back
	// as none, and refuse every change).
	if v, err := w.view(t); err != nil || len(v) == 0 {
		t.Errorf("no settings: view %v, %v; want one that is not empty", v, err)
	}
	w.write(t, ".claude/settings.json", installedHooks)
	base, err := w.view(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		filepath.Join(w.home, ".claude", "settings.json"),
		filepath.Join(w.project, ".claude", "settings.local.json"),
		filepath.Join(w.managed, "managed-settings.json"),
		filepath.Join(w.managed, "managed-settings.d", "10-x.json"),
	} {
		w.write(t, f, `{"disableAllHooks": true}`)
		now, err := w.view(t)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(base, now) {
			t.Errorf("%s written: the view did not change", f)
		}
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	// A directory where a settings file is: it cannot be read, so nothing can be told.
	local := filepath.Join(w.project, ".claude", "settings.local.json")
	if err := os.Mkdir(local, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := w.view(t); err == nil {
		t.Error("a directory in place of the local settings: no error")
	}
}

// An enabled plugin brings the hooks of its installed version: editing them changes the
// view; a plugin enabled but not installed runs nothing, but enabling it is a change.
func TestSettingsViewPlugins(t *testing.T) {
	w := newSettingsWorld(t)
	install := filepath.Join(w.home, ".claude", "plugins", "cache", "m", "ralph-loop", "1.0.2")
	w.write(t, filepath.Join(w.home, ".claude", "plugins", "installed_plugins.json"),
		`{"version": 2, "plugins": {"ralph-loop@m": [{"scope": "user", "installPath": "`+install+`", "version": "1.0.2"}]}}`)
	w.write(t, filepath.Join(install, "hooks", "hooks.json"), installedHooks)
	w.write(t, filepath.Join(w.home, ".claude", "settings.json"), `{"enabledPlugins": {"ralph-loop@m": true}}`)
	before, err := w.view(t)
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, filepath.Join(install, "hooks", "hooks.json"), `{"hooks": {}}`)
	after, err := w.view(t)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(before, after) {
		t.Error("the enabled plugin's hooks emptied: the view did not change")
	}
}
