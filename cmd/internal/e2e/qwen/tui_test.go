package qwen

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// The scenarios below drive Qwen Code's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host qwen" (user scope).

// tui is Qwen Code's TUI in tmux against a fake model.
type tui struct {
	*e2e.Typist
	fake *Fake
	env  *Env
}

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

// startTUI starts "qwen --yolo ARGS" in tmux in e's project, against a fake serving
// script, and waits until it takes input. On failure the test's log gets the last screen and
// ralph-loop's log.
func startTUI(t *testing.T, e *Env, script Script, args ...string) *tui {
	t.Helper()
	if err := tmux.Available(); err != nil {
		t.Skip("TUI test: tmux is not installed")
	}
	fake, err := StartFake(script)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{e.Qwen, "--yolo"}, args...)
	s, err := tmux.Start(context.Background(), tmux.Options{Dir: e.Project, Env: e.environ(fake.URL, []string{"TERM=xterm-256color"}),
		Width: 160, Height: 60, Scratch: t.TempDir()}, argv...)
	if err != nil {
		fake.Close()
		t.Fatal(err)
	}
	u := &tui{Typist: &e2e.Typist{Session: s, Box: inputBox}, fake: fake, env: e}
	t.Cleanup(func() {
		if t.Failed() {
			screen, _ := u.Screen(context.Background(), 400)
			t.Logf("the screen at the end:\n%s", tmux.Trim(screen))
			if out, err := e.RalphLoopCmd(context.Background(), "log"); err == nil {
				t.Logf("ralph-loop log:\n%s", out)
			}
		}
		u.Kill()
		u.fake.Close()
	})
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

// working is a model that never makes the promise: a slow shell command, then "not done",
// again and again, so that the user can type while a command runs. The command does not
// start with "sleep": Qwen Code refuses one that does ("sleep 2 followed by: …") at once,
// and the command would not run at all.
func working(n int) Script {
	var turns []Turn
	for i := 0; i < n; i++ {
		turns = append(turns, Shell("Working.", "echo step >> log.txt; sleep 2"), Text("Not done yet."))
	}
	return Script{Turns: turns, WhenDone: Text("Still not done."), MaxMain: 2*n + 10}
}

// 1. /ralph-loop typed in the TUI arms the loop; "I'm done" is blocked and the task comes
// back; work and the promise end the loop.
func TestTUIBlockedThenAccepted(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}})
	u.Submit(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	l := e2e.WaitLoop(t, e, "accepted", func(l Loop) bool { return l.Status != "ACTIVE" })
	e2e.ExpectLoop(t, l, "qwen", "PROMISE_ACCEPTED", 2, 1)
	screen, _ := u.Screen(context.Background(), 400)
	e2e.NoScreenErrors(t, screen)
	contains(t, "the screen", tmux.Flat(screen), "ralph-loop: iteration 2/5: no promise yet, continuing. /cancel-ralph cannot end the loop while the agent works",
		"press Esc to stop the agent, then type /cancel-ralph",
		`(Qwen Code shows the task sent back to the agent as "Stop hook error": that is the loop going on, not an error)`)
}

// 2. /cancel-ralph typed while the agent works is held by Qwen Code until the turn ends,
// which the loop does not let happen, and no file or hook shows it to ralph-loop. The way
// that works, which the first block's notice names: Esc, then /cancel-ralph at the idle
// prompt, which ends the loop without calling the model.
func TestTUIEscThenCancel(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, working(20))
	u.Submit(t, `/ralph-loop "Keep appending to log.txt" --max-iterations 8`)
	u.Await(t, "press Esc to stop the agent, then type /cancel-ralph")
	u.Await(t, "echo step >> log.txt; sleep 2")
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	u.waitIdle(t)
	requests := len(u.fake.MainRequests())
	u.Submit(t, "/cancel-ralph")
	l := e2e.WaitLoop(t, e, "cancelled", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "CANCELLED" {
		t.Errorf("loop %s at %d/8 (%s); want CANCELLED", l.Status, l.Iteration, l.EndReason)
	}
	screen := u.Await(t, fmt.Sprintf("ralph loop cancelled at iteration %d/8", l.Iteration))
	e2e.NoScreenErrors(t, screen)
	if os.Getenv("RALPH_TUI_SCREEN") != "" {
		t.Logf("the screen:\n%s", tmux.Trim(screen))
	}
	time.Sleep(2 * time.Second)
	if n := len(u.fake.MainRequests()) - requests; n != 0 {
		t.Errorf("%d agent requests after Esc and the cancel, want none", n)
	}
}

