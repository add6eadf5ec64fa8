package opencode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// 10. The interactive TUI, in tmux, as a user runs it: /ralph-loop typed and picked from
// the command list, "I'm done" blocked and the task sent back, then work and the promise
// accepted; the user sees ralph-loop's notices as toasts on the screen.
func TestTUI(t *testing.T) {
	suite.Need(t)
	if err := tmux.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	e, err := NewEnv(t.TempDir(), opencodeBin, ralphBin)
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
	screen, err := s.WaitFor(ctx, "promise accepted at iteration 2/5", 90*time.Second)
	if err != nil {
		loops, _ := e.Status(ctx)
		t.Fatalf("%v\nloops: %+v", err, loops)
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
