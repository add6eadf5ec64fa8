package codex

import (
	"context"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Codex CLI: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop installed as the suite
// installs it (user scope, its hooks running the timer that stands for the binary) and its
// hooks timed (see e2e.BenchHost).
func TestHookTime(t *testing.T) {
	suite.Bench(t, "Codex CLI", "codex", "Stop", e2e.BenchIterations, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		shell := func(_, command string) Turn { return Shell(command) }
		env := bareEnv(t, root, ralphLoop, Script{Turns: e2e.BenchTurns(e2e.BenchIterations, shell, Text), WhenDone: Text("Out of script.")})
		if _, err := env.InstallHooks(context.Background(), "--binary", ralphLoop); err != nil {
			t.Fatal(err)
		}
		e2e.BenchRepo(t, env.Project)
		res := run(t, env, "", e2e.BenchPrompt(e2e.BenchIterations))
		return loopOf(t, env, res.SessionID)
	})
}
