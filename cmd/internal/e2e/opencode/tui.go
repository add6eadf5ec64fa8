package opencode

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

// MessageMidLoop is a TUI scenario of opencode's family, run by each CLI's suite with its
// Env (ralph-loop installed at user scope): /ralph-loop typed, then a message typed while
// a command of the loop runs. The CLI hands the message to the agent within the turn; the
// loop must stay in step: each stop is the stop of its own turn (one continuation per
// blocked stop, the promise accepted at the stop that has it, no model request after it),
// and the log does not say that the host ended the turn.
func MessageMidLoop(t *testing.T, e *Env) {
	t.Helper()
	if err := tmux.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	s, fake, err := e.StartTUI(ctx, Script{Turns: []Turn{
		Shell("Working.", "sleep 8"),
		Text("Noted the README."),
		Shell("", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}, WhenDone: Text("Out of script.")}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	defer s.Kill()
	dump := func() {
		screen, _ := s.Screen(ctx, 200)
		log, _ := e.RalphLoopCmd(ctx, "log")
		t.Logf("the screen:\n%s\nralph-loop log:\n%s", tmux.Trim(screen), log)
		for i, r := range fake.MainRequests() {
			if m := r.Messages; len(m) > 0 {
				last := m[len(m)-1]
				t.Logf("model request %d at %s: %d messages, the last %s %q", i+1, r.At.Format("15:04:05.000"), len(m), last.Role, cut(last.Text, 120))
			}
		}
	}
	// The TUI can take minutes to draw on a loaded machine.
	if _, err := s.WaitFor(ctx, "ctrl+p", 3*time.Minute); err != nil {
		t.Fatal(err)
	}
	typed := func(text string) {
		if err := s.Type(ctx, text); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if err := s.Keys(ctx, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
	typed(`/ralph-loop "Create x.txt containing hi" --max-iterations 5`)
	if _, err := s.WaitFor(ctx, "sleep 8", 3*time.Minute); err != nil {
		dump()
		t.Fatal(err)
	}
	typed("Also mention the README.")
	deadline := time.Now().Add(4 * time.Minute)
	for {
		loops, _ := e.Status(ctx)
		if len(loops) == 1 && loops[0].Status != "ACTIVE" {
			break
		}
		if time.Now().After(deadline) {
			dump()
			t.Fatalf("the loop did not end in 4 minutes: %+v", loops)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(5 * time.Second) // anything sent on the loop's account after its end would show by now
	loops, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e2e.ExpectLoop(t, loops[0], e.Host, "PROMISE_ACCEPTED", 2, 2)
	if n := len(fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1 (one per blocked stop)", n)
	}
	if n := len(fake.MainRequests()); n != 4 {
		t.Errorf("%d model requests, want 4 (none after the promise)", n)
	}
	// Kilo's TUI may hold the message (QUEUED) until the turn's end, or hand it over at its
	// pause between steps: either way the host did not end a blocked turn.
	log, _ := e.RalphLoopCmd(ctx, "log")
	if strings.Contains(log, "turn_ended") {
		t.Errorf("the log says the host ended the turn")
	}
	if t.Failed() {
		dump()
	}
}

// tui is the CLI's TUI in tmux for a scenario, against its fake model, with ralph-loop
// installed at user scope.
type tui struct {
	*tmux.Session
	e    *Env
	fake *Fake
}

// startTUI installs ralph-loop in e and starts the CLI's TUI against a fake serving script;
// it waits until the TUI is drawn (minutes on a loaded machine). A failing test gets the
// last screen and ralph-loop's log.
func startTUI(t *testing.T, e *Env, script Script) *tui {
	t.Helper()
	if err := tmux.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	if _, err := e.Install(ctx, "user"); err != nil {
		t.Fatal(err)
	}
	s, fake, err := e.StartTUI(ctx, script, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	t.Cleanup(func() { s.Kill() })
	e2e.WatchTUI(t, s, e)
	if _, err := s.WaitFor(ctx, "ctrl+p", 3*time.Minute); err != nil {
		t.Fatal(err)
	}
	return &tui{Session: s, e: e, fake: fake}
}

// typed types text at the prompt, then Enter (once the text is in: keys sent with it would
// be taken as part of it); again enter times more, a second apart (Enter twice on a
// command: the first picks it from the list of commands).
func (u *tui) typed(t *testing.T, text string, enter int) {
	t.Helper()
	ctx := context.Background()
	if err := u.Type(ctx, text); err != nil {
		t.Fatal(err)
	}
	for range 1 + enter {
		time.Sleep(time.Second)
		if err := u.Keys(ctx, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
}

// toast waits up to a minute for the screen to show text, a toast of ralph-loop's (shown for
// a few seconds, in a box of its own: text must fit on one of its lines).
func (u *tui) toast(t *testing.T, text string) {
	t.Helper()
	if _, err := u.WaitFor(context.Background(), text, time.Minute); err != nil {
		t.Errorf("the toast %q was not shown: %v", text, err)
	}
}

// loop waits up to four minutes for the session's only loop to hold ok, and returns it.
func (u *tui) loop(t *testing.T, what string, ok func(Loop) bool) Loop {
	t.Helper()
	var loops []Loop
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(tmux.Poll) {
		loops, _ = u.e.Status(context.Background())
		if len(loops) == 1 && ok(loops[0]) {
			return loops[0]
		}
	}
	t.Fatalf("no loop %s in 4 minutes: %+v", what, loops)
	return Loop{}
}

// interrupt stops the agent as a user does: Esc, which arms the TUI's interrupt ("esc again
// to interrupt"), then Esc again, which stops the turn ("interrupted"). Each step waits for
// the screen to show it; a key the TUI missed (two in quick succession may be read as one)
// is pressed again.
func (u *tui) interrupt(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for range 5 {
		if err := u.Keys(ctx, "Escape"); err != nil {
			t.Fatal(err)
		}
		if _, err := u.WaitFor(ctx, "again to interrupt", 15*time.Second); err != nil {
			continue
		}
		if err := u.Keys(ctx, "Escape"); err != nil {
			t.Fatal(err)
		}
		if _, err := u.WaitFor(ctx, "interrupted", 30*time.Second); err == nil {
			return
		}
	}
	t.Fatal("Esc did not stop the agent")
}

// noRequest checks that the model gets no request past the first n for what (a command
// answered without it): it waits 10 s for one, which comes within a second or two of the
// command when there is one.
func (u *tui) noRequest(t *testing.T, n int, what string) {
	t.Helper()
	if e2e.Until(10*time.Second, func() bool { return len(u.fake.MainRequests()) > n }) {
		t.Errorf("%d model requests for %s, want none", len(u.fake.MainRequests())-n, what)
	}
}

// TUIEscThenMessage is the scenario: Esc while a command of the loop runs stops the command
// and ends the turn on an interrupt, which is no stop: the loop stays ACTIVE, and a toast
// says so and how to go on or end it (before, nothing was said). The stopped call did no
// work: the promise at the user's next message, with no other call made, is rejected for
// want of one (before, the stopped call counted, and that promise ended the loop).
func (f Family) TUIEscThenMessage(t *testing.T) {
	u := startTUI(t, f.Env(t), Script{Turns: []Turn{
		Shell("Working.", "touch started.txt && sleep 300"),
		Text("It is done, I think. <promise>DONE</promise>"),
		Shell("Doing it for real.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}, WhenDone: Text("Out of script.")})
	u.typed(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`, 0)
	if !e2e.Until(3*time.Minute, func() bool { _, err := os.Stat(filepath.Join(u.e.Project, "started.txt")); return err == nil }) {
		t.Fatal("the command did not start")
	}
	u.interrupt(t)
	u.toast(t, "you stopped the agent (Esc)")
	u.toast(t, "still active at iteration 1/5")
	if l := u.loop(t, "stopped", func(l Loop) bool { return l.Status == "ACTIVE" }); l.ToolCalls != 0 {
		t.Errorf("after Esc: %d tool calls; want none (the stopped call did no work)", l.ToolCalls)
	}
	u.typed(t, "Is it done?", 0)
	u.e.Expect(t, u.loop(t, "ended", func(l Loop) bool { return l.Status != "ACTIVE" }), "PROMISE_ACCEPTED", 2, 1)
	if c := u.fake.Continuations(); len(c) != 1 || !strings.Contains(c[0], "only 0 tool calls") {
		t.Errorf("continuations %q; want one, rejecting the promise that came with no tool call", c)
	}
	e2e.ReadFile(t, filepath.Join(u.e.Project, "x.txt"), "hi\n")
}

// TUICancel is the scenario: /cancel-ralph typed in the TUI (Enter twice) is answered by
// ralph-loop, and the plugin drops it before it becomes a message: no model request, nothing
// shown as the user's words, the answer a toast. Before, the cancel reached the model as
// "Tell the user exactly the following…", shown as if the user had typed it. With no loop;
// then with a loop whose turn ended on a model error (no stop: a toast says the loop waits).
func (f Family) TUICancel(t *testing.T) {
	u := startTUI(t, f.Env(t), Script{Turns: []Turn{Text("Working on it.")}, MaxMain: 1})
	u.typed(t, "/cancel-ralph", 1)
	u.toast(t, "no active ralph loop in this session")
	u.noRequest(t, 0, "/cancel-ralph with no loop")
	u.typed(t, `/ralph-loop "Keep going" --max-iterations 5`, 0)
	u.toast(t, "the turn ended on an error")
	l := u.loop(t, "waiting at iteration 2", func(l Loop) bool { return l.Iteration == 2 })
	if l.Status != "ACTIVE" {
		t.Fatalf("loop %s (%s); want it waiting", l.Status, l.EndReason)
	}
	requests := len(u.fake.MainRequests())
	u.typed(t, "/cancel-ralph", 1)
	u.toast(t, "ralph loop cancelled at iteration 2/5")
	u.e.Expect(t, u.loop(t, "ended", func(l Loop) bool { return l.Status != "ACTIVE" }), "CANCELLED", 2, 0)
	u.noRequest(t, requests, "/cancel-ralph")
	screen, _ := u.Screen(context.Background(), 500)
	if strings.Contains(tmux.Flat(screen), "Tell the user exactly") {
		t.Errorf("the cancel is shown as the user's words:\n%s", tmux.Trim(screen))
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// StartTUI configures the project for a fake serving script (Configure) and starts the
// CLI's TUI in tmux (160x45, its socket and launcher in scratch), in the project. The caller
// kills the session and closes the fake.
func (e *Env) StartTUI(ctx context.Context, script Script, scratch string) (*tmux.Session, *Fake, error) {
	fake, err := e.Configure(script)
	if err != nil {
		return nil, nil, err
	}
	env := append(e.Environ(), "TERM=xterm-256color")
	s, err := tmux.Start(ctx, tmux.Options{Dir: e.Project, Env: env, Width: 160, Height: 45, Scratch: scratch}, e.Opencode)
	if err != nil {
		fake.Close()
		return nil, nil, err
	}
	return s, fake, nil
}
