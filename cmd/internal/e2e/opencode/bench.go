package opencode

import (
	"context"
	"fmt"
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
	e2e.NeedBench(t)
	f.Suite.NeedAlone(t)
	ctx := context.Background()
	timer, err := e2e.BuildTimer(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e2e.BenchHost(t, f.Suite.Title, f.Flavor.Host, "session.idle", e2e.BenchIterations, timer, f.Suite.RalphLoop, func(t *testing.T, root, ralphLoop string) e2e.Loop {
		e, err := NewEnv(root, f.Suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		e.Flavor = f.Flavor
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
		w := Serve(t, e, Script{Turns: turns, WhenDone: Text("Out of script.")})
		w.Start(t, fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, e2e.BenchIterations), w.Ended)
		return e2e.SessionLoop(t, e, e2e.OnlyLoop(t, e).SessionID)
	}, "tool.execute.after")
}
