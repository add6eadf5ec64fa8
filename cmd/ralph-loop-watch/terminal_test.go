//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// The dashboard as a user sees it: "ralph-loop watch" run in a pseudo-terminal of 80x24,
// its output read by a terminal emulator (Charm's x/vt), while a loop advances through the
// stand-in host: the hooks are the built ralph-loop run on captured Claude Code payloads,
// as the scripts run them. The waits are bounded and generous; nothing here times anything.

// screenWait bounds every wait for the screen to show something.
const screenWait = 30 * time.Second

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds ralph-loop and ralph-loop-watch into one directory, once.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "watch-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/ralph-loop/ralph-loop/cmd/ralph-loop",
			"github.com/ralph-loop/ralph-loop/cmd/ralph-loop-watch").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	if os.Getenv(standinEnv) != "" {
		os.Exit(standinHost(os.Stdin, os.Stdout))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// standinEnv makes the test binary the stand-in host of a machine (see standinHost).
const standinEnv = "WATCH_TEST_STANDIN_HOST"

// standinHost is the host of a machine's sessions, a process of its own as Claude Code
// is: it reads payloads, one a line (base64), runs ralph-loop's hook on each as Claude
// Code runs it, and writes back its stdout (base64, one line). A dashboard the test starts
// does not run below it, as a terminal's does not.
func standinHost(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		payload, err := base64.StdEncoding.DecodeString(sc.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, "stand-in host:", err)
			return 1
		}
		cmd := exec.Command(os.Getenv("RALPH_LOOP_BIN"), "hook", "--host", "claude")
		cmd.Stdin, cmd.Stderr = bytes.NewReader(payload), os.Stderr
		reply, err := cmd.Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "stand-in host: ralph-loop hook:", err)
			return 1
		}
		fmt.Fprintln(out, base64.StdEncoding.EncodeToString(reply))
	}
	return 0
}

// machine is one test's machine: its home, its state, the built binaries, the stand-in
// host running its sessions.
type machine struct {
	t    *testing.T
	bin  string
	dir  string
	env  []string
	host hosttest.Claude // makes the stand-in host's payloads

	standin *exec.Cmd
	toHost  io.WriteCloser
	reply   *bufio.Scanner
}

func newMachine(t *testing.T) *machine {
	dir := t.TempDir()
	m := &machine{t: t, bin: binaries(t), dir: dir}
	// Only what the commands need: not the caller's session variables (a test run by an
	// agent host would be taken for a command of that session).
	m.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
	}
	m.host = hosttest.NewClaude(t, claude.Host{}, "Bash", nil)
	return m
}

// hook has the stand-in host run ralph-loop's hook on one payload, and returns its stdout.
func (m *machine) hook(payload []byte) string {
	m.t.Helper()
	if m.standin == nil {
		m.standin = exec.Command(os.Args[0])
		m.standin.Env = append(append([]string{}, m.env...), standinEnv+"=1", "RALPH_LOOP_BIN="+filepath.Join(m.bin, "ralph-loop"))
		m.standin.Dir, m.standin.Stderr = m.dir, os.Stderr
		var err error
		if m.toHost, err = m.standin.StdinPipe(); err != nil {
			m.t.Fatal(err)
		}
		out, err := m.standin.StdoutPipe()
		if err != nil {
			m.t.Fatal(err)
		}
		if err := m.standin.Start(); err != nil {
			m.t.Fatal(err)
		}
		m.reply = bufio.NewScanner(out)
		m.reply.Buffer(make([]byte, 1<<20), 16<<20)
		m.t.Cleanup(func() {
			m.toHost.Close()
			_ = m.standin.Wait()
		})
	}
	if _, err := fmt.Fprintln(m.toHost, base64.StdEncoding.EncodeToString(payload)); err != nil {
		m.t.Fatalf("stand-in host: %v", err)
	}
	if !m.reply.Scan() {
		m.t.Fatalf("stand-in host gave no reply (%v)", m.reply.Err())
	}
	out, err := base64.StdEncoding.DecodeString(m.reply.Text())
	if err != nil {
		m.t.Fatal(err)
	}
	return string(out)
}

// hookHere runs ralph-loop's hook on one payload from this process, which so becomes the
// session's host: a dashboard the test starts then runs inside the session, as one the
// agent started would.
func (m *machine) hookHere(payload []byte) {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(m.bin, "ralph-loop"), "hook", "--host", "claude")
	cmd.Env, cmd.Dir, cmd.Stdin = m.env, m.dir, bytes.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil {
		m.t.Fatalf("ralph-loop hook: %v\n%s", err, out)
	}
}

func (m *machine) session(id string) hosttest.Session {
	return hosttest.Session{ID: id, Cwd: m.dir, Transcript: filepath.Join(m.dir, id+".jsonl")}
}

