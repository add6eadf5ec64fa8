package gemini

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

// The scenarios below drive Gemini CLI's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host gemini --scope user".

// tmuxTUI is Gemini CLI's TUI in tmux against a fake model.
type tmuxTUI struct {
	*tmux.Session
	fake *Fake
}

// startTmuxTUI starts "gemini --yolo ARGS" in tmux in e's project, against a fake serving
// script, and waits until it takes input (see e2e.StartTUI).
func startTmuxTUI(t *testing.T, e *Env, script Script, args ...string) *tmuxTUI {
	t.Helper()
	fake, err := StartFake(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	s := e2e.StartTUI(t, e, tmux.Options{Dir: e.Project, Env: append(e.environ(fake.URL), "TERM=xterm-256color"), Width: 160, Height: 60},
		append([]string{e.Gemini, "--yolo", "-m", Model}, args...)...)
	u := &tmuxTUI{Session: s, fake: fake}
	u.waitFor(t, "Type your message")
	return u
}

func (u *tmuxTUI) waitFor(t *testing.T, text string) string {
	t.Helper()
	screen, err := u.WaitFor(context.Background(), text, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return screen
}

// submit types text, then Enter once the input box shows it (an Enter sent with the text is
// taken as part of a paste). Under load Gemini CLI can drop what is typed (a resumed
// session's input box is set up again once its history is shown) and the first Enter: the
// text is typed again while the box stays empty, and Enter pressed again while the text
// stays in it.
func (u *tmuxTUI) submit(t *testing.T, text string) {
	t.Helper()
	ctx := context.Background()
	head := text[:min(len(text), 20)]
	typed := func(screen string) bool { return strings.Contains(inputBox(screen), head) }
	for try := 1; ; try++ {
		if err := u.Type(ctx, text); err != nil {
			t.Fatal(err)
		}
		screen, err := u.WaitUntil(ctx, "the typed text in the input box", 10*time.Second, typed)
		if err == nil {
			break
		}
		if try == 6 || !strings.Contains(inputBox(screen), "Type your message") {
			t.Fatal(err) // not dropped but mangled, or dropped six times
		}
	}
	for range 5 {
		time.Sleep(500 * time.Millisecond)
		if err := u.Keys(ctx, "Enter"); err != nil {
			t.Fatal(err)
		}
		if _, err := u.WaitUntil(ctx, "the input box emptied", 10*time.Second, func(screen string) bool { return !typed(screen) }); err == nil {
			return
		}
	}
	t.Fatalf("%q stays in the input box after 5 presses of Enter", text)
}

// inputBox is the input box of Gemini CLI's screen: the lines between the last rule and the
// workspace line under it.
func inputBox(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "──") {
			var box []string
			for _, l := range lines[i+1:] {
				if strings.Contains(l, "workspace (") {
					break
				}
				box = append(box, l)
			}
			return strings.Join(box, "\n")
		}
	}
	return ""
}

// blockedThenAccepted types a loop into the TUI that is blocked once, then accepted after
// work (x.txt written), after 3 model requests; it returns the screen then, flattened.
func blockedThenAccepted(t *testing.T, env *Env) string {
	t.Helper()
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Say("Let me think about the file first."),
		Shell("Creating it now.", "echo hi > x.txt"),
		Say("x.txt is created.\n<promise>DONE</promise>"),
	}})
	u.submit(t, `/ralph-loop "Create x.txt holding hi" --max-iterations 5`)
	screen := tmux.Flat(u.waitFor(t, "promise accepted at iteration 2/5"))
	e2e.ReadFile(t, filepath.Join(env.Project, "x.txt"), "hi\n")
	if n := len(u.fake.MainRequests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	return screen
}

// Blocked then accepted in the TUI: the loop goes on after the first stop and ends with
// the promise. Gemini CLI's TUI follows the first block of a prompt with "This request
// failed. Press F12 for diagnostics…" (no reply avoids it: see gemini.Words.BlockLabel), so
// the first block's notice, shown just above that line, says it is the loop going on.
func TestTUIBlockedThenAccepted(t *testing.T) {
	env := newEnv(t)
	screen := blockedThenAccepted(t, env)
	note := `ralph-loop: iteration 2/5: no promise yet, continuing (Gemini CLI shows the task sent back to the agent as "This request failed": that is the loop going on, not an error)`
	failed := strings.Index(screen, "This request failed. Press F12")
	switch {
	case !strings.Contains(screen, note):
		t.Errorf("the first block's notice does not say what Gemini CLI's failure line is; want %q", note)
	case failed >= 0 && failed < strings.Index(screen, note):
		t.Error(`"This request failed. Press F12…" is shown before the notice that explains it`)
	}
	if strings.Count(screen, "This request failed. Press F12") > 1 {
		t.Error(`"This request failed. Press F12…" is shown more than once for one prompt`)
	}
}

