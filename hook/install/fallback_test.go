package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fallbackEnv is a machine for the command lines' own answers: a home with a state
// directory, and a PATH with only the tools the command line uses (no ralph-loop).
type fallbackEnv struct {
	t          *testing.T
	home, path string
}

func newFallbackEnv(t *testing.T) *fallbackEnv {
	dir := t.TempDir()
	for _, tool := range []string{"cat", "grep", "sed", "mkdir"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skip("no " + tool)
		}
		os.Symlink(p, filepath.Join(dir, tool))
	}
	return &fallbackEnv{t: t, home: t.TempDir(), path: dir}
}

func (f *fallbackEnv) state(elem ...string) string {
	return filepath.Join(append([]string{f.home, ".local", "state", "ralph-loop"}, elem...)...)
}

func (f *fallbackEnv) write(path, content string) {
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fallbackEnv) run(cmd, input string) (stdout, stderr string, code int) {
	f.t.Helper()
	c := exec.Command("sh", "-c", cmd)
	c.Env = []string{"PATH=" + f.path, "HOME=" + f.home}
	c.Stdin = strings.NewReader(input)
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// loopFile is a loop file as ralph-loop writes it, in brief.
func loopFile(status string, iteration, max int) string {
	return "{\n  \"version\": 1,\n  \"task\": \"x\\\"iteration\\\": 99,\",\n  \"max_iterations\": " + itoa(max) + ",\n  \"status\": \"" + status +
		"\",\n  \"iteration\": " + itoa(iteration) + ",\n  \"tool_calls\": 0\n}\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

// A hook command line that cannot run ralph-loop, in a session whose loop is active, blocks
// the stop in the host's protocol, at most as many times as the loop has iterations left,
// and takes the user's /cancel-ralph: recorded for ralph-loop, and the stops let through.
// A session without a loop, and a machine without any, are left alone, as before.
func TestFallbackCommand(t *testing.T) {
	h := testHost()
	for _, form := range []struct {
		name string
		cmd  func(ev Event) string
	}{
		{"binary", func(ev Event) string { return BinaryCommand(h, ev, "/nonexistent/ralph-loop") }},
		{"portable", func(ev Event) string { return PortableCommandAt(h, ev, "project") }},
	} {
		t.Run(form.name, func(t *testing.T) {
			f := newFallbackEnv(t)
			start, prompt, tool, stop := form.cmd(h.Events[0]), form.cmd(h.Events[1]), form.cmd(h.Events[2]), form.cmd(h.Events[3])
			in := func(id string) string { return `{"session_id":"` + id + `","hook_event_name":"Stop"}` }

			// No loop anywhere: nothing blocked, nothing said at a stop.
			if out, errOut, code := f.run(stop, in("s1")); out != "" || errOut != "" || code != 0 {
				t.Fatalf("stop without a loop: %q %q %d", out, errOut, code)
			}

			// s1's loop is active (its loop file, 2 of 4 iterations used), s2 has none.
			f.write(f.state("sessions", "s1", "loop.json"), loopFile("ACTIVE", 2, 4))
			f.write(f.state("active", "s1"), "")
			for i := 0; i < 2; i++ {
				out, _, code := f.run(stop, in("s1"))
				if code != 0 || !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "cannot run") || !strings.Contains(out, "/cancel-ralph") {
					t.Fatalf("stop %d of an active loop without ralph-loop: %q %d, want it blocked", i+1, out, code)
				}
			}
			out, _, _ := f.run(stop, in("s1"))
			if strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "last iteration") {
				t.Fatalf("stop past the loop's last iteration: %q, want it let through with a notice", out)
			}
			if out, _, _ := f.run(stop, in("s2")); out != "" {
				t.Errorf("stop of another session: %q", out)
			}

			// Its marker alone, or ralph-loop's copy alone, says the loop is active too.
			os.RemoveAll(f.state("sessions", "s1"))
			if out, _, _ := f.run(stop, in("s1")); !strings.Contains(out, `"decision":"block"`) {
				t.Errorf("stop with only the marker: %q, want it blocked", out)
			}
			os.RemoveAll(f.state())
			f.write(filepath.Join(f.home, ".local", "share", "ralph-loop", "loops", "abc", "s1.json"), loopFile("ACTIVE", 1, 9))
			if out, _, _ := f.run(stop, in("s1")); !strings.Contains(out, `"decision":"block"`) {
				t.Errorf("stop with only ralph-loop's copy: %q, want it blocked", out)
			}
			f.write(filepath.Join(f.home, ".local", "share", "ralph-loop", "loops", "abc", "s1.json"), loopFile("CANCELLED", 1, 9))
			if out, _, _ := f.run(stop, in("s1")); out != "" {
				t.Errorf("stop of an ended loop: %q", out)
			}

			// A tool event: with a loop on the machine it runs ralph-loop (here: cannot, and
			// says nothing); without, it never tries.
			f.write(f.state("active", "s1"), "")
			if out, errOut, code := f.run(tool, in("s1")); out != "" || errOut != "" || code != 0 {
				t.Errorf("tool event: %q %q %d", out, errOut, code)
			}

			// The user's /cancel-ralph: answered, recorded; the stops are let through.
			f.write(f.state("sessions", "s1", "loop.json"), loopFile("ACTIVE", 1, 9))
			out, _, _ = f.run(prompt, `{"session_id":"s1","prompt":"hello"}`)
			if !strings.Contains(out, "cannot run") || strings.Contains(out, `"decision"`) {
				t.Errorf("a prompt: %q, want a notice", out)
			}
			out, _, _ = f.run(start, `{"session_id":"s1","source":"startup"}`)
			if !strings.Contains(out, "cannot run") {
				t.Errorf("a session's start: %q, want a notice", out)
			}
			out, _, _ = f.run(prompt, `{"session_id":"s1","prompt":"/cancel-ralph"}`)
			if !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "loop cancelled") {
				t.Errorf("/cancel-ralph: %q", out)
			}
			if _, err := os.Stat(f.state("sessions", "s1", "cancel-typed")); err != nil {
				t.Errorf("/cancel-ralph not recorded: %v", err)
			}
			if out, errOut, code := f.run(stop, in("s1")); out != "" || errOut != "" || code != 0 {
				t.Errorf("stop after /cancel-ralph: %q %q %d, want it let through", out, errOut, code)
			}
		})
	}
}

