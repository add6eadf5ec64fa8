package copilot

import (
	"context"
	"encoding/json"
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

// The scenarios below drive Copilot CLI's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host copilot" (user scope).

// tui is Copilot CLI's TUI in tmux against a fake model.
type tui struct{ *e2e.Typed }

// ready is what the TUI's status line shows while it waits for input.
const ready = "? help"

// startTUI starts "copilot --allow-all-tools ARGS" in tmux in e's project, against a fake
// serving script, as a returning user who trusts the folder, and waits until it takes
// input (see e2e.StartTUI).
func startTUI(t *testing.T, e *Env, script fakechat.Script, args ...string) *tui {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"firstLaunchAt": "2026-01-01T00:00:00.000Z", "appTipShown": true, "trustedFolders": []string{e.Project}})
	if err := os.WriteFile(filepath.Join(e.UserDir(), "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := e2e.ServeChat(t, script)
	u := &tui{typing.Start(t, e, fake, tmux.Options{Dir: e.Project, Env: e.environ(fake.URL, []string{"TERM=xterm-256color"}), Width: 160, Height: 60},
		append([]string{e.Copilot, "--allow-all-tools", "--no-auto-update"}, args...)...)}
	u.Await(t, ready)
	return u
}

// inputBox is the prompt box of a screen: the line after the last rule but one, which
// starts with the prompt sign.
func inputBox(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "❯") && i+1 < len(lines) {
			var box []string
			for _, l := range lines[i:] {
				if strings.HasPrefix(l, "──") {
					return strings.Join(box, "\n")
				}
				box = append(box, l)
			}
		}
	}
	return ""
}

// 1. /ralph-loop typed in the TUI (a skill of Copilot CLI's, which install writes) arms the
// loop; "I'm done" is blocked and the task comes back; work and the promise end the loop
// (see e2e.Typed).
func TestTUIBlockedThenAccepted(t *testing.T) {
	startTUI(t, newEnv(t, "user"), e2e.Done(Shell)).BlockedThenAccepted(t,
		"ralph-loop: iteration 2/5. Your stop was blocked", "ralph-loop: promise accepted at iteration 2/5 after 1 tool call")
}

// 2. A whole long /ralph-loop command pasted: the loop is armed with the task as pasted.
func TestTUIPastedCommand(t *testing.T) {
	u := startTUI(t, newEnv(t, "user"), fakechat.Script{Turns: []fakechat.Turn{
		Shell("Working.", "echo hi > x.txt"),
		fakechat.Text("Done. <promise>DONE</promise>"),
	}})
	u.Pasted(t, "")
	u.Await(t, "ralph-loop: promise accepted at iteration 1/5")
}

// 3. /cancel-ralph typed while a command runs: Copilot CLI hands it to the agent within the
// turn, never to the prompt hook. The stop hook reads it in the session's events (a line
// there alone ends nothing: anything can write one), lets the stop through and tells the
// user to type /cancel-ralph again; no continuation follows (Copilot CLI may still send the
// backgrounded command's end as a turn of its own), and the cancel typed at the idle prompt
// ends the loop without calling the model.
func TestTUICancelWhileWorking(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.Busy(t, 8)
	u.Submit(t, "/cancel-ralph")
	screen := u.Await(t, "type /cancel-ralph now to end the loop")
	e2e.NoScreenErrors(t, screen)
	blocks := len(continuations(u.Fake))
	l := e2e.WaitLoop(t, e, "paused", func(l Loop) bool {
		return l.Status == "ACTIVE" && len(l.Events) > 0 && l.Events[len(l.Events)-1].Action == "yielded"
	})
	u.settle(t)
	requests := len(u.Fake.MainRequests())
	u.Submit(t, "/cancel-ralph")
	screen = u.Await(t, fmt.Sprintf("ralph loop cancelled at iteration %d/8", l.Iteration))
	e2e.NoScreenErrors(t, screen)
	c := e2e.WaitLoop(t, e, "cancelled", func(l Loop) bool { return l.Status != "ACTIVE" })
	if c.Status != "CANCELLED" || c.Iteration != l.Iteration {
		t.Errorf("loop %s at %d/8 (%s); want CANCELLED at %d, where it paused", c.Status, c.Iteration, c.EndReason, l.Iteration)
	}
	time.Sleep(2 * time.Second)
	if n := len(continuations(u.Fake)) - blocks; n != 0 {
		t.Errorf("%d continuations after the stop let through for the cancel, want none", n)
	}
	if n := len(u.Fake.MainRequests()) - requests; n != 0 {
		t.Errorf("%d agent requests for the cancel typed at the prompt, want none", n)
	}
}

