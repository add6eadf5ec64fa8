package codex

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// tui is Codex's interactive TUI in tmux (see e2e.StartTUI).
type tui struct {
	*tmux.Session
	t *testing.T
}

// screen is the pane's text, with 200 lines of history.
func (u *tui) screen() string {
	out, _ := u.Screen(context.Background(), 200)
	return out
}

// keys sends key names; typed, text typed literally (see tmux.Session).
func (u *tui) keys(keys ...string) { u.Keys(context.Background(), keys...) }
func (u *tui) typed(text string)   { u.Type(context.Background(), text) }

// startTUI runs codex (the TUI) in the project, with the Env's environment.
func startTUI(t *testing.T, env *Env) *tui {
	t.Helper()
	// Registered before the TUI's own cleanup, so run after it has ended the TUI.
	t.Cleanup(func() {
		// The TUI starts Codex's app-server daemon (two processes, in a session of their
		// own, run from $CODEX_HOME/packages/app-server-daemon, which outlive the TUI and
		// its tmux server): stopped as Codex stops it, and its updater loop, which "daemon
		// stop" leaves running, killed. Anything else still running from the test's
		// directory is a leak: killed and reported.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		stop := exec.CommandContext(ctx, env.Codex, "app-server", "daemon", "stop")
		stop.Env, stop.Dir = env.environ(), env.Project
		if out, err := stop.CombinedOutput(); err != nil {
			t.Logf("codex app-server daemon stop: %v: %s", err, out)
		}
		for _, p := range e2e.Reap(env.Root) {
			if strings.Contains(p, string(filepath.Separator)+"app-server-daemon"+string(filepath.Separator)) {
				t.Logf("killed Codex's app-server daemon process: %s", p)
			} else {
				t.Errorf("process left running by the test (now killed): %s", p)
			}
		}
	})
	u := &tui{Session: e2e.StartTUI(t, env, tmux.Options{Dir: env.Project, Env: append(env.environ(), "TERM=xterm-256color")}, env.Codex), t: t}
	// The footer under the composer shows once the TUI has started and takes input.
	if !e2e.Until(3*time.Minute, func() bool { return strings.Contains(u.screen(), "for shortcuts") }) {
		t.Fatal("the TUI did not show its composer")
	}
	time.Sleep(time.Second)
	return u
}

// typeLine types text into the composer and presses Enter until done(). Keys sent while the
// TUI is busy (starting, loading its skills) can be lost or show up late, and the skill menu
// that opens on $… may take an Enter: so the line is cleared (Ctrl-U) and typed again until
// it shows whole, then Enter is pressed, and all of it is tried again while done() is false.
func (u *tui) typeLine(text string, done func() bool) bool {
	for attempt := 0; attempt < 4; attempt++ {
		if !strings.Contains(u.screen(), "› "+text) {
			u.keys("C-u")
			time.Sleep(300 * time.Millisecond)
			u.typed(text)
			if !e2e.Until(8*time.Second, func() bool { return strings.Contains(u.screen(), "› "+text) }) {
				continue
			}
		}
		time.Sleep(time.Second)
		for i := 0; i < 2; i++ {
			u.keys("Enter")
			if e2e.Until(5*time.Second, done) {
				return true
			}
		}
	}
	u.t.Logf("gave up typing %q", text)
	return false
}

// arm types command, a $ralph-loop, until env has a loop; the test fails if it never has.
// loops reads env's loops.
func (u *tui) arm(env *Env, command string) (loops func() []Loop) {
	u.t.Helper()
	loops = func() []Loop { l, _ := env.Status(context.Background(), ""); return l }
	if !u.typeLine(command, func() bool { return len(loops()) > 0 }) {
		u.t.Fatal("no loop was armed from the TUI")
	}
	return loops
}

// TestTUI arms a loop in Codex's interactive TUI the way a user does, with $ralph-loop (the
// TUI refuses unknown slash commands), and the hooks trusted by install: the loop blocks a
// stop, accepts the promise after work, and the user sees ralph-loop's notices.
func TestTUI(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{Text("Starting the work."), Shell("echo 1 > x.txt"), Text("Done.\n<promise>DONE</promise>")},
		WhenDone: Text("Nothing more.")})
	u := startTUI(t, env)
	loops := u.arm(env, `$ralph-loop "Write x.txt" --max-iterations 4`)
	if !e2e.Until(60*time.Second, func() bool { l := loops(); return len(l) > 0 && l[0].Status != "ACTIVE" }) {
		t.Fatalf("the loop did not end: %+v", loops())
	}
	expectLoop(t, loops()[0], "PROMISE_ACCEPTED", 2, 1)
	screen := u.screen()
	for _, want := range []string{"ralph-loop: loop armed", "Blocked by hook", "ralph-loop: promise accepted at iteration 2/4"} {
		if !e2e.Until(10*time.Second, func() bool { screen = u.screen(); return strings.Contains(screen, want) }) {
			t.Errorf("the TUI does not show %q", want)
		}
	}
	// $cancel-ralph with no active loop answers in the TUI, and never reaches the model.
	n := len(env.Fake.Requests())
	if !u.typeLine("$cancel-ralph", func() bool { return strings.Contains(u.screen(), "no active loop") }) {
		t.Error("the TUI does not show the answer to $cancel-ralph")
	}
	if got := len(env.Fake.Requests()); got != n {
		t.Errorf("$cancel-ralph reached the model (%d requests, was %d)", got, n)
	}
}

