package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
	"github.com/ralph-loop/ralph-loop/inject"
)

// The scenarios below drive Claude Code's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host claude --scope project".

// startTUI installs ralph-loop in a new Env and starts the TUI on script. It skips when
// tmux is missing.
func startTUI(t *testing.T, script e2e.Script, args ...string) (*e2e.Env, *e2e.TUI) {
	t.Helper()
	suite.Need(t)
	if err := tmux.Available(); err != nil {
		t.Skip("TUI test: tmux is not installed")
	}
	env := newEnv(t)
	return env, openTUI(t, env, script, nil, args...)
}

// openTUI starts the TUI in env with more environment extra; on failure the test's log
// gets the last screen (see e2e.WatchTUI).
func openTUI(t *testing.T, env *e2e.Env, script e2e.Script, extra []string, args ...string) *e2e.TUI {
	t.Helper()
	tui, err := env.StartTUI(context.Background(), script, extra, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tui.Close)
	e2e.WatchTUI(t, tui.Session, env)
	return tui
}

func submit(t *testing.T, tui *e2e.TUI, text string) {
	t.Helper()
	if err := tui.Submit(context.Background(), text); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, tui *e2e.TUI, text string) string {
	t.Helper()
	screen, err := tui.WaitFor(context.Background(), text, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return screen
}

// waitLoop polls "ralph-loop status" until the session's loop satisfies ok.
func waitLoop(t *testing.T, env *e2e.Env, what string, ok func(e2e.Loop) bool) e2e.Loop {
	t.Helper()
	return e2e.PollLoop(t, what, 60*time.Second, func() (e2e.Loop, bool) {
		id, err := env.SessionID()
		if err != nil {
			return e2e.Loop{}, false
		}
		loops, err := env.Status(context.Background(), id)
		if err != nil || len(loops) == 0 {
			return e2e.Loop{}, false
		}
		return loops[0], true
	}, ok)
}

// busy starts the TUI on script (a model that never promises: working), types a loop of 10
// iterations, and waits until its first stop is blocked.
func busy(t *testing.T, script e2e.Script) (*e2e.Env, *e2e.TUI) {
	t.Helper()
	env, tui := startTUI(t, script)
	submit(t, tui, `/ralph-loop "Keep appending to log.txt" --max-iterations 10`)
	waitFor(t, tui, "Stop says: ralph-loop: iteration 2/10")
	return env, tui
}

// working is a model that never makes the promise: a tool call, then "not done", again and
// again, each answer slow enough for the user to type in between.
func working(n int) e2e.Script { return workingSlowly(n, time.Second) }

// workingSlowly is working with each tool call taking the model toolDelay.
func workingSlowly(n int, toolDelay time.Duration) e2e.Script {
	var turns []e2e.Turn
	for i := 0; i < n; i++ {
		tool := e2e.Bash("Working.", "echo step >> log.txt")
		tool.Delay = toolDelay
		text := e2e.Text("Not done yet.")
		text.Delay = time.Second
		turns = append(turns, tool, text)
	}
	return e2e.Script{Turns: turns, WhenDone: e2e.Text("Still not done."), MaxMain: 2*n + 10}
}

// talking is a model that never makes the promise and never calls a tool.
func talking(n int) e2e.Script {
	var turns []e2e.Turn
	for i := 0; i < n; i++ {
		text := e2e.Text("Thinking it over, not done yet.")
		text.Delay = 1500 * time.Millisecond
		turns = append(turns, text)
	}
	return e2e.Script{Turns: turns, WhenDone: e2e.Text("Still not done."), MaxMain: n + 10}
}

// noErrors fails the test if the screen shows a hook error or ralph-loop's.
func noErrors(t *testing.T, screen string) {
	t.Helper()
	for _, bad := range []string{"hook error", "Hook error", "ralph-loop: error", "not found", "no active ralph loop"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the screen shows %q:\n%s", bad, tmux.Trim(screen))
		}
	}
}

