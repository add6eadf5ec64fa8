package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The agent starts a build with Bash's run_in_background and ends its turn to wait for it.
// Claude Code's Stop says so (background_tasks): the stop is let through, using no
// iteration and counting no stall, and the loop is ACTIVE, waiting on the build, in status.
// When the build ends, Claude Code wakes the session by itself (its task notification, a
// prompt of its own, in -p too): the loop goes on there, and the promise ends it. The log
// shows the wait and the wake-up.
func TestBackgroundWork(t *testing.T) {
	env := newEnv(t)
	// status, polled while the session runs: the loop as it waits.
	var mu sync.Mutex
	var waiting *e2e.Loop
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if loops, err := env.Status(ctx, ""); err == nil && len(loops) == 1 && loops[0].Wait != nil {
				mu.Lock()
				if waiting == nil {
					waiting = &loops[0]
				}
				mu.Unlock()
			}
			time.Sleep(250 * time.Millisecond)
		}
	}()
	res := run(t, env, e2e.Session{Script: e2e.Script{Turns: []e2e.Turn{
		e2e.Tool("I'll start the build in the background.", "Bash",
			map[string]any{"command": "sleep 6; echo built > build.txt", "description": "Build", "run_in_background": true}),
		e2e.Text("The build runs in the background; I will wait for it."),
		e2e.Bash("The build finished; checking what it wrote.", "cat build.txt"),
		e2e.Text("build.txt says built. <promise>DONE</promise>"),
	}}, Prompts: []string{`/ralph-loop "Build it: run the build in the background and check build.txt" --max-iterations 5`}})
	stop()
	<-done

	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 1, 2)
	if f := res.Feedback(); len(f) != 0 {
		t.Errorf("blocked while the build ran: %q", f)
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "build.txt")); err != nil || string(b) != "built\n" {
		t.Errorf("build.txt = %q, %v", b, err)
	}
	mu.Lock()
	w := waiting
	mu.Unlock()
	switch {
	case w == nil:
		t.Error("status never showed the loop waiting")
	case w.Status != "ACTIVE" || w.Iteration != 1 || len(w.Wait.On) != 1:
		t.Errorf("while waiting: %s at %d, on %+v", w.Status, w.Iteration, w.Wait.On)
	default:
		if on := w.Wait.On[0]; on.Kind != "shell" || on.Name != "Build" || on.Command != "sleep 6; echo built > build.txt" || on.ID == "" {
			t.Errorf("waiting on %+v, want the build", on)
		}
	}
	var actions []string
	for _, e := range l.Events {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, " "); got != "armed waiting woken accepted" {
		t.Errorf("events %q, want armed waiting woken accepted", got)
	}
	if !hasNotice(res, "ralph-loop: iteration 1/5 waits with Claude Code for its background work: Build (shell `sleep 6; echo built > build.txt`)") {
		t.Error("the user was not told the loop waits")
	}
	out, err := env.RalphLoopCmd(context.Background(), "log", "--session", res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "ralph-loop log", out, "waiting with the host for its background work: Build (shell `sleep 6; echo built > build.txt`) [id ",
		"a prompt came after waiting")
}
