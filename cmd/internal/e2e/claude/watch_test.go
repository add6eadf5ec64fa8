package claude

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// TestTUIWatch: "ralph-loop watch --session" in a terminal of its own (80x24, under tmux)
// beside a loop typed into Claude Code's TUI: its screen shows the iterations advance as
// the loop's stops are blocked (1/6, 2/6, 3/6), the tool calls and the last decision, then
// the tokens the host recorded against --max-tokens, then the accepted promise, and it
// leaves by itself, exit 0, saying how the loop ended.
// With RALPH_WATCH_SCREEN=FILE the screen at 3/6 is written to FILE (README's picture).
func TestTUIWatch(t *testing.T) {
	var turns []e2e.Turn
	for i := 0; i < 2; i++ {
		tool := e2e.Bash("Working on the parser.", "echo step >> log.txt")
		tool.Delay = 3 * time.Second
		text := e2e.Text("Not done yet.")
		text.Delay = 2 * time.Second
		turns = append(turns, tool, text)
	}
	tool := e2e.Bash("Running the tests.", "echo done >> log.txt")
	tool.Delay = 3 * time.Second
	done := e2e.Text("Every parser test passes.\n<promise>DONE</promise>")
	done.Delay = 2 * time.Second
	turns = append(turns, tool, done)
	env, tui := startTUI(t, e2e.Script{Turns: turns, WhenDone: e2e.Text("Done."), MaxMain: 20})

	submit(t, tui, `/ralph-loop "Make every test in ./parser pass" --max-iterations 6 --max-time 30m --max-tokens 200000`)
	l := waitLoop(t, env, "armed", func(l e2e.Loop) bool { return l.Status == "ACTIVE" })

	scratch, err := os.MkdirTemp(env.Root, "watch-")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := tmux.Start(ctx, tmux.Options{Dir: env.Project, Env: env.Environ("", []string{"TERM=xterm-256color"}),
		Width: 80, Height: 24, Scratch: scratch}, env.RalphLoop, "watch", "--session", l.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Kill() })
	wait := func(what string, ok func(screen string) bool) string {
		t.Helper()
		screen, err := w.WaitUntil(ctx, what, 90*time.Second, ok)
		if err != nil {
			t.Fatalf("%v; the watch pane:\n%s", err, tmux.Trim(screen))
		}
		return screen
	}
	has := func(want ...string) func(string) bool {
		return func(s string) bool {
			for _, x := range want {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		}
	}
	wait("iteration 1/6", has("ralph-loop watch · session "+l.SessionID, "Make every test in ./parser pass", "1/6", " of 30m0s"))
	wait("iteration 2/6", has("2/6", "tool calls  1 (the promise needs 1)", "last        blocked: promise not found; continuing with iteration 2/6"))
	screen := wait("iteration 3/6", has("3/6", "tool calls  2 (the promise needs 1)", "continuing with iteration 3/6", " of 200,000"))
	if f := os.Getenv("RALPH_WATCH_SCREEN"); f != "" {
		if err := os.WriteFile(f, []byte(tmux.Trim(screen)+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	end := wait("the end", has("loop ended: PROMISE_ACCEPTED at iteration 3/6 (promise found", "[exited 0]"))
	noErrors(t, end)
	waitLoop(t, env, "accepted", func(l e2e.Loop) bool { return l.Status == "PROMISE_ACCEPTED" })
	waitFor(t, tui, "promise accepted at iteration 3/6")
}