// 3. Esc, then a message that is not the cancel: the loop goes on with it, and the next
// stop says so.
func TestTUIEscThenMessage(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, working(20))
	u.Submit(t, `/ralph-loop "Keep appending to log.txt" --max-iterations 8`)
	u.Await(t, "ralph-loop: iteration 2/8")
	u.Await(t, "echo step >> log.txt; sleep 2")
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	u.waitIdle(t)
	u.Submit(t, "Why is it so slow?")
	screen := u.Await(t, "the loop went on with your message after the turn you interrupted (Esc, then /cancel-ralph, ends it)")
	e2e.NoScreenErrors(t, screen)
	if l := e2e.WaitLoop(t, e, "active", func(l Loop) bool { return true }); l.Status != "ACTIVE" {
		t.Errorf("loop %s (%s); want it going on", l.Status, l.EndReason)
	}
}

// 4. A whole long /ralph-loop command pasted: Qwen Code shows "[Pasted Content N chars]"
// and hands UserPromptSubmit only that; UserPromptExpansion carries the command's
// arguments in full, and the loop is armed from it with the task as pasted.
func TestTUIPastedCommand(t *testing.T) {
	task := strings.Repeat("Make every parser test pass and document each fix. ", 20)[:1009]
	e := newEnv(t, "user")
	u := startTUI(t, e, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Working.", "echo hi > x.txt"),
		Text("Done. <promise>DONE</promise>"),
	}})
	if err := u.Paste(context.Background(), `/ralph-loop "`+task+`" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	u.Enter(t, "[Pasted Content")
	l := e2e.WaitLoop(t, e, "accepted", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Task != task || l.MaxIterations != 5 || l.Status != "PROMISE_ACCEPTED" {
		t.Errorf("loop %s with %d iterations and a task of %d bytes ending %q; want PROMISE_ACCEPTED, 5 and the 1,009 bytes pasted",
			l.Status, l.MaxIterations, len(l.Task), l.Task[max(len(l.Task)-40, 0):])
	}
	screen, _ := u.Screen(context.Background(), 400)
	e2e.NoScreenErrors(t, screen)
	if n := len(continuations(u.fake)); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// 5. Esc, then /exit, while the loop runs ends it with the session; "qwen --continue"
// resumes the session; its first stop says what became of the loop (Qwen Code shows neither
// SessionStart's notice nor the prompt hook's), with the command that picks it up again,
// which, typed, does.
func TestTUIExitThenContinue(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, working(20))
	u.Submit(t, `/ralph-loop "Keep appending to log.txt" --max-iterations 8`)
	u.Await(t, "ralph-loop: iteration 2/8")
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	u.waitIdle(t)
	u.Submit(t, "/exit")
	u.Await(t, "[exited ")
	l := e2e.WaitLoop(t, e, "ended", func(l Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "SESSION_ENDED" {
		t.Fatalf("loop %s (%s), want SESSION_ENDED", l.Status, l.EndReason)
	}
	u.Kill()
	again := startTUI(t, e, Script{Turns: []Turn{Text("We were appending to log.txt."), Shell("Going on.", "echo step >> log.txt"),
		Text("Done. <promise>DONE</promise>")}}, "--continue")
	again.Submit(t, "Where were we?")
	screen := again.Await(t, fmt.Sprintf("this session's loop ended with the session at iteration %d/8", l.Iteration))
	contains(t, "the screen", tmux.Flat(screen), "/ralph-loop --resume")
	e2e.NoScreenErrors(t, screen)
	again.Submit(t, "/ralph-loop --resume")
	r := e2e.WaitLoop(t, e, "accepted", func(r Loop) bool { return r.Status != "ACTIVE" && r.Status != "SESSION_ENDED" })
	if r.Status != "PROMISE_ACCEPTED" || r.Task != l.Task {
		t.Errorf("resumed loop %s with task %q; want PROMISE_ACCEPTED, %q", r.Status, r.Task, l.Task)
	}
}
