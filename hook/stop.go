package hook

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// stop answers the agent's attempt to end its turn. Read top to bottom: the first look (no
// loop, or not the loop's host: nothing to decide); under the session's lock (decideStop)
// observe (observeStop: the iteration's output, tool calls and usage, in observe.go),
// decide (decideOn: the verdict, Decide in decide.go) and write (writeStop: the
// checkpoint, the event log; the loop itself is saved by the transaction); the loop's
// checks when the promise needs them (recheck), decided again; and the reply that says the
// verdict to the agent and the user (stopReply, in reply.go).
func (e *engine) stop(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	start := e.env.Now()
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil || l.Status != state.Active {
		e.settle(ctx, l)
		return Reply{Notice: e.ended(ctx, l)}
	}
	if e.unverified != nil {
		return e.blockUnverified()
	}
	if l.Paused() {
		return Reply{} // a turn of the host's own while the loop waits for the user's prompt
	}
	st := e.judge(l)
	if st == standUnseen {
		// It may be the host's own stop: not let through, nor taken.
		n := inject.StopUnseen(e.unseen)
		fmt.Fprintln(e.env.Stderr, n)
		e.logBlocked(l, inject.ReasonUnseen("stop", e.who(), e.unseen))
		return Reply{Block: true, Reason: inject.Continuation(l, inject.Why{Kind: inject.BlockUnrecorded}, e.facts.Words), Notice: n}
	}
	if st.refused() {
		e.notTaken("stop")
		return Reply{}
	}
	e.env.Store.Touch(e.ev.SessionID)
	e.markInFlight()
	d, err := e.decideStop(ctx, st, start)
	if err != nil {
		return e.blockAnyway(l, d, err)
	}
	switch {
	case d.paused || !d.decided:
		return Reply{}
	case d.after.Yielded && d.after.AwaitCancel:
		return Reply{Notice: joinNotices(d.pending, inject.CancelQueued(&d.after, e.facts.Words))}
	case d.after.Yielded:
		return Reply{Notice: joinNotices(d.pending, inject.Yielded(&d.after, e.facts.Words))}
	}
	if d.verdict == NeedChecks {
		// The checks run without the lock (they may take minutes); then the decision is
		// made again with their results, if the loop is still the one they checked.
		if err := e.recheck(ctx, &d, start); err != nil {
			return e.blockAnyway(l, d, err)
		}
		if !d.decided {
			return Reply{} // cancelled or replaced meanwhile
		}
	}
	r := e.stopReply(d)
	if !d.verdict.Blocks() && d.verdict != Wait {
		e.notify(&d.after)
	}
	return r
}

// stopDecision is what the locked decision of a stop found and decided.
type stopDecision struct {
	verdict Verdict
	after   state.Loop // the loop as decided
	decided bool       // false: nothing to decide (ended meanwhile, a duplicate delivery)
	paused  bool       // the loop awaits the user's cancel: the stop is let through
	readErr error      // the transcript could not be read: decided on the last message alone
	unread  string     // why the transcript was not read to its end (the stop is blocked)
	partial bool       // blocked without the marker, not having read all of the agent's output
	other   string     // a different promise token the agent printed
	resumed bool       // the loop yielded to the user's message at the last stop
	pending string     // what the user has not been told yet
	why     string     // the event log's line for the decision
	// uncounted say why usage the host recorded was not counted (the event log says it).
	uncounted []string
	checks    []check.Result
	// interrupted: the host ended the last blocked turn (Esc) and a prompt of the user's
	// came since.
	interrupted bool
}

// decideStop makes the stop's decision under the session's lock, in three steps: what the
// agent did (observeStop), the verdict and the loop as it must be saved (decideOn), and
// what is written besides the loop (writeStop: the checkpoint, the event log).
func (e *engine) decideStop(ctx context.Context, st standing, start time.Time) (stopDecision, error) {
	var d stopDecision
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active || cur.Paused() || duplicate(cur, e.ev.Key, e.began()) {
			return nil, nil
		}
		e.claim(cur, st)
		e.refreshBinaries(cur)
		if cur.AwaitCancel {
			d.paused = true
			e.awaitingCancel(tx, cur, start)
			return cur, nil
		}
		o := e.observeStop(cur, start)
		d = e.decideOn(cur, &o, start)
		e.writeStop(tx, cur, &d, &o, start)
		return &d.after, nil
	})
	return d, err
}

