package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
)

// The command a user-scope install writes: once the binary it names is gone (npm rm -g, a
// deleted download), it exits 0 (no hook error, no block), saying at a session's start and at
// a prompt that names ralph that ralph-loop is gone and how to get it or remove the hooks
// (its hook script's words; without the script, its own short line); while the binary is
// there it runs it with the event. It is recognised as ours, and HookBinary names the
// binary.
func TestBinaryCommand(t *testing.T) {
	catDir, h, cases := withoutBinary(t)
	bin := filepath.Join(t.TempDir(), "my tools", "ralph-loop")
	home := t.TempDir()
	script := ScriptPath(filepath.Join(home, ".local", "share", "ralph-loop"), h.Name)
	os.MkdirAll(filepath.Dir(script), 0o700)
	for _, withScript := range []bool{true, false} {
		if withScript {
			os.WriteFile(script, []byte(h.Script()), 0o600)
		} else {
			os.Remove(script)
		}
		for _, tc := range cases {
			cmd := BinaryCommand(h, tc.ev, bin, script)
			if !h.Ours(cmd, nil) {
				t.Errorf("%s: not recognised as ours: %s", tc.ev.Name, cmd)
			}
			if b, ok := HookBinary(cmd, h.Name); !ok || b != bin {
				t.Errorf("%s: HookBinary = %q, %v", tc.ev.Name, b, ok)
			}
			out, errOut, code := runHook(t, cmd, catDir, home, tc.input)
			if code != 0 || errOut != "" {
				t.Errorf("%s with the binary gone (script: %v): exit %d, stderr %q", tc.ev.Name, withScript, code, errOut)
			}
			got := strings.Contains(out, "which is gone") && strings.Contains(out, "npm install -g @ralph-loop/cli") && strings.Contains(out, "uninstall")
			if !withScript {
				got = strings.Contains(out, quoteJSON(inject.HooksFindNone()))
			}
			if got != tc.wantNotice {
				t.Errorf("%s with the binary gone (script: %v): stdout %q, want notice %v", tc.ev.Name, withScript, out, tc.wantNotice)
			}
			if tc.wantNotice && strings.Count(out, "\n") != 1 {
				t.Errorf("%s: notice is not one line: %q", tc.ev.Name, out)
			}
		}
	}

	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"args: $*\"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runHook(t, BinaryCommand(h, Event{Name: "SessionStart", Notice: Always}, bin, script), catDir, home, `{"e":1}`)
	if code != 0 || out != "args: hook --host claude\n{\"e\":1}" {
		t.Errorf("with the binary: exit %d, stdout %q", code, out)
	}
}

// Install and uninstall know a command line of theirs by its Mark, whatever it holds (a
// later version's, or one a user changed); without the mark, a line of this version's is
// not taken as ralph-loop's, nor is a line for another host.
func TestOursByMark(t *testing.T) {
	h := testHost()
	line := BinaryCommand(h, h.Events[3], "/opt/ralph-loop", "/k/hooks/claude.sh")
	for cmd, want := range map[string]bool{
		line: true,
		strings.Replace(line, "exit 0", "exit 1", 1):              true,
		strings.TrimSuffix(line, " "+Mark):                        false,
		strings.ReplaceAll(line, "--host claude", "--host codex"): false,
		"echo hi " + Mark: false,
	} {
		if got := h.Ours(cmd, nil); got != want {
			t.Errorf("Ours(%q) = %v, want %v", cmd, got, want)
		}
	}
}
