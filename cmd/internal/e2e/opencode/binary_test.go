package opencode

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// On opencode (see e2e.BinaryGone), /cancel-ralph typed while the binary is gone lets the
// session go idle. Before, the plugin read the missing binary as "nothing to do": the
// session went idle and the loop stayed ACTIVE, with nothing said.
func TestBinaryGone(t *testing.T) {
	// A ralph-loop of the test's own: the one the agent moves.
	e2e.EachBinaryGone(t, &suite, NewEnv, func(t *testing.T, c e2e.BinaryGone, e *Env) {
		w := Serve(t, e, Script{Turns: []Turn{
			fakechat.Tool("Let me write a helper script.", "write", map[string]any{"filePath": filepath.Join(e.Project, "away.sh"), "content": c.Script}),
			Shell("Then run it.", "sh away.sh"),
			Text("Not done yet."),
			Shell("", "echo 2 >> step.txt"),
		}, MaxMain: 4})

		// The loop's turn: the stop after the binary went continues the session; the
		// turn after it ends on a model error (past the script), which is not a stop.
		id := w.Start(t, `!/ralph-loop "Keep going" --max-iterations 5`, w.Failed)
		e2e.GoneBlocked(t, w.Srv.Fake, &e.Base, suite.RalphLoop)
		w.Saw(t, "type /cancel-ralph to end the loop")

		// The user's /cancel-ralph, the binary still gone: the agent is asked to pass the
		// answer on, and its stop goes idle.
		w.Srv.Fake.SetScript(Script{Turns: []Turn{Text("The loop is cancelled.")}})
		w.Send(t, id, "!/cancel-ralph ", Always)
		reqs := w.Srv.Fake.MainRequests()
		contains(t, "what the agent got for /cancel-ralph", e2e.LastUser(t, w.Srv.Fake, len(reqs)-1), "Tell the user exactly the following", "the cancel is recorded")
		if n := len(e2e.Blocked(w.Srv.Fake)); n != 1 {
			t.Errorf("%d continuations, want 1 (none after the cancel)", n)
		}

		// The user puts ralph-loop back and says something: ralph-loop takes the cancel.
		if err := c.Back(e.RalphLoop); err != nil {
			t.Fatal(err)
		}
		w.Srv.Fake.SetScript(Script{Turns: []Turn{Text("Hi.")}})
		w.Send(t, id, "Say hi", w.Ended)
		e2e.CancelledByUser(t, w.Env)
		w.Saw(t, "the /cancel-ralph you typed while ralph-loop could not run ended the loop")
	})
}