// awaitingCancel lets a stop through while the loop is paused for a /cancel-ralph the
// transcript showed, with no prompt of the user's since: this turn is the host's own (a
// background command's notification), not the loop's, and the loop stays paused.
func (e *engine) awaitingCancel(tx *state.Tx, cur *state.Loop, start time.Time) {
	cur.LastKey, cur.LastKeyAt, cur.LastSeenAt = e.ev.Key, e.env.Now(), e.env.Now()
	tx.Record(state.Event{At: start, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActYielded,
		Reason: inject.ReasonPausedStop(CommandCancel)})
}

// observeStop is what the agent did in the iteration that just ended (observe), with the
// work tree recorded where the stall breaker or a checkpoint needs it.
func (e *engine) observeStop(cur *state.Loop, start time.Time) observed {
	o := observe(e.env, e.facts, cur, e.ev, start)
	recordWork(e.env, cur, &o)
	return o
}

// decideOn decides the stop on what was observed: the verdict (Decide) and the loop as it
// must be saved, with how far the transcript and the tool log were read, whether the
// transcript showed the end of the turn (turnSeen), what the agent is told it lacked, and
// whether a message the user typed while the agent worked is answered first (queuedByUser).
// d.why is the line the event log gets.
func (e *engine) decideOn(cur *state.Loop, o *observed, start time.Time) stopDecision {
	d := stopDecision{readErr: o.err, unread: o.Unread, resumed: cur.Yielded, interrupted: cur.LastAction == state.ActTurnEnded}
	d.verdict, d.after = Decide(*cur, o.Observation)
	for _, p := range d.after.Pending[len(cur.Pending):] {
		if p.What == state.ActUncounted {
			d.uncounted = append(d.uncounted, p.Why)
		}
	}
	d.after.Transcript = o.pos
	d.after.Recorded = d.after.Recorded || o.recorded
	d.after.Missed = ""
	d.after.ToolsOffset = o.toolsOffset
	d.after.Yielded = false
	d.after.LastKey, d.after.LastKeyAt, d.after.Turn = e.ev.Key, e.env.Now(), e.ev.Turn
	d.decided = true
	e.turnSeen(&d, o, start)
	d.why = eventReason(d.verdict, &d.after, nil)
	switch {
	case d.verdict == Continue && o.Unread != "":
		d.why = inject.ReasonUnread(&d.after, o.Unread)
	case d.verdict == Continue && o.HasOther:
		d.other = promise.Marker(o.Other)
		d.why = inject.ReasonOtherToken(&d.after, d.other)
	}
	d.pending = takePending(&d.after, e.facts.Words)
	e.queuedByUser(&d, cur, o.queued)
	if o.note != "" {
		d.why += " (" + o.note + ")"
	}
	if d.verdict == NeedChecks {
		d.after.LastAction = state.ActChecking
	}
	return d
}

// turnSeen keeps, in the loop as decided, whether the transcript showed the end of the
// turn. When it did not yet, what it adds is this iteration's (stamped by this stop's
// start; its text does not count for the next one), and its usage is counted once written
// (by the next stop, or settle once the loop has ended). Blocked without the marker, the
// agent is told that only part of its output was read (d.partial), and a marker in the
// rest counts at the next stop (LateMarker, see observed.take); a marker this stop saw
// never counts twice.
func (e *engine) turnSeen(d *stopDecision, o *observed, start time.Time) {
	t := &d.after.Transcript
	t.Unseen = e.facts.transcript().Lags && (e.ev.LastMessage != "" || e.ev.TurnMark != "") && !o.sawLast
	t.LateMarker = t.Unseen && d.verdict == Continue && o.Unread == ""
	t.UnseenAt = time.Time{}
	if t.Unseen {
		t.UnseenAt = start
	}
	d.partial = o.partial && d.verdict == Continue && o.Unread == ""
	if d.partial && o.lagging {
		o.note = inject.NotePartial
	}
}

// queuedByUser answers first what the user typed while the agent worked (queued, as the
// transcript shows it), when the stop would be blocked: the stop is let through and the
// iteration is not used up (yielded).
//
//   - /cancel-ralph: the host hands it over as the user's prompt once the stop is let
//     through, which ends the loop. A line in the transcript alone ends nothing (anything
//     can write one): if the next prompt is not the cancel, the loop goes on.
//   - any other message: it is answered as its own turn; the loop goes on at the next stop.
func (e *engine) queuedByUser(d *stopDecision, cur *state.Loop, queued []string) {
	if !d.verdict.Blocks() {
		return
	}
	cancel, message := false, ""
	for _, q := range queued {
		if c, ok, _ := e.command(q); ok && c.Name == CommandCancel {
			cancel = true
		} else if message == "" {
			message = q
		}
	}
	switch {
	case cancel:
		d.after = yielded(*cur, d.after)
		d.after.AwaitCancel = true
		d.why = inject.ReasonCancelQueued(CommandCancel, &d.after)
	case message != "":
		d.after = yielded(*cur, d.after)
		d.why = inject.ReasonYielded(&d.after)
	}
}

