package hook

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
	"github.com/ralph-loop/ralph-loop/state"
)

// A turn the host's model provider refused (a rate limit, an overload, a usage cap,
// billing) pauses the loop: the host fires no stop for it (Claude Code fires StopFailure
// instead), so nothing is blocked, the turn uses up no iteration, and the loop waits, saying
// why and, where the provider's message says it, until when. The user's next prompt goes
// on with it (userTurn), and so does /ralph-loop --resume (resumable).

// Failure is what a host said of a turn its model's provider refused.
type Failure struct {
	// Error is the host's word for the failure ("rate_limit"; "" when it gives none), and
	// Message what it showed the user ("API Error: Request rejected (429) · …").
	Error, Message string
}

// Pause is the loop after a turn the model's provider refused, at now: still active, its
// iteration not used up, waiting for the user with why and, when f's message says it,
// until when. The turn has ended, so the host's count of blocks starts again.
func Pause(l state.Loop, f Failure, now time.Time) state.Loop {
	l.Pause = &state.Pause{At: now, Error: f.Error, Why: inject.PauseWhy(f.Error, f.Message), Until: until(f.Message, now)}
	l.BlocksSinceTool, l.BlocksInTurn = 0, 0
	l.UpdatedAt, l.LastSeenAt = now, now
	l.LastAction = state.ActPaused
	return l
}

// Resume is a paused loop going on at now, when the user's prompt (or --resume) comes.
func Resume(l state.Loop, now time.Time) state.Loop {
	l.Pause = nil
	l.UpdatedAt, l.LastSeenAt = now, now
	l.LastAction = state.ActResumed
	return l
}

// The ways a provider's message says when to try again: "try again in 30 seconds",
// "retry after 2 minutes", "resets in 1 hour"; a Unix time after "|" (Claude Code's "usage
// limit reached|1764259200"); an RFC 3339 time after "reset" or "until". They are compiled
// when a message is read, not at every hook's start.
var (
	inDuration = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:try again|retry|resets?|available again)(?: after| in)? (\d{1,6}) ?(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?)\b`)
	}}
	atUnix    = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`\|(\d{10})\b`) }}
	atRFC3339 = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:reset|until|after)\D{0,12}(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))`)
	}}
)

// until reads when a provider's message says the turn may be tried again, or nil when it
// says nothing it can read. Nothing is guessed: a time in the past, or more than a week
// ahead, is not taken.
func until(msg string, now time.Time) *time.Time {
	var t time.Time
	if m := inDuration.Get().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		unit := time.Second
		switch strings.ToLower(m[2])[0] {
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		}
		t = now.Add(time.Duration(n) * unit)
	} else if m := atUnix.Get().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		t = time.Unix(n, 0).UTC()
	} else if m := atRFC3339.Get().FindStringSubmatch(msg); m != nil {
		t, _ = time.Parse(time.RFC3339Nano, m[1])
		t = t.UTC()
	}
	if t.IsZero() || !t.After(now) || t.Sub(now) > 7*24*time.Hour {
		return nil
	}
	return &t
}

// failed pauses the session's active loop: the host says its model's provider refused the
// turn. Nothing is blocked (no stop comes for such a turn); the user is told, and notified
// when the loop asks for it.
func (e *engine) failed(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	st := e.judge(l)
	if st.refused() {
		e.notTaken("stop failure")
		return Reply{}
	}
	now := e.env.Now()
	f := Failure{Error: e.ev.Error, Message: e.ev.LastMessage}
	var paused *state.Loop
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active || duplicate(cur, e.ev.Key, e.began()) {
			return nil, nil
		}
		e.claim(cur, st)
		next := Pause(*cur, f, now)
		next.LastKey, next.LastKeyAt = e.ev.Key, now
		tx.Record(state.Event{At: now, LoopID: next.LoopID, Iteration: next.Iteration, Action: state.ActPaused, Reason: inject.ReasonPaused(next.Pause)})
		paused = &next
		return &next, nil
	})
	if err != nil {
		return e.stateError(err)
	}
	if paused == nil {
		return Reply{}
	}
	e.notify(paused)
	return Reply{Notice: inject.PausedNotice(paused, e.facts.Words)}
}

// interrupted ends the session's active loop when the user interrupts the agent's turn
// (Esc, Ctrl-C) on a host that fires no stop for it (Codex's Interrupt): the user asked
// the agent to stop, so the loop does, resumable with /ralph-loop --resume at the iteration
// it was in.
func (e *engine) interrupted(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	if e.judge(l).refused() {
		e.notTaken("interrupt")
		return Reply{}
	}
	done, err := finish(ctx, e.env, e.ev.SessionID, state.Cancelled, state.ByUser, state.ActInterrupt, inject.EndInterrupted(e.facts.Words), true)
	if err != nil {
		return e.stateError(err)
	}
	if done == nil {
		return Reply{}
	}
	return Reply{Notice: inject.Interrupted(done, e.facts.Words)}
}

// halted answers a turn the host ended with no stop (Halted: the user's Esc, an error it
// showed, its loop detector): nothing is decided, the iteration is not used up, and the
// loop waits for the user's next prompt, which goes on with it. The log and the user are
// told, the user with how to end the loop. The host's count of blocks starts again with
// the next turn.
func (e *engine) halted(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	if e.unverified != nil {
		return Reply{} // a loop that cannot be verified is told of at its next stop
	}
	st := e.judge(l)
	if st.refused() {
		e.notTaken("halted turn")
		return Reply{}
	}
	w := e.facts.Words
	var after *state.Loop
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active || cur.Paused() || duplicate(cur, e.ev.Key, e.began()) {
			return nil, nil
		}
		e.claim(cur, st)
		now := e.env.Now()
		cur.LastKey, cur.LastKeyAt, cur.LastSeenAt, cur.UpdatedAt = e.ev.Key, now, now, now
		cur.BlocksSinceTool, cur.BlocksInTurn = 0, 0
		cur.LastAction = state.ActTurnEnded
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActTurnEnded,
			Reason: inject.ReasonHalted(e.ev.Interrupted, e.ev.Error)})
		after = cur
		return cur, nil
	})
	if err != nil {
		return e.stateError(err)
	}
	if after == nil {
		return Reply{}
	}
	return Reply{Notice: inject.Halted(after, e.ev.Interrupted, e.ev.Error, w)}
}

// resumePaused takes the user's prompt in a session whose loop is paused: the loop goes on
// with it. It is called inside the session's transaction; it returns the user's notice.
func (e *engine) resumePaused(tx *state.Tx, cur *state.Loop, now time.Time) string {
	p := cur.Pause
	*cur = Resume(*cur, now)
	tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActResumed, Reason: inject.ReasonResumed(p)})
	return inject.ResumedNotice(cur, p, e.facts.Words)
}

// notify tells the user, outside the host, that the loop ended or paused, when the loop
// asks for it (--notify), and logs how it was told.
func (e *engine) notify(l *state.Loop) {
	if l == nil || !l.Notify || e.env.Notify == nil {
		return
	}
	how, err := e.env.Notify(inject.NotifyTitle(l), inject.NotifyBody(l), e.programs(l))
	_ = e.env.Store.AppendEvent(l.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActNotified,
		Reason: inject.ReasonNotified(how, err)})
}