// With ui.errorVerbosity "full" in the user's settings (their choice; install leaves it
// alone), Gemini CLI adds no "This request failed" line after a block, and the loop runs the
// same: the line is the TUI's, not the hook's. The notice then does not speak of it.
func TestTUIBlockedWithFullErrorVerbosity(t *testing.T) {
	env := newEnv(t)
	settings := filepath.Join(env.Home, ".gemini", "settings.json")
	b := e2e.Read(t, settings)
	full := strings.Replace(string(b), `"privacy":`, `"ui": {"errorVerbosity": "full"}, "privacy":`, 1)
	if full == string(b) {
		t.Fatal("settings.json: no place for the ui setting")
	}
	if err := os.WriteFile(settings, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	screen := blockedThenAccepted(t, env)
	if !strings.Contains(screen, "iteration 2/5: no promise yet, continuing") {
		t.Error("the block's notice is not on the screen")
	}
	if strings.Contains(screen, "This request failed. Press F12") {
		t.Error(`with ui.errorVerbosity "full", the screen still says "This request failed"`)
	}
	if strings.Contains(screen, "Gemini CLI shows the task sent back") {
		t.Error("the notice explains a line Gemini CLI does not show with this setting")
	}
}

// Esc while a command of the loop runs: Gemini CLI stops the command and ends the turn with
// no AfterAgent, only the AfterTool of the stopped call. The loop must end there, as the
// first block's notice says (Gemini CLI refuses a slash command typed then), and nothing run
// on its account after: not when the user's next message is answered either. Before, the
// loop stayed ACTIVE, and the stop after that answer was blocked: the agent went on with the
// loop's task (one more model turn and tool call).
func TestTUIEscDuringTool(t *testing.T) {
	env := newEnv(t)
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Say("Let me think first."),
		Shell("Working.", "touch started.txt && sleep 30"),
		Say("Stopped, as you asked."),
		Shell("More work.", "echo more > more.txt"),
		Say("Done. <promise>DONE</promise>"),
	}})
	ctx := context.Background()
	u.submit(t, `/ralph-loop "Create more.txt" --max-iterations 5`)
	screen := tmux.Flat(u.waitFor(t, "sleep 30"))
	if !strings.Contains(screen, "press Esc to end the loop") {
		t.Errorf("the first block's notice does not say Esc ends the loop")
	}
	if !e2e.Until(2*time.Minute, func() bool { _, err := os.Stat(filepath.Join(env.Project, "started.txt")); return err == nil }) {
		t.Fatal("the command did not start")
	}
	if err := u.Keys(ctx, "Escape"); err != nil {
		t.Fatal(err)
	}
	before := len(u.fake.MainRequests())
	ended := e2e.Until(2*time.Minute, func() bool {
		loops, _ := env.Status(ctx, "")
		return len(loops) == 1 && loops[0].Status != "ACTIVE"
	})
	if !ended {
		t.Error("the loop did not end after Esc")
	}
	u.idle(t)

	// The user's next message is answered, and the loop does not take the turn.
	u.submit(t, "Stop there, please.")
	u.waitFor(t, "Stopped, as you asked.")
	u.idle(t)
	if n := len(u.fake.MainRequests()) - before; n != 1 {
		t.Errorf("%d model requests after Esc, want 1 (the answer to the message)", n)
	}
	if _, err := os.Stat(filepath.Join(env.Project, "more.txt")); err == nil {
		t.Error("a tool call ran on the loop's account after Esc")
	}
	loops, err := env.Status(ctx, "")
	if err != nil || len(loops) != 1 {
		t.Fatalf("loops %+v, %v", loops, err)
	}
	if l := loops[0]; l.Status != "CANCELLED" || l.EndedBy != "user" || l.Iteration != 2 {
		t.Errorf("loop %s by %q at %d/%d (%s); want CANCELLED by the user at 2", l.Status, l.EndedBy, l.Iteration, l.MaxIterations, l.EndReason)
	}
	if !strings.Contains(tmux.Flat(u.waitFor(t, "loop cancelled at iteration 2/5")), "you pressed Esc while a command of the loop ran") {
		t.Error("the user is not told the loop ended with the Esc")
	}
}

