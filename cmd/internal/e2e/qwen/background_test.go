package qwen

import (
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// The agent starts a build with the shell tool's is_background and ends its turn to wait
// for it. Qwen Code's Stop does not list background shells (its background_tasks are its
// subagents), but it keeps each shell's status in a file beside its output: ralph-loop
// reads it, and the stop is let through, using no iteration, and the loop is ACTIVE,
// waiting on the build, in status. When the build ends, Qwen Code's TUI wakes the session
// with its notification: the loop goes on there, and the promise ends it. (qwen -p wakes
// no session: it exits at the end of the turn.)
func TestTUIBackgroundShell(t *testing.T) {
	e := newEnv(t, "user")
	u := startTUI(t, e, fakechat.Script{Turns: []fakechat.Turn{
		fakechat.Tool("I'll start the build in the background.", "run_shell_command",
			map[string]any{"command": "sleep 6; echo built > build.txt", "is_background": true, "description": "Build"}),
		fakechat.Text("The build runs in the background; I will wait for it."),
		Shell("The build finished; checking what it wrote.", "cat build.txt"),
		fakechat.Text("build.txt says built. <promise>DONE</promise>"),
	}})
	u.Submit(t, `/ralph-loop "Build it: run the build in the background and check build.txt" --max-iterations 5`)
	w := e2e.WaitLoop(t, e, "waiting", func(l Loop) bool { return l.Wait != nil || l.Status != "ACTIVE" })
	if w.Status != "ACTIVE" || w.Wait == nil || w.Iteration != 1 || len(w.Wait.On) != 1 {
		t.Fatalf("loop %s at %d (%s), wait %+v; want ACTIVE at 1, waiting on the build", w.Status, w.Iteration, w.EndReason, w.Wait)
	}
	if on := w.Wait.On[0]; on.Kind != "shell" || on.Command != "sleep 6; echo built > build.txt" || !strings.HasPrefix(on.ID, "bg_") {
		t.Errorf("waiting on %+v, want the build", on)
	}
	l := e2e.WaitLoop(t, e, "ended", func(l Loop) bool { return l.Status != "ACTIVE" })
	e2e.ExpectLoop(t, l, "qwen", "PROMISE_ACCEPTED", 1, 2)
	if c := continuations(u.Fake); len(c) != 0 {
		t.Errorf("blocked while the build ran: %q", c)
	}
	e2e.ReadFile(t, e.Project+"/build.txt", "built\n")
	var actions []string
	for _, ev := range l.Events {
		actions = append(actions, ev.Action)
	}
	// The wake-up fires no prompt hook of the user's (only the turn's stop tells); the last
	// turn's usage may be counted after the loop ended.
	if got := strings.TrimSuffix(strings.Join(actions, " "), " usage"); got != "armed waiting accepted" {
		t.Errorf("events %q, want armed waiting accepted", got)
	}
	u.Await(t, "ralph-loop: iteration 1/5 waits with Qwen Code for its background work")
}
