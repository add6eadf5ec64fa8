package claude

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// The sandbox is a wall only when it is on with no way out, as Claude Code merges its
// settings: a later scope over an earlier one, but allowUnsandboxedCommands: false in the
// user's settings holds whatever the project says; and only where it can start.
func TestSandboxState(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the programs checked are Linux's")
	}
	bin := t.TempDir()
	for _, p := range []string{"bwrap", "socat"} {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	on := `{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}`
	cases := []struct {
		name, user, project string
		path                string // PATH: bin (the programs there) or empty
		want                string
	}{
		{"no settings", "", "", bin, inject.SandboxOff},
		{"on with no way out", on, "", bin, state.SandboxOn},
		{"on, a way out", `{"sandbox": {"enabled": true}}`, "", bin, inject.SandboxWayOut},
		{"the project turns it off", on, `{"sandbox": {"enabled": false}}`, bin, inject.SandboxOff},
		{"the project cannot open a way out", on, `{"sandbox": {"allowUnsandboxedCommands": true}}`, bin, state.SandboxOn},
		{"excluded commands", on, `{"sandbox": {"excludedCommands": ["docker"]}}`, bin, inject.SandboxExcluded},
		{"the programs missing", on, "", "", inject.SandboxMissing([]string{"bwrap", "socat"}, "")[:40]},
		{"the programs missing, no start without them", `{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false, "failIfUnavailable": true}}`, "", "", state.SandboxOn},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newSettingsWorld(t)
			if c.user != "" {
				w.write(t, filepath.Join(w.home, ".claude", "settings.json"), c.user)
			}
			if c.project != "" {
				w.write(t, ".claude/settings.json", c.project)
			}
			t.Setenv("PATH", c.path)
			got, _ := SandboxState(w.getenv, w.project)
			if len(got) > len(c.want) {
				got = got[:len(c.want)]
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
