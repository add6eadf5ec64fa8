package inject

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// WatchNow says what an active loop waits for, from what the loop file holds, or how it ended.
func TestWatchNow(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.Local)
	until := at.Add(5 * time.Minute)
	active := func(f func(l *state.Loop)) *state.Loop {
		l := &state.Loop{Status: state.Active, Iteration: 3, LastAction: state.ActBlocked}
		l.MaxIterations = 6
		if f != nil {
			f(l)
		}
		return l
	}
	for _, c := range []struct {
		name string
		l    *state.Loop
		last string
		want string
	}{
		{"working", active(nil), state.ActBlocked, "the agent works on iteration 3"},
		{"armed", active(func(l *state.Loop) { l.Iteration, l.LastAction = 1, state.ActArmed }), state.ActArmed, "armed: the agent works on iteration 1"},
		{"checks running", active(nil), state.ActChecking, "the promise came: its checks run"},
		{"paused", active(func(l *state.Loop) {
			l.Pause = &state.Pause{At: at, Error: "rate_limit", Why: "the model's provider refused the turn (rate_limit)", Until: &until}
		}), state.ActPaused, "paused: the model's provider refused the turn (rate_limit), since 10:00:00 until 10:05:00"},
		{"queued cancel", active(func(l *state.Loop) { l.AwaitCancel = true }), state.ActBlocked,
			"a cancel typed while the agent worked is queued: the loop ends when the host hands it over, or goes on"},
		{"yielded", active(func(l *state.Loop) { l.Yielded = true }), state.ActYielded,
			"the stop was let through for your message; the loop goes on at the next stop (iteration 3)"},
		{"unverified", active(func(l *state.Loop) { l.Unverified = "loop.json was rewritten" }), "",
			"its state cannot be verified (loop.json was rewritten); only your cancel ends it"},
		{"ended", active(func(l *state.Loop) {
			l.Status, l.EndReason, l.EndedBy = state.PromiseAccepted, "promise found", state.ByPromise
		}), state.ActAccepted, "PROMISE_ACCEPTED at iteration 3/6: promise found (by ralph-loop, accepting the agent's promise)"},
	} {
		if got := WatchNow(c.l, c.last); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
