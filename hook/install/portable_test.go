package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
)

// runHook runs a hook command line with sh -c, as the hosts do, with PATH set to path, HOME
// to home and input on stdin.
func runHook(t *testing.T, cmd, path, home, input string) (stdout, stderr string, code int) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	c := exec.Command(sh, "-c", cmd)
	c.Env = []string{"PATH=" + path, "HOME=" + home}
	c.Stdin = strings.NewReader(input)
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err = c.Run()
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// noticeCase is an event a hook command gets when the binary it runs is not there, and
// whether the command then prints its one-line notice.
type noticeCase struct {
	ev         Event
	input      string
	wantNotice bool
}

// withoutBinary is the world of a hook command whose binary is not there: a PATH of only
// the shell's own directory and cat (no ralph-loop), a host that notices with Claude Code's
// systemMessage, and the events to try, of which only a session's start and a prompt that
// names ralph get the notice.
func withoutBinary(t *testing.T) (catDir string, h *Target, cases []noticeCase) {
	t.Helper()
	catDir = t.TempDir()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	if err := os.Symlink(cat, filepath.Join(catDir, "cat")); err != nil {
		t.Fatal(err)
	}
	h = testHost()
	return catDir, h, []noticeCase{
		{h.Events[0], `{"hook_event_name":"SessionStart"}`, true},
		{h.Events[1], `{"prompt":"/ralph-loop \"fix it\""}`, true},
		{h.Events[1], `{"prompt":"hello"}`, false},
		{h.Events[3], `{"hook_event_name":"Stop"}`, false},
		{h.Events[2], strings.Repeat("x", 1<<20), false},
	}
}

// The portable command of a committed settings file: on a machine without ralph-loop it
// exits 0 (no hook error, no block), printing the one line only at a session's start and at
// a prompt that names ralph (its hook script's words where install ran on this machine, its
// own short line on a machine that never had ralph-loop); with ralph-loop on PATH it runs it
// with the event on stdin.
func TestPortableCommand(t *testing.T) {
	catDir, h, cases := withoutBinary(t)
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
			cmd := PortableCommandAt(h, tc.ev, "project")
			out, errOut, code := runHook(t, cmd, catDir, home, tc.input)
			if code != 0 || errOut != "" {
				t.Errorf("%s without ralph-loop (script: %v): exit %d, stderr %q", tc.ev.Name, withScript, code, errOut)
			}
			got := strings.Contains(out, "not on this machine's PATH")
			if !withScript {
				got = strings.Contains(out, quoteJSON(inject.HooksFindNone()))
			}
			if got != tc.wantNotice {
				t.Errorf("%s without ralph-loop (script: %v): stdout %q, want notice %v", tc.ev.Name, withScript, out, tc.wantNotice)
			}
			if tc.wantNotice && strings.Count(out, "\n") != 1 {
				t.Errorf("%s: notice is not one line: %q", tc.ev.Name, out)
			}
		}
	}

	// With a ralph-loop on PATH, it runs that one with the event.
	bin := t.TempDir()
	fake := "#!/bin/sh\necho \"args: $* scope: $RALPH_LOOP_SCOPE\"\ncat\n"
	if err := os.WriteFile(filepath.Join(bin, "ralph-loop"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runHook(t, PortableCommandAt(h, Event{Name: "SessionStart", Notice: Always}, "project"), bin+string(os.PathListSeparator)+catDir, home, `{"e":1}`)
	if code != 0 || out != "args: hook --host claude scope: project\n{\"e\":1}" {
		t.Errorf("with ralph-loop: exit %d, stdout %q", code, out)
	}
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	writeString(&b, s)
	return b.String()
}