// /cancel-ralph typed at the idle prompt of a session whose loop is active: the hook answers
// it, and nothing goes to the model. Gemini CLI labels a prompt a hook answered "Agent
// execution blocked", then "This request failed", and no hook output avoids that without
// sending the prompt on: the answer says the cancel is done and those labels no error
// (before, the screen read as a failure). The loop is left active as a dead terminal leaves
// it (the CLI killed mid-loop), and the session resumed in the TUI.
func TestTUICancel(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, Run{
		Prompt:   `/ralph-loop "Keep going" --max-iterations 10`,
		Script:   Script{Turns: []Turn{Say("Working on it.")}, HoldFrom: 2},
		KillWhen: func(f *Fake) bool { return len(f.MainRequests()) >= 2 },
	})
	if !res.Killed {
		t.Fatalf("the run ended on its own (exit %d)", res.ExitCode)
	}
	u := startTmuxTUI(t, env, Script{Turns: []Turn{Say("This must not be asked.")}}, "--resume", "latest")
	u.submit(t, "/cancel-ralph")
	screen := tmux.Flat(u.waitFor(t, "ralph loop cancelled at iteration 2/10"))
	done := `ralph loop cancelled at iteration 2/10 (ralph-loop answered /cancel-ralph itself, and nothing went to the model: ` +
		`Gemini CLI labels such an answer "Agent execution blocked" and "This request failed", which is no error)`
	if !strings.Contains(screen, done) {
		t.Errorf("the cancel's answer does not say it is done; want %q", done)
	}
	expectLoop(t, loopOf(t, env, res.SessionID), "CANCELLED", 2, 0)
	if n := len(u.fake.MainRequests()); n != 0 {
		t.Errorf("%d model requests for /cancel-ralph, want none", n)
	}
}

// idle waits until Gemini CLI has been idle (no "esc to cancel" line on the screen) for 3 s
// in a row: a continuation starts within a hook's run of the turn's end.
func (u *tmuxTUI) idle(t *testing.T) {
	t.Helper()
	var since time.Time
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		screen, err := u.Screen(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(screen, "esc to cancel"):
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) >= 3*time.Second:
			return
		}
	}
	t.Fatal("Gemini CLI did not go idle in 3 minutes")
}

// /ralph-loop typed in the interactive terminal UI: the installed command file makes it a
// known command there, and the hook arms from its expansion.
func TestInteractive(t *testing.T) {
	env := newEnv(t)
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Shell("Creating w.txt.", "echo w > w.txt"),
		Say("w.txt done.\n<promise>DONE</promise>"),
	}})
	u.submit(t, `/ralph-loop "Create w.txt" --max-iterations 3`)
	screen := u.waitFor(t, "promise accepted at iteration 1/3")
	if loops, _ := filepath.Glob(filepath.Join(env.State, "ralph-loop", "sessions", "*")); len(loops) == 0 {
		t.Error("no loop was armed")
	}
	if !tmux.Contains(screen, "loop armed: up to 3 iterations") {
		t.Error("the arming notice was not shown")
	}
	e2e.ReadFile(t, filepath.Join(env.Project, "w.txt"), "w\n")
}

// An interrupt in the interactive terminal UI: Esc while the model works on iteration 2
// stops the turn, and Gemini CLI still fires AfterAgent, with no model reply. The loop ends
// there (NO_PROGRESS) rather than sending the model on against the user's interrupt; then
// /cancel-ralph, answered by the hook without a model call, says how the loop ended.
func TestInteractiveInterrupt(t *testing.T) {
	env := newEnv(t)
	u := startTmuxTUI(t, env, Script{Turns: []Turn{Say("Working on it.")}, HoldFrom: 2})
	u.submit(t, `/ralph-loop "Keep going" --max-iterations 10`)
	if !e2e.Until(3*time.Minute, func() bool { return len(u.fake.MainRequests()) >= 2 }) {
		t.Fatal("iteration 2 never reached the model")
	}
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	var session string
	ended := func() bool {
		sessions, _ := os.ReadDir(filepath.Join(env.State, "ralph-loop", "sessions"))
		if len(sessions) != 1 {
			return false
		}
		session = sessions[0].Name()
		loops, _ := env.Status(context.Background(), session)
		return len(loops) > 0 && loops[0].Status != "ACTIVE"
	}
	if !e2e.Until(2*time.Minute, ended) {
		t.Fatal("the interrupt did not end the loop")
	}
	expectLoop(t, loopOf(t, env, session), "NO_PROGRESS", 2, 0)
	u.submit(t, "/cancel-ralph")
	u.waitFor(t, "the last one ended NO_PROGRESS at iteration 2/10")
	if n := len(u.fake.MainRequests()); n != 2 {
		t.Errorf("%d model requests, want 2 (none after the interrupt)", n)
	}
}
