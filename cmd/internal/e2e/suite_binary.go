package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// BinaryGone is a way the agent gets the binary the hooks run out of the way mid-loop,
// with Script, a shell script it writes and then runs (the guard does not read scripts:
// see docs/guard.md), and the way the user puts it back (Back, given the binary's path).
// Each host whose hooks run ralph-loop through a plugin or an extension of its own checks
// (TestBinaryGone) that the plugin, which cannot run ralph-loop then, answers by itself:
// the next stop continues the session with the reason and the loop stays ACTIVE
// (GoneBlocked); the user's /cancel-ralph, typed while the binary is still gone, is
// answered and blocks nothing more; and once the user has put the binary back,
// ralph-loop's next run ends the loop CANCELLED by the user (CancelledByUser).
type BinaryGone struct {
	Name   string
	Script string
	Back   func(bin string) error
}

// BinaryGones are the ways checked: the binary moved, and made unrunnable.
var BinaryGones = []BinaryGone{
	{
		Name: "moved", Script: "mv \"$(command -v ralph-loop)\" \"$HOME/x\"\n",
		Back: func(bin string) error { return os.Rename(filepath.Join(filepath.Dir(bin), "..", "home", "x"), bin) },
	},
	{
		Name: "made unrunnable", Script: "chmod -x \"$(command -v ralph-loop)\"\n",
		Back: func(bin string) error { return os.Chmod(bin, 0o755) },
	},
}

// EachBinaryGone runs check for each of BinaryGones, in a subtest of its own, on a fresh
// Env of s's host laid out by newEnv, whose ralph-loop is a copy of the suite's of the
// test's own, in the PATH directory (root/bin, the one the agent's script finds),
// installed by itself at user scope.
func EachBinaryGone[E Installer](t *testing.T, s *Suite, newEnv func(root, bin, ralphLoop string) (E, error), check func(t *testing.T, c BinaryGone, e E)) {
	for _, c := range BinaryGones {
		t.Run(c.Name, func(t *testing.T) {
			s.Need(t)
			root := t.TempDir()
			own := filepath.Join(root, "bin", "ralph-loop")
			e, err := newEnv(root, s.Bin, own)
			if err != nil {
				t.Fatal(err)
			}
			data := Read(t, s.RalphLoop)
			if err := WriteProgram(own, data); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Install(context.Background(), "user"); err != nil {
				t.Fatal(err)
			}
			check(t, c, e)
		})
	}
}

// Blocked are the continuations the agent got while ralph-loop could not run: the last
// message of an agent request, when it is a user message saying so.
func Blocked(f *fakechat.Fake) []string {
	var out []string
	for _, r := range f.MainRequests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "user" && strings.HasPrefix(m.Text, "ralph-loop: this session's loop is still active") {
			out = append(out, m.Text)
		}
	}
	return out
}

// GoneBlocked checks, after the agent's script ran, that the stop after it was blocked once,
// saying the hooks cannot run e's ralph-loop, and that the suite's ralph-loop (suiteBin,
// which reads the state while e's is gone) sees the one loop still ACTIVE.
func GoneBlocked(t testing.TB, f *fakechat.Fake, e *Base, suiteBin string) {
	t.Helper()
	if cont := Blocked(f); len(cont) != 1 || !strings.Contains(cont[0], "its hooks cannot run "+e.RalphLoop) {
		t.Errorf("continuations %q: want the stop after the binary went continued, saying why", cont)
	}
	probe := *e
	probe.RalphLoop = suiteBin
	loops, err := probe.Status(context.Background())
	if err != nil || len(loops) != 1 || loops[0].Status != "ACTIVE" {
		t.Errorf("loops while the binary is gone: %+v, %v; want one ACTIVE", loops, err)
	}
}

// CancelledByUser checks that e's one loop ended CANCELLED by the user.
func CancelledByUser(t testing.TB, e Host) {
	t.Helper()
	l := OnlyLoop(t, e)
	if l.Status != "CANCELLED" || l.EndedBy != "user" {
		t.Errorf("loop %s (%s, by %q) at %d/%d; want CANCELLED by the user", l.Status, l.EndReason, l.EndedBy, l.Iteration, l.MaxIterations)
	}
}

// Planted is where a guard test's agent writes a loop's file of its own: in ralph-loop's
// state directory under state (an Env's XDG_STATE_HOME).
func Planted(state string) string {
	return filepath.Join(state, "ralph-loop", "sessions", "planted", "loop.json")
}

// Denied checks that the agent's tool call that would write planted (see Planted) was
// denied: the file is not there, and the second agent request ends with the call's result
// (what, "the write"), which holds each of wants.
func Denied(t testing.TB, f *fakechat.Fake, planted, what string, wants ...string) {
	t.Helper()
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("%s reached the state directory: %v", what, err)
	}
	reqs := f.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d agent requests, want at least 2", len(reqs))
	}
	m := reqs[1].Messages[len(reqs[1].Messages)-1]
	if m.Role != "tool" {
		t.Fatalf("the second request does not end with %s's result: %s %q", what, m.Role, m.Text)
	}
	Contains(t, "the denied call's result", m.Text, wants...)
}