// Esc while a command of the loop runs: Copilot CLI stops it and ends the turn. The stopped
// call did no work: the promise at the user's next message, with no other call made, is
// rejected for want of one.
func TestTUIEscNotCounted(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, fakechat.Script{Turns: []fakechat.Turn{
		Shell("Working.", "touch started.txt && sleep 300"),
		fakechat.Text("It is done, I think. <promise>DONE</promise>"),
		Shell("Doing it for real.", "echo hi > x.txt"),
		fakechat.Text("x.txt is written. <promise>DONE</promise>"),
	}})
	u.Submit(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	if !e2e.Until(2*time.Minute, func() bool { _, err := os.Stat(filepath.Join(e.Project, "started.txt")); return err == nil }) {
		t.Fatal("the command did not start")
	}
	u.interrupt(t)
	u.Submit(t, "Is it done?")
	l := e2e.WaitLoop(t, e, "ended", func(l Loop) bool { return l.Status != "ACTIVE" })
	e2e.ExpectLoop(t, l, "copilot", "PROMISE_ACCEPTED", 2, 1)
	if c := continuations(u.Fake); len(c) != 1 || !strings.Contains(c[0], "only 0 tool calls") {
		t.Errorf("continuations %q; want one, rejecting the promise that came with no tool call", c)
	}
	e2e.ReadFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

// interrupt presses Esc twice, apart (as a user does: keys sent together read as one
// escape sequence), until the TUI takes input.
func (u *tui) interrupt(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		for range 2 {
			if err := u.Keys(ctx, "Escape"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
		if _, err := u.WaitFor(ctx, ready, 5*time.Second); err == nil {
			return
		}
	}
	u.Await(t, ready)
}

// settle waits until the TUI is idle: its status line shows it takes input and the model
// has had no request for 2 s.
func (u *tui) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	n, since := -1, time.Now()
	for time.Now().Before(deadline) {
		screen, err := u.Screen(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if m := len(u.Fake.MainRequests()); m != n || !tmux.Contains(screen, ready) {
			n, since = m, time.Now()
		} else if time.Since(since) > 2*time.Second {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the TUI did not settle within 60 s")
}

// 4. A message typed while a command runs reaches the agent within the turn, and the loop
// goes on.
func TestTUIMessageWhileWorking(t *testing.T) {
	const msg = "What does parse() return?"
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.Busy(t, 6)
	u.Submit(t, msg)
	l := e2e.WaitLoop(t, e, "past the message", func(l Loop) bool { return l.Iteration >= 4 || l.Status != "ACTIVE" })
	if l.Status != "ACTIVE" && l.Iteration < 4 {
		t.Errorf("loop %s at %d (%s); want it going on past the message", l.Status, l.Iteration, l.EndReason)
	}
	seen := false
	for _, r := range u.Fake.MainRequests() {
		for _, m := range r.Messages {
			seen = seen || m.Role == "user" && strings.Contains(m.Text, msg)
		}
	}
	if !seen {
		t.Error("the model never saw the message")
	}
}

// 5. Esc Esc, then /exit, while the loop runs ends it with the session; "copilot
// --continue" resumes the session, the user's first prompt tells them so with the command
// that picks the loop up again, and that command, typed, does (see e2e.Typed). /exit typed
// while the agent works waits for the turn, which the loop keeps going: the user interrupts
// it first (Esc twice), then exits.
func TestTUIExitThenContinue(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, typing.Working(20))
	u.ExitThenContinue(t, func() { u.interrupt(t) }, func(script fakechat.Script) *e2e.Typed {
		return startTUI(t, e, script, "--continue").Typed
	}, ready, true)
}
