package install

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// A shell the hosts may run a hook's command line with: the line and the hook script it
// reads are POSIX sh, and must read the same in each (/bin/sh is dash on Debian, bash on
// Fedora and macOS, busybox's in small images; zsh when it is the user's shell).
type shell struct {
	name string
	argv []string // before "-c LINE"
	pkg  string   // the Debian package that has it
}

var shells = []shell{
	{"dash", []string{"dash"}, "dash"},
	{"bash --posix", []string{"bash", "--posix"}, "bash"},
	{"busybox sh", []string{"busybox", "sh"}, "busybox"},
	{"zsh in sh mode", []string{"zsh", "--emulate", "sh"}, "zsh"},
	{"zsh", []string{"zsh"}, "zsh"},
}

// eachShell runs f in a subtest for each shell present, and skips, saying so, each shell
// that is not.
func eachShell(t *testing.T, f func(t *testing.T, sh shell)) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				t.Skipf("%s is not installed here (apt-get install %s): not tried in it", sh.argv[0], sh.pkg)
			}
			f(t, sh)
		})
	}
}

// fallbackEnv is a machine for the command lines' own answers: a home with a state
// directory and ralph-loop's keep (with the host's hook script, as install writes it), and
// a PATH with only the tools the script uses (no ralph-loop).
type fallbackEnv struct {
	t          *testing.T
	sh         shell
	home, path string
}

func newFallbackEnv(t *testing.T, sh shell) *fallbackEnv {
	dir := t.TempDir()
	for _, tool := range []string{"cat", "grep", "sed", "mkdir"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skip("no " + tool)
		}
		os.Symlink(p, filepath.Join(dir, tool))
	}
	return &fallbackEnv{t: t, sh: sh, home: t.TempDir(), path: dir}
}

func (f *fallbackEnv) state(elem ...string) string {
	return filepath.Join(append([]string{f.home, ".local", "state", "ralph-loop"}, elem...)...)
}

// keep is ralph-loop's keep, where install writes the hook script.
func (f *fallbackEnv) keep(elem ...string) string {
	return filepath.Join(append([]string{f.home, ".local", "share", "ralph-loop"}, elem...)...)
}

