package kilo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// settle is how long a session must stay idle to count as finished: the plugin sends a
// continuation within milliseconds of the idle.
const settle = 2 * time.Second

// world is a fresh Env with ralph-loop installed for Kilo by its own installer at each of
// scopes, and "kilo serve" serving script.
type world struct {
	*Env
	srv *Server
}

func newWorld(t *testing.T, script Script, scopes ...string) *world {
	t.Helper()
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range scopes {
		out, err := e.Install(context.Background(), scope)
		if err != nil {
			t.Fatalf("install: %v", err)
		}
		t.Logf("install: %s", out)
	}
	return serve(t, e, script)
}

func serve(t *testing.T, e *Env, script Script) *world {
	t.Helper()
	srv, err := e.Serve(context.Background(), script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kilo's log:\n%s", tail(srv.Log.String(), 6000))
		}
		srv.Close()
	})
	return &world{Env: e, srv: srv}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// start opens a session and sends the first prompt ("!/NAME ARGS" runs the command as the
// TUI does; anything else is sent as typed), then waits until the session settles and done
// holds.
func (w *world) start(t *testing.T, prompt string, done func() bool) string {
	t.Helper()
	id, err := w.srv.NewSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.send(t, id, prompt, done)
	return id
}

func (w *world) send(t *testing.T, id, prompt string, done func() bool) {
	t.Helper()
	ctx := context.Background()
	since := time.Now()
	if name, args, ok := strings.Cut(strings.TrimPrefix(prompt, "!"), " "); strings.HasPrefix(prompt, "!/") && ok {
		w.srv.Command(ctx, id, strings.TrimPrefix(name, "/"), args)
	} else if err := w.srv.Prompt(ctx, id, prompt); err != nil {
		t.Fatal(err)
	}
	turns, err := w.srv.Settled(ctx, id, since, settle, done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("settled after %d busy spells; toasts: %q", turns, w.srv.Toasts())
}

// ended is true once every loop has ended (and there is one).
func (w *world) ended() bool { return ended(w.Env) }

func ended(e *Env) bool {
	loops, err := e.Status(context.Background())
	if err != nil || len(loops) == 0 {
		return false
	}
	for _, l := range loops {
		if l.Status == "ACTIVE" {
			return false
		}
	}
	return true
}

// failed is true once Kilo has reported a session error (the fake's HTTP 400 when its script
// allows no more requests).
func (w *world) failed() bool { return len(w.srv.Errors()) > 0 }

func always() bool { return true }

func onlyLoop(t *testing.T, e *Env) Loop {
	t.Helper()
	loops, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 1 {
		t.Fatalf("%d loops, want 1: %+v", len(loops), loops)
	}
	return loops[0]
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "kilo", status, iteration, tools)
}

var contains = e2e.Contains

// lastUser is the last user message of the n-th agent request (from 0).
func lastUser(t *testing.T, f *Fake, n int) string {
	t.Helper()
	reqs := f.MainRequests()
	if n >= len(reqs) {
		t.Fatalf("no agent request %d (%d in all)", n+1, len(reqs))
	}
	for i := len(reqs[n].Messages) - 1; i >= 0; i-- {
		if m := reqs[n].Messages[i]; m.Role == "user" {
			return m.Text
		}
	}
	return ""
}

func (w *world) toasts() string { return strings.Join(w.srv.Toasts(), "\n") }

