package hook

import (
	"context"
	"fmt"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// settle counts what the last turn of a session's ended loop used, when the host wrote it to
// its transcript after the stop that ended the loop (state.TranscriptPos.Unseen: the stop
// was decided at once, not waiting for it). It runs at the session's next event (a prompt,
// a stop, the session's start or end) and in status, so that the loop's totals are the
// host's whole record. Nothing happens for an active loop, or one with nothing pending.
func (e *engine) settle(ctx context.Context, l *state.Loop) {
	if !pendingUsage(l) || e.facts.transcript().Read == nil {
		return
	}
	if err := Settle(ctx, e.env, e.facts, e.ev.SessionID); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
}

// pendingUsage reports whether an ended loop's last turn has not been read yet.
func pendingUsage(l *state.Loop) bool {
	return l != nil && l.Status != state.Active && l.Transcript.Unseen && l.Transcript.Path != "" && l.EndedAt != nil
}

// Settle counts the last turn's usage of the session's ended loop, written to the host's
// transcript after the loop ended (see settle), under the session's lock: the usage
// records read from where the last stop stopped, stamped by the loop's end, give or take
// spend.Skew (what the host wrote later is another turn's), each screened as a stop's are
// (spend.Ledger.Screen). It is done once: a transcript that shows nothing more counts
// nothing.
func Settle(ctx context.Context, env Env, facts Facts, sessionID string) error {
	env.defaults()
	if facts.transcript().Read == nil {
		return nil
	}
	_, err := update(ctx, env, sessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if !pendingUsage(cur) {
			return nil, nil
		}
		settleLoop(env, facts.Transcript.Read, tx, cur)
		return cur, nil
	})
	return err
}

func settleLoop(env Env, tr TranscriptReader, tx *state.Tx, l *state.Loop) {
	pos := l.Transcript
	l.Transcript.Unseen = false
	res, err := tr.Scan(pos.Path, pos.Offset, transcript.Options{UsageSeen: pos.UsageID, Model: pos.Model,
		MaxRead: env.MaxRead, Deadline: time.Now().Add(readTime), InLine: pos.InLine})
	if err != nil {
		return // the transcript shows nothing more
	}
	end := *l.EndedAt
	var late []spend.Record
	for _, r := range res.Usage {
		if !r.At.IsZero() && !r.At.After(end.Add(spend.Skew)) {
			late = append(late, r)
		}
	}
	before := l.Spent
	var counted []spend.Record
	var not []string
	l.Ledger, counted, not = l.Ledger.Screen(late, l.StartedAt, end.Add(spend.Skew))
	l.Spent = l.Spent.Add(counted, l.Prices)
	now := env.Now()
	for _, why := range not {
		tx.Record(state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActUncounted, Reason: inject.ReasonUncounted(why)})
	}
	if len(counted) > 0 {
		tx.Record(spentIn(state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActUsage,
			Reason: inject.ReasonLateUsage}, before, l.Spent))
	}
}
