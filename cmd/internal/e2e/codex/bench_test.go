package codex

import (
	"context"
	"fmt"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Codex CLI: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop installed as the suite
// installs it (user scope, its hooks running the timer that stands for the binary) and its
// hooks timed (see e2e.BenchHost).
func TestHookTime(t *testing.T) {
	e2e.NeedBench(t)
	suite.NeedAlone(t)
	ctx := context.Background()
	timer, err := e2e.BuildTimer(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e2e.BenchHost(t, "Codex CLI", "codex", "Stop", e2e.BenchIterations, timer, suite.RalphLoop, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		var turns []Turn
		for i := 1; i <= e2e.BenchIterations; i++ {
			turns = append(turns, Shell(e2e.BenchCommand(i)), Text(fmt.Sprintf("Iteration %d: not done yet.", i)))
		}
		env := bareEnv(t, root, ralphLoop, Script{Turns: turns, WhenDone: Text("Out of script.")})
		if _, err := env.InstallHooks(ctx, "--binary", ralphLoop); err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, env.Project)
		res := run(t, env, "", fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, e2e.BenchIterations))
		return loopOf(t, env, res.SessionID)
	})
}
