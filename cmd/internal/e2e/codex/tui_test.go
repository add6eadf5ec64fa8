package codex

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
	"github.com/ralph-loop/ralph-loop/hook/args"
)

// tui is Codex's interactive TUI in a detached tmux session on a private server.
type tui struct {
	t      *testing.T
	socket string
}

func (u *tui) tmux(a ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", u.socket}, a...)...).CombinedOutput()
	return string(out), err
}

// screen is the pane's text.
func (u *tui) screen() string {
	out, _ := u.tmux("capture-pane", "-p", "-t", "codex", "-S", "-200")
	return out
}

// waitFor polls until cond holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// startTUI runs codex (the TUI) in the project, with the Env's environment.
func startTUI(t *testing.T, env *Env) *tui {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("the TUI test needs tmux")
	}
	var b strings.Builder
	b.WriteString("cd " + args.Quote(env.Project) + " || exit 1\n")
	for _, kv := range env.environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "" || strings.ContainsAny(k, "() ") {
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, args.Quote(v))
	}
	b.WriteString("exec " + args.Quote(env.Codex) + "\n")
	script := filepath.Join(env.Tmp, "tui.sh")
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	u := &tui{t: t, socket: fmt.Sprintf("ralph-loop-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	if out, err := u.tmux("new-session", "-d", "-s", "codex", "-x", "200", "-y", "50", "sh "+args.Quote(script)); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", u.screen())
		}
		u.tmux("kill-server")
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
	// The footer under the composer shows once the TUI has started and takes input.
	if !waitFor(3*time.Minute, func() bool { return strings.Contains(u.screen(), "for shortcuts") }) {
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
			u.tmux("send-keys", "-t", "codex", "C-u")
			time.Sleep(300 * time.Millisecond)
			u.tmux("send-keys", "-t", "codex", "-l", text)
			if !waitFor(8*time.Second, func() bool { return strings.Contains(u.screen(), "› "+text) }) {
				continue
			}
		}
		time.Sleep(time.Second)
		for i := 0; i < 2; i++ {
			u.tmux("send-keys", "-t", "codex", "Enter")
			if waitFor(5*time.Second, done) {
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
	if !waitFor(60*time.Second, func() bool { l := loops(); return len(l) > 0 && l[0].Status != "ACTIVE" }) {
		t.Fatalf("the loop did not end: %+v", loops())
	}
	expectLoop(t, loops()[0], "PROMISE_ACCEPTED", 2, 1)
	screen := u.screen()
	for _, want := range []string{"ralph-loop: loop armed", "Blocked by hook", "ralph-loop: promise accepted at iteration 2/4"} {
		if !waitFor(10*time.Second, func() bool { screen = u.screen(); return strings.Contains(screen, want) }) {
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
	if !waitFor(60*time.Second, func() bool { return len(env.Fake.Requests()) >= 2 }) {
		t.Fatal("iteration 2 never reached the model")
	}
	const held = "Messages to be submitted after next tool call"
	if !u.typeLine("$cancel-ralph", func() bool { return strings.Contains(u.screen(), held) }) {
		t.Fatal("$cancel-ralph typed while the command runs was not held by Codex")
	}
	if !waitFor(60*time.Second, func() bool { l := loops(); return len(l) > 0 && l[0].Status != "ACTIVE" }) {
		t.Fatalf("the loop did not end: %+v", loops())
	}
	expectLoop(t, loops()[0], "CANCELLED", 2, 1)
	var screen string
	if !waitFor(30*time.Second, func() bool {
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
	if !waitFor(30*time.Second, func() bool { screen = u.screen(); return strings.Count(screen, "Worked for") >= 2 }) {
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
	if !waitFor(60*time.Second, func() bool { return len(env.Fake.Requests()) >= 5 }) {
		t.Fatal("iteration 2 of the second loop never reached the model")
	}
	if !waitFor(30*time.Second, func() bool { return strings.Contains(u.screen(), "sleep 8") }) {
		t.Fatal("the second loop's command did not start")
	}
	u.tmux("send-keys", "-t", "codex", "Escape")
	if !waitFor(30*time.Second, func() bool { return strings.Contains(u.screen(), "Model interrupted") }) {
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
	if !waitFor(30*time.Second, func() bool { return strings.Contains(u.screen(), "you interrupted the turn") }) {
		t.Error("the screen does not say that Esc ended the loop")
	}
	if n := len(env.Fake.Requests()); n != 5 {
		t.Errorf("%d model requests after Esc, want 5", n)
	}
}