// terminal is a command running in a pseudo-terminal, and the screen it draws.
type terminal struct {
	t      *testing.T
	cmd    *exec.Cmd
	ptmx   *os.File
	mu     sync.Mutex // guards screen (but its Read) and raw
	screen *vt.Emulator
	raw    bytes.Buffer // every byte the command wrote
	done   chan struct{}
	err    error
}

// run starts the built ralph-loop with args in a pseudo-terminal of w columns and h rows.
func (m *machine) run(w, h int, extraEnv []string, args ...string) *terminal {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(m.bin, "ralph-loop"), args...)
	cmd.Env, cmd.Dir = append(append([]string{}, m.env...), extraEnv...), m.dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		m.t.Fatalf("start in a pseudo-terminal: %v", err)
	}
	term := &terminal{t: m.t, cmd: cmd, ptmx: ptmx, screen: vt.NewEmulator(w, h), done: make(chan struct{})}
	// The emulator's answers to the program's queries go back to it as a terminal's would.
	go func() { _, _ = io.Copy(ptmx, term.screen) }()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.raw.Write(buf[:n])
				_, _ = term.screen.Write(buf[:n])
				term.mu.Unlock()
			}
			if err != nil {
				break
			}
		}
		term.err = cmd.Wait()
		close(term.done)
	}()
	m.t.Cleanup(func() {
		select {
		case <-term.done:
		default:
			_ = cmd.Process.Kill()
			<-term.done
		}
		// The emulator is not closed: its Close races with the Read that passes its
		// answers on, which then waits on it until the test binary ends.
		ptmx.Close()
	})
	return term
}

// text is the screen as it shows now.
func (term *terminal) text() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.screen.String()
}

// resize makes the terminal w columns by h rows, as a terminal window resized does.
func (term *terminal) resize(w, h int) {
	term.t.Helper()
	term.mu.Lock()
	defer term.mu.Unlock()
	if err := pty.Setsize(term.ptmx, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)}); err != nil {
		term.t.Fatal(err)
	}
	term.screen.Resize(w, h)
}

// waitFor waits until the screen shows every one of want.
func (term *terminal) waitFor(want ...string) {
	term.t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		s := term.text()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-term.done:
			term.t.Fatalf("the command ended (%v) before the screen showed %q; the screen:\n%s", term.err, missing, s)
		default:
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the screen did not show %q within %s; it shows:\n%s", missing, screenWait, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exit waits for the command to end and returns its exit code.
func (term *terminal) exit() int {
	term.t.Helper()
	select {
	case <-term.done:
	case <-time.After(screenWait):
		term.t.Fatalf("the command did not end within %s; the screen:\n%s", screenWait, term.text())
	}
	var exit *exec.ExitError
	if errors.As(term.err, &exit) {
		return exit.ExitCode()
	}
	if term.err != nil {
		term.t.Fatalf("wait: %v", term.err)
	}
	return 0
}

func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.raw.String()
}

// row is the screen's row i (from 0), without its trailing blanks.
func (term *terminal) row(i int) string {
	rows := strings.Split(term.text(), "\n")
	if i < len(rows) {
		return strings.TrimRight(rows[i], " ")
	}
	return ""
}