// TestTUICancelWhileWorking: $cancel-ralph typed while a command of the loop runs. Codex
// holds it as a steer ("Messages to be submitted after next tool call") and hands it to the
// prompt hook once the command is done; the hook ends the loop and refuses the text, so the
// turn ends there with no model request after it, and the user sees why.
//
// What the user also sees is Codex's own display: its TUI drops a steer from that list only
// when the core records it as a user message, and the core never records one that a
// UserPromptSubmit hook refused (openai/codex: codex-rs/core/src/hook_runtime.rs,
// inspect_pending_input; the TUI's on_committed_user_message), so the refused $cancel-ralph
// stays listed for the rest of the session. No reply avoids it short of sending the text to
// the model (docs/hosts.md, Codex CLI). The test pins that, so that a Codex that stops doing
// it shows up here.
func TestTUICancelWhileWorking(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{Text("Starting the work."), Shell("sleep 8; echo 1 > x.txt"), Text("Next answer."),
		Text("Again."), Shell("sleep 8")},
		WhenDone: Text("Nothing more.")})
	u := startTUI(t, env)
	loops := u.arm(env, `$ralph-loop "Write x.txt" --max-iterations 10`)
	if !e2e.Until(60*time.Second, func() bool { return len(env.Fake.Requests()) >= 2 }) {
		t.Fatal("iteration 2 never reached the model")
	}
	const held = "Messages to be submitted after next tool call"
	if !u.typeLine("$cancel-ralph", func() bool { return strings.Contains(u.screen(), held) }) {
		t.Fatal("$cancel-ralph typed while the command runs was not held by Codex")
	}
	if !e2e.Until(60*time.Second, func() bool { l := loops(); return len(l) > 0 && l[0].Status != "ACTIVE" }) {
		t.Fatalf("the loop did not end: %+v", loops())
	}
	expectLoop(t, loops()[0], "CANCELLED", 2, 1)
	var screen string
	if !e2e.Until(30*time.Second, func() bool {
		screen = u.screen()
		return strings.Contains(screen, "ralph loop cancelled at iteration 2/10") && strings.Contains(screen, "Worked for")
	}) {
		t.Fatal("the TUI does not show the cancel's answer and the turn's end")
	}
	if n := len(env.Fake.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (none after the cancel)", n)
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "1\n" {
		t.Errorf("x.txt: %q %v (the command running at the cancel did not finish)", b, err)
	}
	// Codex's display: the refused steer stays listed, after the turn and after the next one.
	staleAfter := func(screen, marker string) bool {
		at := strings.LastIndex(screen, marker)
		return at >= 0 && strings.Contains(screen[at:], held) && strings.Contains(screen[strings.LastIndex(screen, held):], "$cancel-ralph")
	}
	if !staleAfter(screen, "ralph loop cancelled at iteration 2/10") {
		t.Errorf("Codex no longer keeps the refused $cancel-ralph listed after the turn: update docs/hosts.md (Codex CLI)")
	}
	if !u.typeLine("hello there", func() bool { return strings.Contains(u.screen(), "Next answer.") }) {
		t.Fatal("a message after the cancel got no answer")
	}
	if !e2e.Until(30*time.Second, func() bool { screen = u.screen(); return strings.Count(screen, "Worked for") >= 2 }) {
		t.Fatal("the turn after the cancel did not end")
	}
	if !staleAfter(screen, "Next answer.") {
		t.Errorf("Codex no longer keeps the refused $cancel-ralph listed after the next turn: update docs/hosts.md (Codex CLI)")
	}
	if n := len(env.Fake.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	if l := loops(); len(l) != 1 || l[0].Status != "CANCELLED" {
		t.Errorf("loops after the next message: %+v", l)
	}
	// Esc while a later loop works: Codex says "Model interrupted to submit steer
	// instructions" (it holds the stale steer), but sends nothing: the new loop is not
	// cancelled by the old $cancel-ralph, and $cancel-ralph typed at the idle prompt ends it.
	if !u.typeLine(`$ralph-loop "Again" --max-iterations 10`, func() bool { return len(loops()) == 2 }) {
		t.Fatal("no second loop was armed")
	}
	if !e2e.Until(60*time.Second, func() bool { return len(env.Fake.Requests()) >= 5 }) {
		t.Fatal("iteration 2 of the second loop never reached the model")
	}
	if !e2e.Until(30*time.Second, func() bool { return strings.Contains(u.screen(), "sleep 8") }) {
		t.Fatal("the second loop's command did not start")
	}
	u.keys("Escape")
	if !e2e.Until(30*time.Second, func() bool { return strings.Contains(u.screen(), "Model interrupted") }) {
		t.Error("Esc did not interrupt the turn")
	}
	time.Sleep(3 * time.Second) // nothing more may come: no request, no cancel
	if n := len(env.Fake.Requests()); n != 5 {
		t.Errorf("%d model requests after Esc, want 5", n)
	}
	// Esc fires Codex's Interrupt, which ends the second loop (resumable); the stale
	// $cancel-ralph is not what ended it.
	var reasons []string
	for _, l := range loops() {
		reasons = append(reasons, l.Status+": "+l.EndReason)
	}
	sort.Strings(reasons)
	if got := strings.Join(reasons, "; "); got != "CANCELLED: cancelled with /cancel-ralph; CANCELLED: the user interrupted the turn (Esc or Ctrl-C in Codex)" {
		t.Fatalf("loops after Esc: %s", got)
	}
	if !e2e.Until(30*time.Second, func() bool { return strings.Contains(u.screen(), "you interrupted the turn") }) {
		t.Error("the screen does not say that Esc ended the loop")
	}
	if n := len(env.Fake.Requests()); n != 5 {
		t.Errorf("%d model requests after Esc, want 5", n)
	}
}
