package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// ServeChat starts a fake of the OpenAI Chat Completions API serving script, closed at t's
// end.
func ServeChat(t testing.TB, script fakechat.Script) *fakechat.Fake {
	t.Helper()
	f, err := fakechat.StartFake(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Logged is an Env whose ralph-loop's log a failing test shows: any host's.
type Logged interface {
	RalphLoopCmd(ctx context.Context, args ...string) (string, error)
}

// StartTUI starts argv, a host's TUI, in tmux with the options o (its Scratch t's own if
// not set) for t: t skips without tmux and fails if it does not start. At t's end the
// session is killed; if t failed, its log gets the last screen and ralph-loop's log of e.
func StartTUI(t *testing.T, e Logged, o tmux.Options, argv ...string) *tmux.Session {
	t.Helper()
	if err := tmux.Available(); err != nil {
		t.Skip("TUI test: tmux is not installed")
	}
	if o.Scratch == "" {
		o.Scratch = t.TempDir()
	}
	s, err := tmux.Start(context.Background(), o, argv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill() })
	WatchTUI(t, s, e)
	return s
}

// WatchTUI has t's log get the last screen of s and ralph-loop's log of e, should t fail by
// its end (before a cleanup registered earlier ends s).
func WatchTUI(t *testing.T, s *tmux.Session, e Logged) {
	t.Cleanup(func() {
		if t.Failed() {
			ctx := context.Background()
			screen, _ := s.Screen(ctx, 400)
			t.Logf("the screen at the end:\n%s", tmux.Trim(screen))
			if out, err := e.RalphLoopCmd(ctx, "log"); err == nil {
				t.Logf("ralph-loop log:\n%s", out)
			}
		}
	})
}

// Typed is a host's TUI at the prompt of which a test types, as a user does, with the fake
// model it runs against and the Env whose loops it runs.
type Typed struct {
	*Typist
	Typing
	Fake *fakechat.Fake
	Env  Host
}

// Typing is what the shared TUI scenarios need to know of a host's TUI: the host's name for
// ralph-loop ("qwen"); Shell, which makes an answer with optional text, then a call of its
// shell tool; Box, which reads its prompt box off a screen; Slow, a shell command that
// takes a while and appends to log.txt, which the host runs as it is.
type Typing struct {
	Host  string
	Shell func(text, command string) fakechat.Turn
	Box   func(screen string) string
	Slow  string
}

// Start starts the host's TUI, argv, in tmux with the options o (see StartTUI), running
// against fake, for the loops of e.
func (h Typing) Start(t *testing.T, e Host, fake *fakechat.Fake, o tmux.Options, argv ...string) *Typed {
	t.Helper()
	return &Typed{Typist: &Typist{Session: StartTUI(t, e, o, argv...), Box: h.Box}, Typing: h, Fake: fake, Env: e}
}

// Working is a model that never makes the promise: a quick command, then "not done"; then
// the slow command and "not done", n-1 times and on, so that the user can type while a
// command runs. The first iteration's command differs so that Busy sees the second's.
func (h Typing) Working(n int) fakechat.Script {
	turns := []fakechat.Turn{h.Shell("Starting.", "echo start >> log.txt"), fakechat.Text("Not done yet.")}
	for i := 1; i < n; i++ {
		turns = append(turns, h.Shell("Working.", h.Slow), fakechat.Text("Not done yet."))
	}
	return fakechat.Script{Turns: turns, WhenDone: fakechat.Text("Still not done."), MaxMain: 2*n + 10}
}

// Busy types a /ralph-loop command of max iterations in a TUI that runs Working, and
// waits until the loop's second iteration runs the slow command: the screen shows it (the
// first iteration's command is another), and it takes seconds, so that what the test types
// next comes while it runs, even on a loaded machine.
func (u *Typed) Busy(t *testing.T, max int) {
	t.Helper()
	u.Submit(t, fmt.Sprintf(`/ralph-loop "Keep appending to log.txt" --max-iterations %d`, max))
	u.Await(t, fmt.Sprintf("ralph-loop: iteration 2/%d", max))
	u.Await(t, u.Slow)
}

// Done is the script of the scenarios of a loop blocked, then accepted: "I'm done" without
// the promise, then work (a shell call that writes x.txt, through shell, the host's shell
// tool) and the promise.
func Done(shell func(text, command string) fakechat.Turn) fakechat.Script {
	return fakechat.Script{Turns: []fakechat.Turn{
		fakechat.Text("I'm done."),
		shell("Let me actually do it.", "echo hi > x.txt"),
		fakechat.Text("x.txt is written. <promise>DONE</promise>"),
	}}
}

// BlockedThenAccepted checks that /ralph-loop typed in the TUI, which runs Done, arms the
// loop; "I'm done" is blocked and the task comes back; work and the promise end the loop,
// after one continuation. The screen shows each of shown (the words flattened) and no
// error.
func (u *Typed) BlockedThenAccepted(t *testing.T, shown ...string) {
	t.Helper()
	u.Submit(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	l := WaitLoop(t, u.Env, "accepted", func(l Loop) bool { return l.Status != "ACTIVE" })
	ExpectLoop(t, l, u.Host, "PROMISE_ACCEPTED", 2, 1)
	if l.Task != "Create x.txt containing hi" || l.MaxIterations != 5 {
		t.Errorf("armed with task %q and %d iterations", l.Task, l.MaxIterations)
	}
	var screen string
	Shown(t, "the screen", func() string {
		screen, _ = u.Screen(context.Background(), 400)
		return tmux.Flat(screen)
	}, shown...)
	NoScreenErrors(t, screen)
	if n := len(u.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// PastedTask is the task of a long /ralph-loop command pasted whole: 1,009 bytes.
var PastedTask = strings.Repeat("Make every parser test pass and document each fix. ", 20)[:1009]

// Pasted checks that a whole long /ralph-loop command pasted (the prompt box then shows
// head, what the TUI shows of a paste), with a model that works and promises, arms the
// loop with the task as pasted, and the loop is accepted. It returns the loop.
func (u *Typed) Pasted(t *testing.T, head string) Loop {
	t.Helper()
	if err := u.Paste(context.Background(), `/ralph-loop "`+PastedTask+`" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	u.Enter(t, head)
	l := WaitLoop(t, u.Env, "accepted", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Task != PastedTask || l.MaxIterations != 5 || l.Status != "PROMISE_ACCEPTED" {
		t.Errorf("loop %s with %d iterations and a task of %d bytes ending %q; want PROMISE_ACCEPTED, 5 and the 1,009 bytes pasted",
			l.Status, l.MaxIterations, len(l.Task), l.Task[max(len(l.Task)-40, 0):])
	}
	screen, _ := u.Screen(context.Background(), 400)
	NoScreenErrors(t, screen)
	return l
}

// ExitThenContinue checks that, while a loop runs (Working, Busy), the user stops the
// agent (stop), then types /exit: the loop ends with the session. resume starts the TUI
// again with --continue on the same session, against a model that works and promises: the
// first answer says what became of the loop, with the command that picks it up again, and
// that command, typed, does, and the loop is accepted. ready, if set, is what the TUI
// shows when it takes input again after that answer; resumed, whether it shows the prompt
// hook's notice of the resumed loop.
func (u *Typed) ExitThenContinue(t *testing.T, stop func(), resume func(script fakechat.Script) *Typed, ready string, resumed bool) {
	t.Helper()
	u.Busy(t, 8)
	stop()
	u.Submit(t, "/exit")
	u.Await(t, "[exited ")
	l := WaitLoop(t, u.Env, "ended", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "SESSION_ENDED" {
		t.Fatalf("loop %s (%s), want SESSION_ENDED", l.Status, l.EndReason)
	}
	u.Kill()
	again := resume(fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("We were appending to log.txt."),
		u.Shell("Going on.", "echo step >> log.txt"), fakechat.Text("Done. <promise>DONE</promise>")}})
	again.Submit(t, "Where were we?")
	screen := again.Await(t, fmt.Sprintf("this session's loop ended with the session at iteration %d/8", l.Iteration))
	Contains(t, "the screen", tmux.Flat(screen), "/ralph-loop --resume")
	NoScreenErrors(t, screen)
	if ready != "" {
		again.Await(t, ready)
	}
	again.Submit(t, "/ralph-loop --resume")
	if resumed {
		again.Await(t, fmt.Sprintf("ralph-loop: loop resumed at iteration %d/8", l.Iteration))
	}
	r := WaitLoop(t, u.Env, "accepted", func(r Loop) bool { return r.Status != "ACTIVE" && r.Status != "SESSION_ENDED" })
	if r.Status != "PROMISE_ACCEPTED" || r.Task != l.Task {
		t.Errorf("resumed loop %s with task %q; want PROMISE_ACCEPTED, %q", r.Status, r.Task, l.Task)
	}
}
