package opencode

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// HookTime is make bench's figure for the flavour's CLI: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn) under "serve", with ralph-loop's plugin
// installed at project scope (it runs the ralph-loop on PATH, where the timer stands for
// it) and its hook processes timed (see e2e.BenchHost). Its stop is "session.idle"; with a
// loop active, a tool call starts two processes: tool.execute.before, which the CLI waits
// for, and tool.execute.after, which the plugin runs in the background.
func (f Family) HookTime(t *testing.T) {
	f.Suite.Bench(t, f.Suite.Title, f.Flavor.Host, "session.idle", e2e.BenchIterations, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		e, err := NewEnv(root, f.Suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e.Flavor = f.Flavor
		e2e.BenchOnPath(t, e, e.Project)
		w := Serve(t, e, Script{Turns: e2e.BenchTurns(e2e.BenchIterations, Shell, Text), WhenDone: Text("Out of script.")})
		w.Start(t, e2e.BenchPrompt(e2e.BenchIterations), w.Ended)
		return e2e.SessionLoop(t, e, e2e.OnlyLoop(t, e).SessionID)
	}, "tool.execute.after")
}
