package pi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// pi's extension, which cannot run ralph-loop (see e2e.BinaryGone), also tells the user
// why; the cancel typed meanwhile lets the next stop end the run. Before, it read a missing
// binary as "nothing to do" (and an unrunnable one as an error): the run ended and the
// loop stayed ACTIVE, with nothing said of the loop.
func TestBinaryGone(t *testing.T) {
	// A ralph-loop of the test's own: the one the agent moves.
	e2e.EachBinaryGone(t, &suite, NewEnv, func(t *testing.T, c e2e.BinaryGone, e *Env) {
		// The turn after the stop's continuation ends on a model error (past the script),
		// which is not a stop.
		w := start(t, e, Script{Turns: []Turn{
			Write("Let me write a helper script.", filepath.Join(e.Project, "away.sh"), c.Script),
			Shell("Then run it.", "sh away.sh"),
			Text("Not done yet."),
		}, MaxMain: 3})

		w.send(t, `/ralph-loop "Keep going" --max-iterations 5`, always)
		e2e.GoneBlocked(t, w.rpc.Fake, &e.Base, suite.RalphLoop)
		if _, err := os.Stat(e.RalphLoop); c.Name == "moved" && err == nil {
			t.Fatal("the binary was not moved")
		}
		w.saw(t, "pi's hooks cannot run "+e.RalphLoop, "type /cancel-ralph to end the loop")

		// The user's /cancel-ralph, the binary still gone: answered at once, and the
		// next stop is not blocked.
		reqs := len(w.rpc.Fake.MainRequests())
		w.send(t, "/cancel-ralph", always)
		w.saw(t, "ralph-loop: loop cancelled. "+e.RalphLoop+" cannot run now", "the cancel is recorded")
		if n := len(w.rpc.Fake.MainRequests()); n != reqs {
			t.Errorf("%d model requests for /cancel-ralph, want none", n-reqs)
		}
		w.rpc.Fake.SetScript(Script{Turns: []Turn{Text("Still here.")}})
		w.send(t, "Are you there?", always)
		if n := len(e2e.Blocked(w.rpc.Fake)); n != 1 {
			t.Errorf("%d continuations, want 1 (none after the cancel)", n)
		}

		// The user puts ralph-loop back and says something: ralph-loop takes the cancel.
		if err := c.Back(e.RalphLoop); err != nil {
			t.Fatal(err)
		}
		w.rpc.Fake.SetScript(Script{Turns: []Turn{Text("Hi.")}})
		w.send(t, "Say hi", w.ended)
		e2e.CancelledByUser(t, w.Env)
		w.saw(t, "the /cancel-ralph you typed while ralph-loop could not run ended the loop")
	})
}
