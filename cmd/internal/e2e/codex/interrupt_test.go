package codex

import (
	"context"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestSessionEnd: the end of codex exec (here after the model's API failed mid-loop, which
// ends the run) fires SessionEnd: the loop ends SESSION_ENDED, as on Claude Code, where it
// used to stay active with no session to run in; $ralph-loop --resume in the resumed session
// picks it up at the iteration it ended in.
func TestSessionEnd(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{Text("Working on it."), {Status: 400}}})
	r := run(t, env, "", `$ralph-loop "Make x.txt" --max-iterations 5`)
	endedThenResumed(t, env, r, "SESSION_ENDED", "the session ended (other)")
}

// endedThenResumed checks that the loop of r's session ended with status at iteration 2,
// for the reason why, and that $ralph-loop --resume in the session picks it up there and,
// after work, accepts the promise.
func endedThenResumed(t *testing.T, env *Env, r *Result, status, why string) {
	t.Helper()
	if r.SessionID == "" {
		t.Fatal("no session id")
	}
	l := loopOf(t, env, r.SessionID)
	expectLoop(t, l, status, 2, 0)
	if l.EndReason != why {
		t.Errorf("end reason %q", l.EndReason)
	}
	env.Fake.SetScript(Script{Turns: []Turn{Shell("echo hi > x.txt"), Text("Made x.txt. <promise>DONE</promise>")}})
	run(t, env, r.SessionID, `$ralph-loop --resume`)
	expectLoop(t, loopOf(t, env, r.SessionID), "PROMISE_ACCEPTED", 2, 1)
}

// TestInterrupt: Ctrl-C while the loop's second iteration waits for the model fires
// Interrupt (and no Stop): the loop ends CANCELLED by the user, resumable at that
// iteration, and no model request is made for it after; $ralph-loop --resume goes on there.
func TestInterrupt(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{Text("Working on it."), {Text: "Too late.", Delay: 20 * time.Second}}})
	r, err := env.ExecInterrupt(context.Background(), "", `$ralph-loop "Make x.txt" --max-iterations 5`, func() bool {
		return len(env.Fake.Requests()) >= 2
	})
	r = e2e.Dumped(t, r, err, func(r *Result) { dump(t, env, r) })
	if n := len(env.Fake.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the interrupted one the last)", n)
	}
	endedThenResumed(t, env, r, "CANCELLED", "the user interrupted the turn (Esc or Ctrl-C in Codex)")
}
