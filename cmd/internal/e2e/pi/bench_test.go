package pi

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for pi: the loop of e2e.BenchIterations iterations
// (each one shell call, then a text turn) in RPC mode, ralph-loop's extension installed at
// project scope (it runs the ralph-loop on PATH, where the timer stands for it) and its hook
// processes timed (see e2e.BenchHost). Its stop is "agent_end"; a call's tool_result the
// extension runs in the background.
func TestHookTime(t *testing.T) {
	suite.Bench(t, "pi", "pi", "agent_end", e2e.BenchIterations, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		e, err := NewEnv(root, suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchOnPath(t, e, e.Project)
		w := start(t, e, Script{Turns: e2e.BenchTurns(e2e.BenchIterations, Shell, Text), WhenDone: Text("Out of script.")})
		w.send(t, e2e.BenchPrompt(e2e.BenchIterations), w.ended)
		return e2e.SessionLoop(t, e, onlyLoop(t, e).SessionID)
	}, "tool_result")
}