// A tool event's command line starts no ralph-loop while no session on the machine has an
// active loop, and runs it as soon as one has.
func TestToolEventSkipsWithoutLoop(t *testing.T) {
	h := testHost()
	f := newFallbackEnv(t)
	bin := filepath.Join(t.TempDir(), "ralph-loop")
	f.write(bin, "#!/bin/sh\necho ran\n")
	os.Chmod(bin, 0o755)
	tool := BinaryCommand(h, h.Events[2], bin)
	if out, _, _ := f.run(tool, strings.Repeat("x", 1<<20)); out != "" {
		t.Errorf("without a loop: %q, want ralph-loop not run", out)
	}
	f.write(f.state("active", "other-session"), "")
	if out, _, _ := f.run(tool, "{}"); out != "ran\n" {
		t.Errorf("with a loop: %q, want ralph-loop run", out)
	}
	os.Remove(f.state("active", "other-session"))
	f.write(f.state("active", ".dot"), "")
	if out, _, _ := f.run(tool, "{}"); out != "ran\n" {
		t.Errorf("with a loop whose session starts with a dot: %q, want ralph-loop run", out)
	}
	if out, _, _ := f.run(BinaryCommand(h, h.Events[3], bin), "{}"); out != "ran\n" {
		t.Errorf("a stop: %q, want ralph-loop run", out)
	}
}
