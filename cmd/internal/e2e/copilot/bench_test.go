package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for GitHub Copilot CLI: the loop (each iteration one
// shell call, then a text turn), ralph-loop's hooks timed (see e2e.BenchHost). Copilot CLI
// honours 8 blocked stops in a row, so its loop runs 9 iterations.
func TestHookTime(t *testing.T) {
	e2e.NeedBench(t)
	suite.NeedAlone(t)
	timer, err := e2e.BuildTimer(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const iterations = 9
	e2e.BenchHost(t, "GitHub Copilot CLI", "copilot", "", iterations, timer, suite.RalphLoop, func(t *testing.T, root, ralphLoop string) Loop {
		e, err := NewEnv(root, suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, e.Project)
		if _, err := e.Install(context.Background(), "project"); err != nil {
			t.Fatal(err)
		}
		// Project hooks run only in a folder the user trusts.
		trust, _ := json.Marshal(map[string]any{"trustedFolders": []string{e.Project}})
		if err := os.WriteFile(filepath.Join(e.UserDir(), "config.json"), trust, 0o644); err != nil {
			t.Fatal(err)
		}
		var turns []Turn
		for i := 1; i <= iterations; i++ {
			turns = append(turns, Shell("", e2e.BenchCommand(i)), Text(fmt.Sprintf("Iteration %d: not done yet.", i)))
		}
		run(t, e, Run{Script: Script{Turns: turns, WhenDone: Text("Out of script.")},
			Prompt: fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, iterations)})
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