// saw checks that the user was shown each of wants as a toast, waiting up to 10 s.
func (w *world) saw(t *testing.T, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing := ""
		for _, want := range wants {
			if !strings.Contains(w.toasts(), want) {
				missing = want
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the user was not shown %q; the toasts:\n%s", missing, w.toasts())
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *world) noErrors(t *testing.T) {
	t.Helper()
	if errs := w.srv.Errors(); len(errs) > 0 {
		t.Errorf("session errors: %q", errs)
	}
	for _, m := range w.srv.Toasts() {
		if strings.Contains(m, "error") {
			t.Errorf("an error toast: %s", m)
		}
	}
}

func readFile(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", filepath.Base(path), b, err, want)
	}
}

// 1. /ralph-loop run as a command (as the TUI runs it): "I'm done" without the promise is
// blocked and the task comes back; work and the promise then end the loop.
func TestBlockedThenPromise(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}}, "user")
	w.start(t, `!/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	w.noErrors(t)
	c := w.srv.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output", "TASK:\nCreate x.txt containing hi")
	contains(t, "the first request's prompt", lastUser(t, w.srv.Fake, 0), "ralph-loop: a loop is now active", "<promise>DONE</promise>")
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
	w.saw(t, "loop armed: up to 5 iterations", "promise accepted at iteration 2/5 after 1 tool call")
}

// 2. A promise with no tool call is rejected; the agent's attempt to cancel its own loop
// from the shell is denied; after real work the promise is accepted. The loop is started
// from the project's plugin (committed, it runs the ralph-loop on PATH).
func TestPromiseWithoutWork(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.OnPath(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "project"); err != nil {
		t.Fatal(err)
	}
	w := serve(t, e, Script{Turns: []Turn{
		Text("<promise>DONE</promise>"),
		Shell("Let me end this loop.", "ralph-loop cancel --all"),
		Shell("Fine, doing the work.", "echo hi > x.txt"),
		Text("Now it is really done. <promise>DONE</promise>"),
	}})
	w.start(t, `!/ralph-loop "Create x.txt containing hi"`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	c := w.srv.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	reqs := w.srv.Fake.MainRequests()
	var denied string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			denied = m.Text
		}
	}
	contains(t, "the denied call's result", denied, "ralph-loop")
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}

// 3. The iteration limit: a loop that never promises ends at --max-iterations; Kilo has no
// cap of its own.
func TestIterationLimit(t *testing.T) {
	var turns []Turn
	for i := 1; i <= 6; i++ {
		turns = append(turns, Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), Text(fmt.Sprintf("Iteration %d: still working.", i)))
	}
	w := newWorld(t, Script{Turns: turns, WhenDone: Text("Out of script.")}, "user")
	w.start(t, `!/ralph-loop "Count to six in progress.txt" --max-iterations 6`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "MAX_ITERATIONS_REACHED", 6, 6)
	if n := len(w.srv.Fake.Continuations()); n != 5 {
		t.Errorf("%d continuations, want 5", n)
	}
	w.saw(t, "6/6")
	readFile(t, filepath.Join(w.Project, "progress.txt"), "1\n2\n3\n4\n5\n6\n")
}

// 4. /cancel-ralph between turns ends the loop; the stop after it is not blocked.
func TestCancel(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Shell("Starting.", "echo 1 > step.txt"),
		Text("Step one done."),
		Shell("", "echo 2 >> step.txt"),
	}, MaxMain: 3}, "user")
	id := w.start(t, `!/ralph-loop "Keep going" --max-iterations 5`, w.failed)
	expectLoop(t, onlyLoop(t, w.Env), "ACTIVE", 2, 2)
	w.srv.Fake.SetScript(Script{Turns: []Turn{Text("The loop is cancelled.")}})
	w.send(t, id, "!/cancel-ralph ", w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "CANCELLED", 2, 2)
	w.saw(t, "cancelled at iteration 2/5")
	if n := len(w.srv.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// 5. A session without a loop is left alone: nothing added to the prompt, nothing said, no
// continuation, no state; and its tool calls run no ralph-loop at all (the plugin finds no
// active marker for the session), which a ralph-loop that logs its runs shows.
func TestNoLoopUntouched(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	counted := filepath.Join(e.Bin, "counted-ralph-loop")
	runs := filepath.Join(e.Tmp, "runs.log")
	if err := os.WriteFile(counted, []byte("#!/bin/sh\necho \"$*\" >> '"+runs+"'\nexec '"+suite.RalphLoop+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "kilo", "--binary", counted); err != nil {
		t.Fatal(err)
	}
	os.Remove(runs) // install ran it too
	w := serve(t, e, Script{Turns: []Turn{
		Shell("", "echo hi > x.txt"), Shell("", "echo there >> x.txt"), Shell("", "cat x.txt"),
		Text("Done: x.txt. <promise>DONE</promise>"),
	}})
	w.start(t, "Create x.txt containing hi", always)
	if n := len(w.srv.Fake.MainRequests()); n != 4 {
		t.Errorf("%d agent requests, want 4", n)
	}
	// Kilo adds its <environment_details> to the prompt; ralph-loop adds nothing.
	if got := lastUser(t, w.srv.Fake, 0); !strings.HasPrefix(got, "Create x.txt containing hi\n") || strings.Contains(got, "ralph-loop") {
		t.Errorf("the prompt reached the model as %q", got)
	}
	if s := w.toasts(); s != "" {
		t.Errorf("ralph-loop spoke: %s", s)
	}
	w.noErrors(t)
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("loops %+v, %v; want none", loops, err)
	}
	b, _ := os.ReadFile(runs)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(lines)
	t.Logf("ralph-loop ran %d times for 3 tool calls: %q", len(lines), lines)
	// One to learn where the markers are, one for the prompt, one for the idle: none for the
	// three tool calls (six runs before).
	if want := []string{"hook --host kilo", "hook --host kilo", "hook --host kilo --active-dir"}; strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("ralph-loop ran %q, want %q", lines, want)
	}
}

// 6. The guard on Kilo's file tools: the agent's write into ralph-loop's state directory is
// denied (the tool's result says why), nothing is written, and the loop goes on.
func TestGuardWrite(t *testing.T) {
	w := newWorld(t, Script{}, "user")
	planted := filepath.Join(w.State, "ralph-loop", "sessions", "planted", "loop.json")
	w.srv.Fake.SetScript(Script{Turns: []Turn{
		fakechat.Tool("Writing.", "write", map[string]any{"filePath": planted, "content": "{}"}),
		Text("Done."),
	}, WhenDone: Text("Working."), MaxMain: 3})
	w.start(t, `!/ralph-loop "Keep the notes" --max-iterations 5`, w.failed)
	expectLoop(t, onlyLoop(t, w.Env), "ACTIVE", 3, 0)
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the write reached the state directory: %v", err)
	}
	reqs := w.srv.Fake.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d agent requests, want at least 2", len(reqs))
	}
	m := reqs[1].Messages[len(reqs[1].Messages)-1]
	if m.Role != "tool" {
		t.Fatalf("the second request does not end with the write's result: %s %q", m.Role, m.Text)
	}
	contains(t, "the denied write's result", m.Text, "ralph-loop", "denied")
}

// 7. "kilo run" exits after an idle unless the plugin's continuation starts the next turn in
// time, which it does not always do (3 runs of 6 here lost it): /ralph-loop, run as the
// command or typed, is refused with the reason (the agent is asked to pass it on), and
// nothing is armed.
func TestRunRefusesLoop(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--command", "ralph-loop", "Create x.txt"}, {"/ralph-loop", "Create-x.txt"}} {
		out, fake, err := e.RunCLI(context.Background(), Script{Turns: []Turn{Text("ralph-loop says a loop cannot run under kilo run.")}}, args...)
		if err != nil {
			t.Fatalf("kilo run %q: %v\n%s", args, err, out)
		}
		contains(t, "what the agent got", lastUser(t, fake, 0), "kilo run can exit before the loop's next turn starts", "Tell the user exactly the following")
		if n := len(fake.MainRequests()); n != 1 {
			t.Errorf("kilo run %q: %d agent requests, want 1", args, n)
		}
	}
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("loops %+v, %v; want none under kilo run", loops, err)
	}
}

// 9. "kilo run --attach" to a running "kilo serve" leaves the loop to the server, whose
// plugin goes on after run has exited: a headless loop that ends with the promise.
func TestRunAttachLoops(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}}, "user")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.Opencode, "run", "--attach", w.srv.URL, "--dir", w.Project, "--command", "ralph-loop", "Create x.txt containing hi")
	cmd.Dir = w.Project
	cmd.Env = w.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kilo run --attach: %v\n%s", err, out)
	}
	for !w.ended() {
		if ctx.Err() != nil {
			t.Fatalf("the loop did not end: %+v", onlyLoop(t, w.Env))
		}
		time.Sleep(200 * time.Millisecond)
	}
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}