// TestWatchAdvances: "watch --session" started before the loop waits for it, then shows
// each iteration as the stops come (1/6, 2/6, 3/6), the tool calls and the last decision,
// follows a resize, shows the timeline on Enter, and at the accepted promise shows how the
// loop ended and leaves by itself, exit 0, printing the end as "log --follow" does.
func TestWatchAdvances(t *testing.T) {
	m := newMachine(t)
	s := m.session("s1")
	term := m.run(80, 24, nil, "watch", "--session", "s1")
	term.waitFor("waiting for a loop in session s1")

	m.hook(m.host.Prompt(s, `/ralph-loop "Make the parser tests pass" --max-iterations 6`))
	term.waitFor("iteration", "1/6", "Make the parser tests pass", "tool calls  0 (the promise needs 1)", "last        armed")

	m.hook(m.host.ToolUsed(s, "toolu_01"))
	term.waitFor("tool calls  1 (the promise needs 1)")
	m.hook(m.host.Stop(s, "Working on the parser, iteration 1."))
	term.waitFor("2/6", "last        blocked: promise not found; continuing with iteration 2/6")

	// A smaller terminal: the same rows, the keys still on its last line.
	term.resize(60, 20)
	term.waitFor("q quit · enter timeline · c cancel the loop")
	if got := term.row(19); got != "q quit · enter timeline · c cancel the loop" {
		t.Errorf("after the resize to 60x20, row 20 is %q, want the keys; the screen:\n%s", got, term.text())
	}
	term.resize(80, 24)

	m.hook(m.host.ToolUsed(s, "toolu_02"))
	m.hook(m.host.Stop(s, "Still on the parser, iteration 2."))
	term.waitFor("3/6", "tool calls  2 (the promise needs 1)", "continuing with iteration 3/6")

	// Enter shows the timeline (ralph-loop log); Esc goes back.
	if _, err := term.ptmx.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	term.waitFor("timeline of session s1", "#2    blocked")
	if _, err := term.ptmx.Write([]byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	term.waitFor("tool calls  2")

	m.hook(m.host.Stop(s, "All parser tests pass.\n<promise>DONE</promise>"))
	term.waitFor("PROMISE_ACCEPTED", "last        accepted: promise found after 2 tool calls")
	if code := term.exit(); code != 0 {
		t.Errorf("watch exited %d, want 0; the screen:\n%s", code, term.text())
	}
	if out := term.output(); !strings.Contains(out, "loop ended: PROMISE_ACCEPTED at iteration 3/6 (promise found)") {
		t.Errorf("watch did not print how the loop ended; the screen:\n%s", term.text())
	}
}

// sgr matches a Select Graphic Rendition sequence, its parameters in group 1.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colours lists the colour parameters of the SGR sequences in out (foreground,
// background, underline colour, and their resets).
func colours(out string) []string {
	var found []string
	for _, m := range sgr.FindAllStringSubmatch(out, -1) {
		params := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for _, p := range params {
			var n int
			if _, err := fmt.Sscan(p, &n); err != nil {
				continue
			}
			if n >= 30 && n <= 39 || n >= 40 && n <= 49 || n >= 90 && n <= 97 || n >= 100 && n <= 107 || n == 58 || n == 59 {
				found = append(found, m[0])
				break
			}
		}
	}
	return found
}

// TestWatchColour: the dashboard colours what it shows on a colour terminal, and with
// NO_COLOR set writes no colour at all; c then y cancels the loop (as "ralph-loop cancel"
// from a terminal does), and the dashboard of that session leaves, exit 0.
func TestWatchColour(t *testing.T) {
	for _, value := range []string{"", "1", "yes"} {
		noColor := value != ""
		t.Run("NO_COLOR="+value, func(t *testing.T) {
			m := newMachine(t)
			s := m.session("c1")
			m.hook(m.host.Prompt(s, `/ralph-loop "Colour me" --max-iterations 4`))
			var env []string
			if noColor {
				env = []string{"NO_COLOR=" + value}
			}
			term := m.run(80, 24, env, "watch", "--session", "c1")
			term.waitFor("1/4", "Colour me")
			if _, err := term.ptmx.Write([]byte("c")); err != nil {
				t.Fatal(err)
			}
			term.waitFor("cancel the loop of session c1 at iteration 1/4?")
			if _, err := term.ptmx.Write([]byte("y")); err != nil {
				t.Fatal(err)
			}
			term.waitFor("CANCELLED")
			if code := term.exit(); code != 0 {
				t.Errorf("watch exited %d, want 0; the screen:\n%s", code, term.text())
			}
			out := term.output()
			if !strings.Contains(out, "loop ended: CANCELLED at iteration 1/4") {
				t.Errorf("watch did not print how the loop ended; the screen:\n%s", term.text())
			}
			got := colours(out)
			if noColor && len(got) > 0 {
				t.Errorf("with NO_COLOR set, watch wrote colour codes: %q", got)
			}
			if !noColor && len(got) == 0 {
				t.Errorf("on a colour terminal, watch wrote no colour code")
			}
		})
	}
}

// TestWatchCancelInside: the dashboard's cancel follows "ralph-loop cancel"'s authority
// rules: run below the host of the loop's session (as from the agent's own shell), it is
// refused, saying what to do instead, and the loop goes on.
func TestWatchCancelInside(t *testing.T) {
	m := newMachine(t)
	s := m.session("in1")
	m.hookHere(m.host.Prompt(s, `/ralph-loop "Stay on" --max-iterations 3`))
	term := m.run(80, 24, nil, "watch", "--session", "in1")
	term.waitFor("1/3")
	if _, err := term.ptmx.Write([]byte("cy")); err != nil {
		t.Fatal(err)
	}
	term.waitFor("refused:", "only the user ends")
	if !strings.Contains(term.text(), "ACTIVE") {
		t.Errorf("the loop is not shown active after the refused cancel:\n%s", term.text())
	}
	if _, err := term.ptmx.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	if code := term.exit(); code != 0 {
		t.Errorf("watch exited %d after q, want 0", code)
	}
	st := exec.Command(filepath.Join(m.bin, "ralph-loop"), "status", "--session", "in1", "--json")
	st.Env = m.env
	out, err := st.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"status": "ACTIVE"`) {
		t.Errorf("the loop is not active after the refused cancel:\n%s", out)
	}
}
