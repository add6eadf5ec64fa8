package pi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// tui starts pi's interactive TUI in tmux, in e's project, against script's fake (see
// e2e.StartTUI).
func tui(t *testing.T, e *Env, script Script, args ...string) (*tmux.Session, *Fake) {
	t.Helper()
	fake, err := e.Configure(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	s := e2e.StartTUI(t, e, tmux.Options{Dir: e.Project, Env: append(e.Environ(), "TERM=xterm-256color"), Width: 160, Height: 45},
		append(append([]string{e.Pi}, Args()...), args...)...)
	if _, err := s.WaitFor(context.Background(), "fake-model", 3*time.Minute); err != nil {
		t.Fatalf("pi did not start: %v", err)
	}
	return s, fake
}

// enter types text at pi's prompt and sends it.
func enter(t *testing.T, s *tmux.Session, text string) {
	t.Helper()
	ctx := context.Background()
	if err := s.Type(ctx, text); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
}

// until waits up to a minute and a half for ok, polling the loop's state.
func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in 90 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shows reports whether the screen of s shows text.
func shows(s *tmux.Session, text string) func() bool {
	return func() bool {
		screen, _ := s.Screen(context.Background(), 0)
		return strings.Contains(screen, text)
	}
}

func tuiEnv(t *testing.T) *Env {
	t.Helper()
	suite.Need(t)
	root := t.TempDir()
	e, err := NewEnv(root, suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	// After the TUI is killed: pi runs the agent's commands in a session of their own, so a
	// command still running when pi ends (TestTUIPasteQuitResume's "sleep 60", as for a user
	// who types /quit) outlives it. That one is killed; anything else is a leak.
	t.Cleanup(func() {
		for _, p := range e2e.Reap(root) {
			if strings.HasSuffix(p, "sleep 60") {
				t.Logf("killed the agent's command that outlived pi: %s", p)
			} else {
				t.Errorf("process left running by the test (now killed): %s", p)
			}
		}
	})
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	return e
}

// loopIs reports whether the session's newest loop has the status.
func loopIs(e *Env, status string) func() bool {
	return func() bool {
		loops, err := e.Status(context.Background())
		return err == nil && len(loops) > 0 && loops[0].Status == status
	}
}

// whileWorking types command, then msg while the agent's "sleep 3" runs, and waits until
// the loop's status is status and the screen shows notice.
func whileWorking(t *testing.T, s *tmux.Session, e *Env, command, msg, status, notice string) {
	t.Helper()
	enter(t, s, command)
	until(t, "the sleep to run", shows(s, "sleep 3"))
	enter(t, s, msg)
	until(t, "the loop to be "+status, loopIs(e, status))
	if _, err := s.WaitFor(context.Background(), notice, 30*time.Second); err != nil {
		t.Error(err)
	}
}

// pi's TUI in tmux, as a user runs it: /ralph-loop typed; a message typed while a command
// of the loop runs goes to the agent within the run and the loop stays in step (one
// continuation per stop, the promise accepted at the stop that has it); ralph-loop's
// message is shown as its own ([ralph-loop]), not as the user's; the notices are on screen.
func TestTUI(t *testing.T) {
	e := tuiEnv(t)
	s, fake := tui(t, e, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Working.", "sleep 3"),
		Text("Noted the README."),
		Shell("", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}})
	ctx := context.Background()
	whileWorking(t, s, e, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`, "Also mention the README.",
		"PROMISE_ACCEPTED", "promise accepted at iteration 3/5")
	l := onlyLoop(t, e)
	expectLoop(t, l, "PROMISE_ACCEPTED", 3, 2)
	if n := len(fake.Continuations()); n != 2 {
		t.Errorf("%d continuations, want 2 (one per blocked stop)", n)
	}
	if n := len(fake.MainRequests()); n != 5 {
		t.Errorf("%d model requests, want 5 (none after the promise)", n)
	}
	screen, _ := s.Screen(ctx, 300)
	if !strings.Contains(screen, "[ralph-loop]") {
		t.Errorf("ralph-loop's message is not shown as its own; the screen:\n%s", tmux.Trim(screen))
	}
	log, _ := e.RalphLoopCmd(ctx, "log")
	if strings.Contains(log, "turn_ended") || !strings.Contains(log, "the user typed a message while the agent worked") {
		t.Errorf("the log:\n%s\nwant the message logged within the turn", log)
	}
	readFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

// /cancel-ralph typed while a command of the loop runs: pi runs the extension's command at
// once, the loop ends there, and nothing runs on its account after (no continuation, no
// model request past the run's own). Esc in a later loop interrupts the run: that is no
// stop, nothing is sent, and the loop waits for the user.
func TestTUICancelAndEsc(t *testing.T) {
	e := tuiEnv(t)
	s, fake := tui(t, e, Script{Turns: []Turn{
		Shell("Working.", "sleep 3"),
		Text("Stopped as asked."),
		Shell("Working again.", "sleep 30"),
	}, WhenDone: Text("More.")})
	ctx := context.Background()
	whileWorking(t, s, e, `/ralph-loop "Keep going" --max-iterations 5`, "/cancel-ralph", "CANCELLED", "cancelled at iteration 1/5")
	time.Sleep(settle + 3*time.Second)
	if n := len(fake.Continuations()); n != 0 {
		t.Errorf("%d continuations after the cancel, want 0", n)
	}
	if n := len(fake.MainRequests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the run's own)", n)
	}

	enter(t, s, `/ralph-loop "Keep going again" --max-iterations 5`)
	until(t, "the second sleep to run", shows(s, "sleep 30"))
	if err := s.Keys(ctx, "Escape"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(settle + 3*time.Second)
	loops, _ := e.Status(ctx)
	if len(loops) != 2 || loops[0].Status != "ACTIVE" || loops[0].Iteration != 1 {
		t.Errorf("after Esc: %+v; want the new loop active at iteration 1", loops)
	}
	if n := len(fake.MainRequests()); n != 3 {
		t.Errorf("%d model requests after Esc, want 3 (nothing sent for the interrupted run)", n)
	}
}

// Esc while a command of the loop runs: pi stops the command and ends the run, which is no
// stop, so the loop stays ACTIVE and goes on with the user's next message. The screen says
// so at once (it said nothing before), and the stopped call did no work: the promise at the
// next message, with no other call made, is rejected for want of one (before, the stopped
// call counted, and that promise ended the loop).
func TestTUIEscThenMessage(t *testing.T) {
	e := tuiEnv(t)
	s, fake := tui(t, e, Script{Turns: []Turn{
		Shell("Working.", "touch started.txt && sleep 300"),
		Text("It is done, I think. <promise>DONE</promise>"),
		Shell("Doing it for real.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}})
	ctx := context.Background()
	enter(t, s, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	until(t, "the command to start", func() bool { _, err := os.Stat(filepath.Join(e.Project, "started.txt")); return err == nil })
	// Esc, again if the TUI missed it (the screen is the only sign it took).
	notice := "ralph-loop: you stopped the agent (Esc); the loop is still active at iteration 1/5 and goes on with your next message (/cancel-ralph ends it)"
	var err error
	for range 3 {
		if err := s.Keys(ctx, "Escape"); err != nil {
			t.Fatal(err)
		}
		if _, err = s.WaitFor(ctx, notice, 30*time.Second); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("the screen does not say what became of the loop: %v", err)
	}
	if l := onlyLoop(t, e); l.Status != "ACTIVE" || l.ToolCalls != 0 {
		t.Errorf("after Esc: loop %s with %d tool calls; want ACTIVE with none (the stopped call did no work)", l.Status, l.ToolCalls)
	}
	enter(t, s, "Is it done?")
	until(t, "the loop to end", func() bool { return !loopIs(e, "ACTIVE")() })
	expectLoop(t, onlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	if c := fake.Continuations(); len(c) != 1 || !strings.Contains(c[0], "only 0 tool calls") {
		t.Errorf("continuations %q; want one, rejecting the promise that came with no tool call", c)
	}
	readFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

// A long command pasted whole (pi shows a paste marker and hands the command the whole
// text); /quit while the loop runs ends it with the session; pi -c tells at the start what
// became of it, and /ralph-loop --resume picks it up where it was.
func TestTUIPasteQuitResume(t *testing.T) {
	e := tuiEnv(t)
	task := strings.TrimSpace(strings.Repeat("Make the parser accept every input the grammar allows, with a test for each. ", 27))
	cmd := `/ralph-loop "` + task + `" --max-iterations 5`
	s, _ := tui(t, e, Script{Turns: []Turn{Text("Looking at the grammar.")}, WhenDone: Shell("Working.", "sleep 60")})
	ctx := context.Background()
	if err := s.Paste(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	until(t, "the second iteration's command to run", shows(s, "sleep 60"))
	l := onlyLoop(t, e)
	if l.Task != task || l.Iteration != 2 {
		t.Errorf("armed with a task of %d characters at iteration %d; want the whole %d-character task at 2", len(l.Task), l.Iteration, len(task))
	}
	enter(t, s, "/quit")
	until(t, "the loop to end with the session", loopIs(e, "SESSION_ENDED"))
	s.Kill()

	s2, fake := tui(t, e, Script{Turns: []Turn{
		Shell("Back to it.", "echo ok > parser.txt"),
		Text("Every input parses. <promise>DONE</promise>"),
	}}, "-c")
	if _, err := s2.WaitFor(ctx, "--resume", 60*time.Second); err != nil {
		t.Errorf("pi -c did not tell what became of the loop: %v", err)
	}
	enter(t, s2, "/ralph-loop --resume")
	until(t, "the resumed loop to end", loopIs(e, "PROMISE_ACCEPTED"))
	loops, _ := e.Status(ctx)
	if loops[0].Iteration != 2 || loops[0].Task != task {
		t.Errorf("resumed loop at iteration %d with a task of %d characters; want 2 and the whole task", loops[0].Iteration, len(loops[0].Task))
	}
	if n := len(fake.MainRequests()); n != 2 {
		t.Errorf("%d model requests after the resume, want 2", n)
	}
}