func (f *fallbackEnv) write(path, content string) {
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fallbackEnv) run(cmd, input string) (stdout, stderr string, code int) {
	f.t.Helper()
	c := exec.Command(f.sh.argv[0], append(f.sh.argv[1:], "-c", cmd)...)
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
// A session without a loop, and a machine without any, are left alone, as before. In every
// shell present.
func TestFallbackCommand(t *testing.T) {
	h := testHost()
	eachShell(t, func(t *testing.T, sh shell) {
		for _, form := range []struct {
			name string
			cmd  func(f *fallbackEnv, ev Event) string
		}{
			{"binary", func(f *fallbackEnv, ev Event) string {
				return BinaryCommand(h, ev, "/nonexistent/ralph-loop", ScriptPath(f.keep(), h.Name))
			}},
			{"portable", func(_ *fallbackEnv, ev Event) string { return PortableCommandAt(h, ev, "project") }},
		} {
			t.Run(form.name, func(t *testing.T) {
				f := newFallbackEnv(t, sh)
				f.write(ScriptPath(f.keep(), h.Name), h.Script())
				start, prompt, tool, stop := form.cmd(f, h.Events[0]), form.cmd(f, h.Events[1]), form.cmd(f, h.Events[2]), form.cmd(f, h.Events[3])
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
				f.write(f.keep("loops", "abc", "s1.json"), loopFile("ACTIVE", 1, 9))
				if out, _, _ := f.run(stop, in("s1")); !strings.Contains(out, `"decision":"block"`) {
					t.Errorf("stop with only ralph-loop's copy: %q, want it blocked", out)
				}
				f.write(f.keep("loops", "abc", "s1.json"), loopFile("CANCELLED", 1, 9))
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
	})
}

// The texts name the ralph-loop the line runs, its path made the inside of a JSON string
// where the host answers in JSON.
func TestFallbackNamesTheBinary(t *testing.T) {
	h := testHost()
	bin := `/opt/my "tools"\x/ralph-loop`
	eachShell(t, func(t *testing.T, sh shell) {
		f := newFallbackEnv(t, sh)
		f.write(ScriptPath(f.keep(), h.Name), h.Script())
		f.write(f.state("active", "s1"), "")
		out, _, _ := f.run(BinaryCommand(h, h.Events[3], bin, ScriptPath(f.keep(), h.Name)), `{"session_id":"s1"}`)
		want := `cannot run ` + quoteJSON(bin)[1:len(quoteJSON(bin))-1] + ` (it is missing`
		if !strings.Contains(out, want) {
			t.Errorf("stop: %q, want it to hold %q", out, want)
		}
	})
}

// A tool event's command line starts no ralph-loop while no session on the machine has an
// active loop, and runs it as soon as one has.
func TestToolEventSkipsWithoutLoop(t *testing.T) {
	h := testHost()
	eachShell(t, func(t *testing.T, sh shell) {
		f := newFallbackEnv(t, sh)
		script := ScriptPath(f.keep(), h.Name)
		f.write(script, h.Script())
		bin := filepath.Join(t.TempDir(), "ralph-loop")
		f.write(bin, "#!/bin/sh\necho ran\n")
		os.Chmod(bin, 0o755)
		tool := BinaryCommand(h, h.Events[2], bin, script)
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
		if out, _, _ := f.run(BinaryCommand(h, h.Events[3], bin, script), "{}"); out != "ran\n" {
			t.Errorf("a stop: %q, want ralph-loop run", out)
		}
		// Without its script, a tool event runs ralph-loop every time.
		os.Remove(f.state("active", ".dot"))
		os.Remove(script)
		if out, _, _ := f.run(tool, "{}"); out != "ran\n" {
			t.Errorf("without the script: %q, want ralph-loop run", out)
		}
	})
}

// The script reads a loop file's lines as state writes them (state.ScriptLines): its
// patterns are made of those lines, and a loop that state wrote, with its keep (2 of 4
// iterations used, in a task that holds a line's words), has its stops blocked exactly as
// many times as it has iterations left.
func TestScriptReadsLoopLines(t *testing.T) {
	num := `\([0-9]*\)`
	for _, want := range []string{
		`grep -qs '^` + state.ScriptLines.Active + `$'`,
		`sed -n 's/^` + strings.Replace(state.ScriptLines.MaxIterations, "%d", num, 1) + `$/\1/p'`,
		`sed -n 's/^` + strings.Replace(state.ScriptLines.Iteration, "%d", num, 1) + `$/\1/p'`,
	} {
		if !strings.Contains(scriptSource, want) {
			t.Errorf("hook.sh does not read %s", want)
		}
	}

	h := testHost()
	f := newFallbackEnv(t, shell{"sh", []string{"sh"}, "dash"})
	f.write(ScriptPath(f.keep(), h.Name), h.Script())
	st := state.NewStore(f.state())
	st.SetKeepDir(f.keep())
	cfg := state.DefaultConfig()
	cfg.Task, cfg.MaxIterations = "fix it\n  \"iteration\": 0,\n  \"status\": \"ACTIVE\",", 4
	l := &state.Loop{LoopID: state.NewLoopID(time.Now()), SessionID: "s1", Host: "claude", Config: cfg, Status: state.Active, Iteration: 2, StartedAt: time.Now()}
	if err := st.Update(context.Background(), "s1", func(*state.Tx, *state.Loop) (*state.Loop, error) { return l, nil }); err != nil {
		t.Fatal(err)
	}
	stop := BinaryCommand(h, h.Events[3], "/nonexistent/ralph-loop", ScriptPath(f.keep(), h.Name))
	for i := 1; i <= 3; i++ {
		out, _, _ := f.run(stop, `{"session_id":"s1"}`)
		if blocked := strings.Contains(out, `"decision":"block"`); blocked != (i <= 2) {
			t.Errorf("stop %d: %q, want blocked %v (2 of 4 iterations used)", i, out, i <= 2)
		}
	}
}
