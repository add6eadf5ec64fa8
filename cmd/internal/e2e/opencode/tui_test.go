package opencode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// 10. The interactive TUI, in tmux, as a user runs it: /ralph-loop typed, "I'm done"
// blocked and the task sent back (on the screen, in the transcript), then work and the
// promise accepted; the user sees ralph-loop's notices as toasts.
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
	if _, err := s.WaitFor(ctx, "ctrl+p", 60*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Type(ctx, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	// The loop's end is read from ralph-loop's state; meanwhile the screen is watched for
	// ralph-loop's notices (toasts, shown for a few seconds each).
	toasts := []string{"loop armed: up to 5 iterations", "iteration 2/5: no promise yet", "promise accepted at iteration 2/5"}
	seen := map[string]bool{}
	var screen string
	deadline := time.Now().Add(90 * time.Second)
	var ended time.Time
	for ended.IsZero() || time.Since(ended) < 8*time.Second {
		if time.Now().After(deadline) {
			loops, _ := e.Status(ctx)
			t.Fatalf("the loop did not end in 90 s: %+v; the screen:\n%s", loops, tmux.Trim(screen))
		}
		if screen, err = s.Screen(ctx, 0); err != nil {
			t.Fatal(err)
		}
		for _, ts := range toasts {
			seen[ts] = seen[ts] || tmux.Contains(screen, ts)
		}
		if loops, _ := e.Status(ctx); ended.IsZero() && len(loops) == 1 && loops[0].Status != "ACTIVE" {
			ended = time.Now()
		}
		if all(seen, toasts) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("toasts seen: %v", seen)
	// The first and the last notice are shown; one that comes while another is shown may give
	// way to the next (the block is in the transcript on the screen anyway).
	for _, ts := range []string{toasts[0], toasts[2]} {
		if !seen[ts] {
			t.Errorf("the toast %q was never on the screen", ts)
		}
	}
	if !tmux.Contains(screen, "Your stop was blocked: the completion marker was not in your output") {
		t.Errorf("the continuation is not on the screen")
	}
	t.Logf("the screen:\n%s", tmux.Trim(screen))
	loops, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 1 {
		t.Fatalf("%d loops, want 1", len(loops))
	}
	expectLoop(t, loops[0], "PROMISE_ACCEPTED", 2, 1)
	if n := len(continuations(fake)); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	if b, err := os.ReadFile(filepath.Join(e.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}

func all(seen map[string]bool, keys []string) bool {
	for _, k := range keys {
		if !seen[k] {
			return false
		}
	}
	return true
}

// A message typed while a command of the loop runs: the loop stays in step (see
// MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	MessageMidLoop(t, e)
}