// writeStop writes what the decision makes besides the loop itself: the iteration's
// checkpoint (with --checkpoint; a wait ends no iteration), and the event log's lines
// (usage that could not be counted, then the decision).
func (e *engine) writeStop(tx *state.Tx, cur *state.Loop, d *stopDecision, o *observed, start time.Time) {
	for _, why := range d.uncounted {
		tx.Record(state.Event{At: start, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActUncounted,
			Reason: inject.ReasonUncounted(why)})
	}
	checkpoint := ""
	if d.verdict != Wait {
		checkpoint = recordCheckpoint(e.env, &d.after, cur.Iteration, o.Tree)
	}
	tx.Record(spentIn(state.Event{At: start, LoopID: d.after.LoopID, Iteration: cur.Iteration, Action: d.after.LastAction, Reason: d.why,
		Checkpoint: checkpoint}, cur.Spent, d.after.Spent))
}

// recheck runs the loop's checks for a promise that needs them, then decides again with
// their results, if the loop is still the one they checked (d.decided is false if not).
func (e *engine) recheck(ctx context.Context, d *stopDecision, start time.Time) error {
	d.checks = e.runChecks(ctx, &d.after, start)
	checked := d.after
	d.decided = false
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.LoopID != checked.LoopID || cur.Status != state.Active || cur.Iteration != checked.Iteration {
			return nil, nil // cancelled or replaced meanwhile
		}
		now := e.env.Now()
		for _, r := range d.checks {
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActCheck,
				Reason: inject.ReasonCheck(r.Index, r.Total, r.Command, r.Describe(), r.LogPath)})
		}
		d.verdict, d.after = Decide(*cur, Observation{Now: now, Found: true, BlockCap: e.facts.BlockCap,
			HostBlocks: e.ev.HostBlocks, Words: e.facts.Words, Checks: d.checks})
		d.decided = true
		tx.Record(state.Event{At: now, LoopID: d.after.LoopID, Iteration: cur.Iteration, Action: d.after.LastAction,
			Reason: eventReason(d.verdict, &d.after, d.checks)})
		return &d.after, nil
	})
	return err
}

func spentIn(ev state.Event, before, now spend.Spent) state.Event {
	d := now.Minus(before)
	if d.Total() == 0 && d.CostUSD == 0 {
		return ev
	}
	ev.Tokens = d.Total()
	if d.CostKnown() && now.CostKnown() {
		c := d.CostUSD
		ev.CostUSD = &c
	}
	return ev
}

// yielded is the loop after a stop let through for the user's message: what the decision
// counted (tool calls, how far the transcript was read) is kept, but the iteration is not
// used up.
func yielded(before, decided state.Loop) state.Loop {
	l := decided
	l.Iteration = before.Iteration
	// The stop ends the host's turn: the user's message starts a new one (which fires no
	// prompt hook when it was typed in the running turn), so the host's count of blocks
	// starts again.
	l.BlocksSinceTool = 0
	l.BlocksInTurn = 0
	l.WindowStart = before.WindowStart
	// The iteration goes on: what it did for the stall breaker so far is kept for its end.
	l.Work.Stalls, l.Work.Moved = before.Work.Stalls, decided.Work.Stalls == 0
	l.Yielded = true
	l.LastAction = state.ActYielded
	return l
}

// runChecks runs the loop's checks in its directory, within the Stop hook's timeout.
func (e *engine) runChecks(ctx context.Context, l *state.Loop, start time.Time) []check.Result {
	timeout := e.stopTimeout()
	if timeout <= 0 {
		timeout = 600 * time.Second
	}
	prefix := filepath.Join(e.env.Store.SessionDir(l.SessionID), "checks", fmt.Sprintf("%s-iteration-%d", l.LoopID, l.Iteration))
	return check.Run(ctx, l.Checks, check.Options{
		Dir:       l.Cwd,
		Timeout:   time.Duration(l.CheckTimeout),
		Deadline:  time.Now().Add(timeout - 10*time.Second - e.env.Now().Sub(start)),
		LogPrefix: prefix,
		TailChars: l.CheckOutputChars,
		Sandbox:   stopSandbox(e.env, l),
	})
}
