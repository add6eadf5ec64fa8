package opencode

import (
	"context"
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
