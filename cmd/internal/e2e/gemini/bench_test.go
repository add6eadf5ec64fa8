package gemini

import (
	"context"
	"fmt"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Gemini CLI: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop installed at project scope
// and its hooks timed (see e2e.BenchHost).
func TestHookTime(t *testing.T) {
	e2e.NeedBench(t)
	suite.NeedAlone(t)
	ctx := context.Background()
	timer, err := e2e.BuildTimer(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e2e.BenchHost(t, "Gemini CLI", "gemini", "AfterAgent", e2e.BenchIterations, timer, suite.RalphLoop, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		env, err := NewEnv(ctx, root, suite.Bin, ralphLoop, "project")
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, env.Project)
		var turns []Turn
		for i := 1; i <= e2e.BenchIterations; i++ {
			turns = append(turns, Shell("", e2e.BenchCommand(i)), Say(fmt.Sprintf("Iteration %d: not done yet.", i)))
		}
		res := run(t, env, Run{Prompt: fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, e2e.BenchIterations),
			Script: Script{Turns: turns, After: &Turn{Text: "Out of script."}}})
		return loopOf(t, env, res.SessionID)
	})
}
