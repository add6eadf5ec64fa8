package qwen

import (
	"context"
	"fmt"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Qwen Code: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop's hooks timed (see
// e2e.BenchHost).
func TestHookTime(t *testing.T) {
	e2e.NeedBench(t)
	suite.NeedAlone(t)
	timer, err := e2e.BuildTimer(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e2e.BenchHost(t, "Qwen Code", "qwen", "Stop", e2e.BenchIterations, timer, suite.RalphLoop, func(t *testing.T, root, ralphLoop string) Loop {
		e, err := NewEnv(root, suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, e.Project)
		if _, err := e.Install(context.Background(), "project"); err != nil {
			t.Fatal(err)
		}
		var turns []Turn
		for i := 1; i <= e2e.BenchIterations; i++ {
			turns = append(turns, Shell("", e2e.BenchCommand(i)), Text(fmt.Sprintf("Iteration %d: not done yet.", i)))
		}
		run(t, e, Run{Script: Script{Turns: turns, WhenDone: Text("Out of script.")},
			Prompt: fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, e2e.BenchIterations)})
		return withEvents(t, e, onlyLoop(t, e))
	})
}

// withEvents is l as status shows one session's loop, with its events.
func withEvents(t *testing.T, e *Env, l Loop) Loop {
	t.Helper()
	out, err := e.RalphLoopCmd(context.Background(), "status", "--session", l.SessionID, "--json")
	if err != nil {
		t.Fatal(err)
	}
	loops, err := e2e.DecodeStatus(out)
	if err != nil || len(loops) == 0 {
		t.Fatalf("status of session %s: %v", l.SessionID, err)
	}
	return loops[0]
}
