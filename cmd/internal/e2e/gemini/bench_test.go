package gemini

import (
	"context"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Gemini CLI: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop installed at project scope
// and its hooks timed (see e2e.BenchHost).
func TestHookTime(t *testing.T) {
	suite.Bench(t, "Gemini CLI", "gemini", "AfterAgent", e2e.BenchIterations, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		env, err := NewEnv(context.Background(), root, suite.Bin, ralphLoop, "project")
		if err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, env.Project)
		script := Script{Turns: e2e.BenchTurns(e2e.BenchIterations, Shell, Say), After: &Turn{Text: "Out of script."}}
		res := run(t, env, Run{Prompt: e2e.BenchPrompt(e2e.BenchIterations), Script: script})
		return loopOf(t, env, res.SessionID)
	})
}