// 1. /cancel-ralph typed while the loop runs: the TUI queues it until the turn ends, and a
// blocked stop never ends the turn, so the hook reads the queue in the transcript and lets
// the next stop through; the TUI then sends the queued command, and the prompt hook ends
// the loop as the user's cancel. A line in the transcript alone never ends a loop (anything
// can write one): the cancel is the host's prompt event.
func TestTUICancelWhileRunning(t *testing.T) {
	env, tui := busy(t, working(20))
	submit(t, tui, "/cancel-ralph")
	waitFor(t, tui, "Queued")
	noErrors(t, waitFor(t, tui, "Stop says: ralph-loop: loop paused at iteration"))
	requests := len(tui.Fake.MainRequests())
	screen := waitFor(t, tui, "Original prompt: /cancel-ralph")
	l := waitLoop(t, env, "cancelled", func(l e2e.Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "CANCELLED" || l.EndReason != "cancelled with /cancel-ralph" || l.Iteration >= 5 {
		t.Errorf("loop %s at %d/%d (%s); want CANCELLED at the stop after the cancel was typed", l.Status, l.Iteration, l.MaxIterations, l.EndReason)
	}
	contains(t, "the screen", tmux.Flat(screen), fmt.Sprintf("ralph loop cancelled at iteration %d/10", l.Iteration))
	noErrors(t, screen)
	// The model is not called for the cancel.
	time.Sleep(2 * time.Second)
	if n := len(tui.Fake.MainRequests()); n != requests {
		t.Errorf("%d agent requests after the cancel, want none", n-requests)
	}
}

// 2. A message typed while the loop runs. Claude Code hands it to the agent within the turn
// at the next tool result when the agent is using tools, and otherwise queues it until the
// turn ends, which a blocked stop never does: then the loop lets one stop through so it is
// answered as its own turn, and resumes at the stop after, its iteration not used up.
func TestTUIMessageWhileRunning(t *testing.T) {
	const msg = "What does parse() return?"
	sees := func(f *e2e.Fake) bool {
		for _, r := range f.MainRequests() {
			for _, m := range r.Messages() {
				if m.Role == "user" && strings.Contains(m.Text, msg) {
					return true
				}
			}
		}
		return false
	}
	t.Run("between tool calls", func(t *testing.T) {
		// The model takes long over each tool call, so the message is typed while one is
		// under way (then Claude Code hands it over with the call's result).
		env, tui := busy(t, workingSlowly(20, 4*time.Second))
		submit(t, tui, msg)
		l := waitLoop(t, env, "past the message", func(l e2e.Loop) bool { return l.Iteration >= 4 })
		if !sees(tui.Fake) {
			t.Error("the model never saw the message")
		}
		var actions []string
		for _, e := range l.Events {
			actions = append(actions, e.Action)
		}
		got := strings.Join(actions, " ")
		if !strings.Contains(got, "message") || strings.Contains(got, "turn_ended") || strings.Contains(got, "yielded") {
			t.Errorf("events %s; want the message logged, within the turn (no turn ended, no stop let through)", got)
		}
	})
	t.Run("text only", func(t *testing.T) {
		env, tui := startTUI(t, talking(20))
		submit(t, tui, `/ralph-loop "Think it through" --max-iterations 10 --min-tool-calls 0 --max-stalls 0`)
		waitFor(t, tui, "Stop says: ralph-loop: iteration 2/10")
		submit(t, tui, msg)
		waitFor(t, tui, "to answer your message; it resumes after that (/cancel-ralph ends it)")
		screen := waitFor(t, tui, "the loop resumes after your message")
		noErrors(t, screen)
		if !sees(tui.Fake) {
			t.Error("the model never saw the message")
		}
		l := waitLoop(t, env, "resumed", func(l e2e.Loop) bool {
			return len(l.Events) > 0 && l.Events[len(l.Events)-1].Action == "blocked" && strings.Contains(fmt.Sprint(l.Events), "yielded")
		})
		// The stop let through did not use up an iteration: the block after it continues
		// with the next one.
		for i, e := range l.Events {
			if e.Action != "yielded" {
				continue
			}
			if i+1 >= len(l.Events) || l.Events[i+1].Action != "blocked" || l.Events[i+1].Iteration != e.Iteration ||
				!strings.Contains(l.Events[i+1].Reason, fmt.Sprintf("continuing with iteration %d/10", e.Iteration+1)) {
				t.Errorf("after the yield at iteration %d: %+v", e.Iteration, l.Events[i+1:])
			}
		}
	})
}

// 2b. Esc while a command of the loop runs: Claude Code stops it and ends the turn with no
// stop; the loop waits for the next prompt. The stopped call did no work: the promise at the
// user's next message, with no other call made, is rejected for want of one. Claude Code
// 2.1.332 fires no tool event for the stopped call ("No result recorded"), only the
// transcript shows it, so it never counted (the stop waits for its PostToolUse, which never
// comes); a PostToolUseFailure with is_interrupt would not count either.
func TestTUIEscNotCounted(t *testing.T) {
	env, tui := startTUI(t, e2e.Script{Turns: []e2e.Turn{
		e2e.Bash("Working.", "touch started.txt && sleep 30"),
		e2e.Text("It is done, I think. <promise>DONE</promise>"),
		e2e.Bash("Doing it for real.", "echo hi > x.txt"),
		e2e.Text("x.txt is written. <promise>DONE</promise>"),
	}})
	submit(t, tui, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	if !e2e.Until(2*time.Minute, func() bool { _, err := os.Stat(filepath.Join(env.Project, "started.txt")); return err == nil }) {
		t.Fatal("the command did not start")
	}
	if err := tui.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tui, "Interrupted")
	submit(t, tui, "Is it done?")
	l := waitLoop(t, env, "ended", func(l e2e.Loop) bool { return l.Status != "ACTIVE" })
	e2e.ExpectLoop(t, l, "claude", "PROMISE_ACCEPTED", 2, 1)
	rejected := false
	for _, r := range tui.Fake.MainRequests() {
		for _, m := range r.Messages() {
			rejected = rejected || m.Role == "user" && strings.Contains(m.Text, "only 0 tool calls have been made")
		}
	}
	if !rejected {
		t.Error("the model was never told the promise lacked a tool call")
	}
	e2e.ReadFile(t, filepath.Join(env.Project, "x.txt"), "hi\n")
}

// 3 and 5. A whole long /ralph-loop command pasted: the TUI shows "[Pasted text #1 …]" and
// hands the hook the command wrapped in <pasted_content>; the loop is armed with the task as
// pasted. Each iteration the agent gets the whole task back, and the TUI shows the user the
// block reason in full (it has no way to show less of it) under a one-line notice.
func TestTUIPastedCommand(t *testing.T) {
	task := strings.Repeat("Make every parser test pass and document each fix. ", 20)[:1009]
	env, tui := startTUI(t, working(5))
	ctx := context.Background()
	if err := tui.Paste(ctx, `/ralph-loop "`+task+`" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tui, "[Pasted text #1")
	time.Sleep(300 * time.Millisecond)
	if err := tui.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tui, "UserPromptSubmit says: ralph-loop: loop armed: up to 5 iterations")
	l := waitLoop(t, env, "armed", func(l e2e.Loop) bool { return l.Status == "ACTIVE" })
	if l.Task != task || l.MaxIterations != 5 {
		t.Errorf("armed with %d iterations and a task of %d bytes ending %q; want 5 and the 1,009 bytes pasted",
			l.MaxIterations, len(l.Task), l.Task[max(len(l.Task)-40, 0):])
	}
	screen := waitFor(t, tui, "Stop says: ralph-loop: iteration 2/5: no promise yet, continuing")
	noErrors(t, screen)
	if strings.Contains(screen, "pasted_content") {
		t.Errorf("the paste's wrapper reached the screen:\n%s", tmux.Trim(screen))
	}
	// What the user sees of the block: the notice, one line, then the reason in full.
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "Stop says:") && len(strings.TrimSpace(line)) > 100 {
			t.Errorf("the notice is not one short line: %q", line)
		}
	}
	contains(t, "the screen", tmux.Flat(screen), "Stop hook reported a problem", "ralph-loop: iteration 2/5. Your stop was blocked")
	// The agent got the whole task back.
	if err := tui.Requests(ctx, 3, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var got string
	for _, m := range tui.Fake.MainRequests()[2].Messages() {
		got += m.Text + "\n"
	}
	contains(t, "the continuation", got, "Stop hook feedback:\nralph-loop: iteration 2/5.", "TASK:\n"+task)
	if os.Getenv("RALPH_TUI_SCREEN") != "" {
		t.Logf("the screen:\n%s", tmux.Trim(screen))
	}
}

// 4. /exit while the loop runs ends it with the session; "claude --continue" resumes the
// session, and the user's first prompt tells them so, with the one command that picks the
// loop up again, which does.
func TestTUIExitThenContinue(t *testing.T) {
	env, tui := busy(t, working(20))
	submit(t, tui, "/exit")
	waitFor(t, tui, "[exited ")
	l := waitLoop(t, env, "ended", func(l e2e.Loop) bool { return l.Status != "ACTIVE" })
	if l.Status != "SESSION_ENDED" {
		t.Fatalf("loop %s (%s), want SESSION_ENDED", l.Status, l.EndReason)
	}
	tui.Close()
	again := openTUI(t, env, working(20), nil, "--continue")
	submit(t, again, "Where were we?")
	want := fmt.Sprintf("UserPromptSubmit says: ralph-loop: this session's loop ended with the session at iteration %d/10", l.Iteration)
	screen := waitFor(t, again, want)
	left := 10 - l.Iteration + 1
	contains(t, "the screen", tmux.Flat(screen), fmt.Sprintf("/ralph-loop --resume picks it up with the %d iterations it had left", left))
	noErrors(t, screen)
	submit(t, again, "/ralph-loop --resume")
	waitFor(t, again, fmt.Sprintf("UserPromptSubmit says: ralph-loop: loop resumed at iteration %d/10", l.Iteration))
	r := waitLoop(t, env, "resumed", func(r e2e.Loop) bool { return r.Status == "ACTIVE" })
	if r.Iteration != l.Iteration || r.Task != l.Task {
		t.Errorf("resumed at %d with task %q; want %d, %q", r.Iteration, r.Task, l.Iteration, l.Task)
	}
}

// A project-scope install committed to a repository and used on a teammate's machine, where
// the installer's binary path does not exist: with ralph-loop elsewhere on PATH, loops work;
// without it, the TUI says once at startup how to get it, a /ralph-loop prompt says it
// again and runs unlooped, and no hook error is ever shown.
func TestTUITeammateInstall(t *testing.T) {
	suite.Need(t)
	if err := tmux.Available(); err != nil {
		t.Skip("TUI test: tmux is not installed")
	}
	t.Run("ralph-loop elsewhere on PATH", func(t *testing.T) {
		env, root, _ := teammate(t)
		elsewhere := copyBinary(t, filepath.Join(root, "teammate", "bin"))
		env.RalphLoop = elsewhere
		tui := openTUI(t, env, working(5), []string{"PATH=" + filepath.Dir(elsewhere) + string(os.PathListSeparator) + os.Getenv("PATH")})
		submit(t, tui, `/ralph-loop "Keep appending to log.txt" --max-iterations 3`)
		waitFor(t, tui, "UserPromptSubmit says: ralph-loop: loop armed: up to 3 iterations")
		waitFor(t, tui, "Stop says: ralph-loop: iteration 2/3: no promise yet, continuing")
		screen := waitFor(t, tui, "Stop says: ralph-loop: iteration limit reached (3/3) without the promise: loop over")
		noErrors(t, screen)
	})
	t.Run("not installed", func(t *testing.T) {
		env, _, _ := teammate(t)
		tui := openTUI(t, env, e2e.Script{Turns: []e2e.Turn{e2e.Bash("Working.", "echo hi > x.txt"), e2e.Text("Done, x.txt is written.")}},
			[]string{"PATH=" + os.Getenv("PATH")})
		missing := inject.NotInstalledHere("Claude Code")
		waitFor(t, tui, "SessionStart:startup says: "+missing)
		submit(t, tui, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
		waitFor(t, tui, "UserPromptSubmit says: "+missing)
		waitFor(t, tui, "Done, x.txt is written.")
		time.Sleep(2 * time.Second)
		screen, _ := tui.Screen(context.Background(), 400)
		noErrors(t, screen)
		if tmux.Contains(screen, "Stop says") || tmux.Contains(screen, "Stop hook") {
			t.Errorf("a stop hook spoke:\n%s", tmux.Trim(screen))
		}
		if n := len(tui.Fake.MainRequests()); n != 2 {
			t.Errorf("%d agent requests, want 2 (the turn ran once, unlooped)", n)
		}
	})
}
