package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runHook runs a hook command line with sh -c, as the hosts do, with PATH set to path and
// input on stdin.
func runHook(t *testing.T, cmd, path, input string) (stdout, stderr string, code int) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	c := exec.Command(sh, "-c", cmd)
	c.Env = []string{"PATH=" + path, "HOME=" + t.TempDir()}
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

// The portable command of a committed settings file: on a machine without ralph-loop it
// exits 0 (no hook error, no block), printing the one line only at a session's start and at
// a prompt that names ralph; with ralph-loop on PATH it runs it with the event on stdin.
func TestPortableCommand(t *testing.T) {
	// Only the shell's own directory: no ralph-loop, but sh's builtins and cat.
	catDir := t.TempDir()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	os.Symlink(cat, filepath.Join(catDir, "cat"))
	h := testHost()
	h.Notice = func(text string) string { return `{"systemMessage":` + quoteJSON(text) + `}` }
	for _, tc := range []struct {
		ev         Event
		input      string
		wantNotice bool
	}{
		{h.Events[0], `{"hook_event_name":"SessionStart"}`, true},
		{h.Events[1], `{"prompt":"/ralph-loop \"fix it\""}`, true},
		{h.Events[1], `{"prompt":"hello"}`, false},
		{h.Events[3], `{"hook_event_name":"Stop"}`, false},
		{h.Events[2], strings.Repeat("x", 1<<20), false},
	} {
		cmd := PortableCommandAt(h, tc.ev, "project")
		out, errOut, code := runHook(t, cmd, catDir, tc.input)
		if code != 0 || errOut != "" {
			t.Errorf("%s without ralph-loop: exit %d, stderr %q", tc.ev.Name, code, errOut)
		}
		if got := strings.Contains(out, "not on this machine's PATH"); got != tc.wantNotice {
			t.Errorf("%s without ralph-loop: stdout %q, want notice %v", tc.ev.Name, out, tc.wantNotice)
		}
		if tc.wantNotice && strings.Count(out, "\n") != 1 {
			t.Errorf("%s: notice is not one line: %q", tc.ev.Name, out)
		}
	}

	// With a ralph-loop on PATH, it runs that one with the event.
	bin := t.TempDir()
	fake := "#!/bin/sh\necho \"args: $* scope: $RALPH_LOOP_SCOPE\"\ncat\n"
	if err := os.WriteFile(filepath.Join(bin, "ralph-loop"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runHook(t, PortableCommandAt(h, Event{Name: "SessionStart", Notice: Always}, "project"), bin+string(os.PathListSeparator)+catDir, `{"e":1}`)
	if code != 0 || out != "args: hook --host claude scope: project\n{\"e\":1}" {
		t.Errorf("with ralph-loop: exit %d, stdout %q", code, out)
	}
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	writeString(&b, s)
	return b.String()
}
