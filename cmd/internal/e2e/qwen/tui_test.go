package qwen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// The scenarios below drive Qwen Code's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host qwen" (user scope).

// tui is Qwen Code's TUI in tmux against a fake model.
type tui struct{ *e2e.Typed }

// idle reports whether the TUI waits for input: the prompt box shows its placeholder and
// the agent is not at work (Esc would cancel it then).
func idle(screen string) bool {
	return tmux.Contains(screen, "Type your message") && !tmux.Contains(screen, "esc to cancel")
}

// waitIdle waits until the TUI waits for input.
func (u *tui) waitIdle(t *testing.T) {
	t.Helper()
	if _, err := u.WaitUntil(context.Background(), "an idle prompt", 90*time.Second, idle); err != nil {
		t.Fatal(err)
	}
}

// esc presses Esc, which stops the agent, and waits until the TUI waits for input.
func (u *tui) esc(t *testing.T) {
	t.Helper()
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	u.waitIdle(t)
}

// startTUI starts "qwen --yolo ARGS" in tmux in e's project, against a fake serving
// script, and waits until it takes input (see e2e.StartTUI).
func startTUI(t *testing.T, e *Env, script fakechat.Script, args ...string) *tui {
	t.Helper()
	fake := e2e.ServeChat(t, script)
	u := &tui{typing.Start(t, e, fake, tmux.Options{Dir: e.Project, Env: e.environ(fake.URL, []string{"TERM=xterm-256color"}), Width: 160, Height: 60},
		append([]string{e.Qwen, "--yolo"}, args...)...)}
	u.waitIdle(t)
	return u
}

// inputBox is the prompt box of a screen: the lines between the last two rules.
func inputBox(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	end := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "──") {
			if end >= 0 {
				return strings.Join(lines[i+1:end], "\n")
			}
			end = i
		}
	}
	return ""
}

// 1. /ralph-loop typed in the TUI arms the loop; "I'm done" is blocked and the task comes
// back; work and the promise end the loop (see e2e.Typed).
func TestTUIBlockedThenAccepted(t *testing.T) {
	startTUI(t, newEnv(t, "user"), e2e.Done(Shell)).BlockedThenAccepted(t,
		"ralph-loop: iteration 2/5: no promise yet, continuing. /cancel-ralph cannot end the loop while the agent works",
		"press Esc to stop the agent, then type /cancel-ralph",
		`(Qwen Code shows the task sent back to the agent as "Stop hook error": that is the loop going on, not an error)`)
}

// 2. /cancel-ralph typed while the agent works is held by Qwen Code until the turn ends,
// which the loop does not let happen, and no file or hook shows it to ralph-loop. The way
// that works, which the first block's notice names: Esc, then /cancel-ralph at the idle
// prompt, which ends the loop without calling the model. Qwen Code shows the answer as an
// error ("✕ UserPromptExpansion blocked: …"), as it shows any command a hook answers: the
// answer says it is done, and no error.
func TestTUIEscThenCancel(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.Busy(t, 8)
	u.Await(t, "press Esc to stop the agent, then type /cancel-ralph")
	u.esc(t)
	requests := len(u.Fake.MainRequests())
	u.Submit(t, "/cancel-ralph")
	l := e2e.WaitLoop(t, e, "cancelled", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "CANCELLED" {
		t.Errorf("loop %s at %d/8 (%s); want CANCELLED", l.Status, l.Iteration, l.EndReason)
	}
	screen := u.Await(t, fmt.Sprintf("ralph loop cancelled at iteration %d/8 (ralph-loop answered /cancel-ralph itself, and nothing went to the model: "+
		`Qwen Code labels such an answer "UserPromptExpansion blocked", which is no error)`, l.Iteration))
	e2e.NoScreenErrors(t, screen)
	if os.Getenv("RALPH_TUI_SCREEN") != "" {
		t.Logf("the screen:\n%s", tmux.Trim(screen))
	}
	time.Sleep(2 * time.Second)
	if n := len(u.Fake.MainRequests()) - requests; n != 0 {
		t.Errorf("%d agent requests after Esc and the cancel, want none", n)
	}
}

// 3. Esc, then a message that is not the cancel: the loop goes on with it, and the next
// stop says so.
func TestTUIEscThenMessage(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.Busy(t, 8)
	u.esc(t)
	u.Submit(t, "Why is it so slow?")
	screen := u.Await(t, "the loop went on with your message after the turn you interrupted (Esc, then /cancel-ralph, ends it)")
	e2e.NoScreenErrors(t, screen)
	if l := e2e.WaitLoop(t, e, "active", func(l Loop) bool { return true }); l.Status != "ACTIVE" {
		t.Errorf("loop %s (%s); want it going on", l.Status, l.EndReason)
	}
}

// 3b. Esc while a command of the loop runs: Qwen Code stops it (PostToolUseFailure with
// is_interrupt) and ends the turn with no stop. The stopped call did no work: the promise at
// the user's next message, with no other call made, is rejected for want of one (before,
// the stopped call counted, and that promise ended the loop).
func TestTUIEscNotCounted(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, fakechat.Script{Turns: []fakechat.Turn{
		Shell("Working.", "touch started.txt && sleep 30"),
		fakechat.Text("It is done, I think. <promise>DONE</promise>"),
		Shell("Doing it for real.", "echo hi > x.txt"),
		fakechat.Text("x.txt is written. <promise>DONE</promise>"),
	}})
	u.Submit(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	if !e2e.Until(2*time.Minute, func() bool { _, err := os.Stat(filepath.Join(e.Project, "started.txt")); return err == nil }) {
		t.Fatal("the command did not start")
	}
	u.esc(t)
	u.Submit(t, "Is it done?")
	l := e2e.WaitLoop(t, e, "ended", func(l Loop) bool { return l.Status != "ACTIVE" })
	e2e.ExpectLoop(t, l, "qwen", "PROMISE_ACCEPTED", 2, 1)
	if c := u.Fake.Continuations(); len(c) != 1 || !strings.Contains(c[0], "only 0 tool calls") {
		t.Errorf("continuations %q; want one, rejecting the promise that came with no tool call", c)
	}
	e2e.ReadFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

// 4. A whole long /ralph-loop command pasted: Qwen Code shows "[Pasted Content N chars]"
// and hands UserPromptSubmit only that; UserPromptExpansion carries the command's
// arguments in full, and the loop is armed from it with the task as pasted.
func TestTUIPastedCommand(t *testing.T) {
	u := startTUI(t, newEnv(t, "user"), fakechat.Script{Turns: []fakechat.Turn{
		fakechat.Text("I'm done."),
		Shell("Working.", "echo hi > x.txt"),
		fakechat.Text("Done. <promise>DONE</promise>"),
	}})
	u.Pasted(t, "[Pasted Content")
	if n := len(u.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// 5. Esc, then /exit, while the loop runs ends it with the session; "qwen --continue"
// resumes the session; its first stop says what became of the loop (Qwen Code shows neither
// SessionStart's notice nor the prompt hook's), with the command that picks it up again,
// which, typed, does.
func TestTUIExitThenContinue(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.ExitThenContinue(t, func() { u.esc(t) }, func(script fakechat.Script) *e2e.Typed { return startTUI(t, e, script, "--continue").Typed }, "", false)
}
