package pi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The binary the extension runs, got out of the way by the agent mid-loop (moved, or made
// unrunnable) with a script it writes and then runs (the guard does not read scripts: see
// docs/guard.md): the extension cannot run ralph-loop, and answers by itself. The next stop
// must continue the session with the reason, the user be told why, and the loop stay
// ACTIVE; the user's /cancel-ralph, typed while the binary is still gone, is answered and
// lets the next stop end the run, and once the user has put the binary back, ralph-loop's
// next run ends the loop CANCELLED by the user. Before, the extension read a missing binary
// as "nothing to do" (and an unrunnable one as an error): the run ended and the loop stayed
// ACTIVE, with nothing said of the loop.
func TestBinaryGone(t *testing.T) {
	cases := []struct {
		name   string
		script string                 // the agent's
		back   func(bin string) error // the user's
	}{
		{
			name: "moved", script: "mv \"$(command -v ralph-loop)\" \"$HOME/x\"\n",
			back: func(bin string) error { return os.Rename(filepath.Join(filepath.Dir(bin), "..", "home", "x"), bin) },
		},
		{
			name: "made unrunnable", script: "chmod -x \"$(command -v ralph-loop)\"\n",
			back: func(bin string) error { return os.Chmod(bin, 0o755) },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			suite.Need(t)
			root := t.TempDir()
			// A ralph-loop of the test's own, in the PATH directory, installed by itself: the
			// one the agent moves.
			e, err := NewEnv(root, suite.Bin, filepath.Join(root, "bin", "ralph-loop"))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(suite.RalphLoop)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(e.RalphLoop, data, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Install(context.Background(), "user"); err != nil {
				t.Fatal(err)
			}
			// The suite's binary reads the state while the test's is gone.
			probe := *e
			probe.RalphLoop = suite.RalphLoop
			// The turn after the stop's continuation ends on a model error (past the script),
			// which is not a stop.
			w := start(t, e, Script{Turns: []Turn{
				Write("Let me write a helper script.", filepath.Join(e.Project, "away.sh"), c.script),
				Shell("Then run it.", "sh away.sh"),
				Text("Not done yet."),
			}, MaxMain: 3})

			w.send(t, `/ralph-loop "Keep going" --max-iterations 5`, always)
			if cont := blocked(w.rpc.Fake); len(cont) != 1 || !strings.Contains(cont[0], "its hooks cannot run "+e.RalphLoop) {
				t.Errorf("continuations %q: want the stop after the binary went continued, saying why", cont)
			}
			if _, err := os.Stat(e.RalphLoop); c.name == "moved" && err == nil {
				t.Fatal("the binary was not moved")
			}
			loops, err := probe.Status(context.Background())
			if err != nil || len(loops) != 1 || loops[0].Status != "ACTIVE" {
				t.Errorf("loops while the binary is gone: %+v, %v; want one ACTIVE", loops, err)
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
			if n := len(blocked(w.rpc.Fake)); n != 1 {
				t.Errorf("%d continuations, want 1 (none after the cancel)", n)
			}

			// The user puts ralph-loop back and says something: ralph-loop takes the cancel.
			if err := c.back(e.RalphLoop); err != nil {
				t.Fatal(err)
			}
			w.rpc.Fake.SetScript(Script{Turns: []Turn{Text("Hi.")}})
			w.send(t, "Say hi", w.ended)
			l := onlyLoop(t, w.Env)
			if l.Status != "CANCELLED" || l.EndedBy != "user" {
				t.Errorf("loop %s (%s, by %q) at %d/%d; want CANCELLED by the user", l.Status, l.EndReason, l.EndedBy, l.Iteration, l.MaxIterations)
			}
			w.saw(t, "the /cancel-ralph you typed while ralph-loop could not run ended the loop")
		})
	}
}

// blocked are the continuations the agent got while ralph-loop could not run: the last
// message of an agent request, when it is a user message saying so.
func blocked(f *Fake) []string {
	var out []string
	for _, r := range f.MainRequests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "user" && strings.HasPrefix(m.Text, "ralph-loop: this session's loop is still active") {
			out = append(out, m.Text)
		}
	}
	return out
}
