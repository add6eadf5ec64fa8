package pi

import (
	"context"
	"fmt"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for pi: the loop of e2e.BenchIterations iterations
// (each one shell call, then a text turn) in RPC mode, ralph-loop's extension installed at
// project scope (it runs the ralph-loop on PATH, where the timer stands for it) and its hook
// processes timed (see e2e.BenchHost). Its stop is "agent_end"; a call's tool_result the
// extension runs in the background.
func TestHookTime(t *testing.T) {
	e2e.NeedBench(t)
	suite.NeedAlone(t)
	ctx := context.Background()
	timer, err := e2e.BuildTimer(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e2e.BenchHost(t, "pi", "pi", "agent_end", e2e.BenchIterations, timer, suite.RalphLoop, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		e, err := NewEnv(root, suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, e.Project)
		if err := e.OnPath(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Install(ctx, "project"); err != nil {
			t.Fatal(err)
		}
		var turns []Turn
		for i := 1; i <= e2e.BenchIterations; i++ {
			turns = append(turns, Shell("", e2e.BenchCommand(i)), Text(fmt.Sprintf("Iteration %d: not done yet.", i)))
		}
		w := start(t, e, Script{Turns: turns, WhenDone: Text("Out of script.")})
		w.send(t, fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, e2e.BenchIterations), w.ended)
		return e2e.SessionLoop(t, e, onlyLoop(t, e).SessionID)
	}, "tool_result")
}
