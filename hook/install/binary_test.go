package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command a user-scope install writes: once the binary it names is gone (npm rm -g, a
// deleted download), it exits 0 (no hook error, no block), saying at a session's start and at
// a prompt that names ralph that ralph-loop is gone and how to get it or remove the hooks;
// while the binary is there it runs it with the event. It is recognised as ours, and
// HookBinary names the binary.
func TestBinaryCommand(t *testing.T) {
	catDir, h, cases := withoutBinary(t)
	bin := filepath.Join(t.TempDir(), "my tools", "ralph-loop")
	for _, tc := range cases {
		cmd := BinaryCommand(h, tc.ev, bin)
		if !h.Ours(cmd, nil) {
			t.Errorf("%s: not recognised as ours: %s", tc.ev.Name, cmd)
		}
		if b, ok := HookBinary(cmd, h.Name); !ok || b != bin {
			t.Errorf("%s: HookBinary = %q, %v", tc.ev.Name, b, ok)
		}
		out, errOut, code := runHook(t, cmd, catDir, tc.input)
		if code != 0 || errOut != "" {
			t.Errorf("%s with the binary gone: exit %d, stderr %q", tc.ev.Name, code, errOut)
		}
		if got := strings.Contains(out, "which is gone") && strings.Contains(out, "npm install -g @ralph-loop/cli") &&
			strings.Contains(out, "uninstall"); got != tc.wantNotice {
			t.Errorf("%s with the binary gone: stdout %q, want notice %v", tc.ev.Name, out, tc.wantNotice)
		}
		if tc.wantNotice && strings.Count(out, "\n") != 1 {
			t.Errorf("%s: notice is not one line: %q", tc.ev.Name, out)
		}
	}
	if h.Ours(strings.Replace(BinaryCommand(h, h.Events[3], bin), "exit 0", "exit 1", 1), nil) {
		t.Error("a changed command is taken as ours")
	}

	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"args: $*\"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runHook(t, BinaryCommand(h, Event{Name: "SessionStart", Notice: Always}, bin), catDir, `{"e":1}`)
	if code != 0 || out != "args: hook --host claude\n{\"e\":1}" {
		t.Errorf("with the binary: exit %d, stdout %q", code, out)
	}
}
