package kilo

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/opencode"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// 8. Kilo's interactive TUI, in tmux, as a user runs it: /ralph-loop typed, "I'm done"
// blocked and the task sent back (on the screen), then work and the promise accepted; the
// user sees ralph-loop's notices as toasts.
func TestTUI(t *testing.T) {
	suite.Need(t)
	if err := tmux.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(ctx, "user"); err != nil {
		t.Fatal(err)
	}
	fake, err := e.Configure(Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	env := append(e.Environ(), "TERM=xterm-256color")
	s, err := tmux.Start(ctx, tmux.Options{Dir: e.Project, Env: env, Width: 160, Height: 45, Scratch: t.TempDir()}, e.Opencode)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	// The TUI can take minutes to draw on a loaded machine.
	if _, err := s.WaitFor(ctx, "ctrl+p", 3*time.Minute); err != nil {
		screen, _ := s.Screen(ctx, 0)
		t.Fatalf("%v; the screen:\n%s", err, tmux.Trim(screen))
	}
	if err := s.Type(ctx, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	toasts := []string{"loop armed: up to 5 iterations", "promise accepted at iteration 2/5"}
	seen := map[string]bool{}
	var screen string
	deadline := time.Now().Add(90 * time.Second)
	for !seen[toasts[0]] || !seen[toasts[1]] {
		if time.Now().After(deadline) {
			loops, _ := e.Status(ctx)
			t.Fatalf("the loop did not end with both toasts seen (%v) in 90 s: %+v; the screen:\n%s", seen, loops, tmux.Trim(screen))
		}
		if screen, err = s.Screen(ctx, 0); err != nil {
			t.Fatal(err)
		}
		for _, ts := range toasts {
			seen[ts] = seen[ts] || tmux.Contains(screen, ts)
		}
		time.Sleep(100 * time.Millisecond)
	}
	expectLoop(t, onlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	if n := len(fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	readFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

// A message typed while a command of the loop runs: Kilo goes idle for a moment between
// the tool step and the message, which is no stop; the loop stays in step (see
// opencode.MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	opencode.MessageMidLoop(t, e)
}
