package hook

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// stop answers the agent's attempt to end its turn. Read top to bottom: the first look (no
// loop, or not the loop's host: nothing to decide), the decision under the session's lock
// (decideStop), the loop's checks when the promise needs them (recheck), and the reply
// that says the verdict to the agent and the user (stopReply).
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
	if !d.verdict.Blocks() {
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
	checks  []check.Result
	// interrupted: the host ended the last blocked turn (Esc) and a prompt of the user's
	// came since.
	interrupted bool
}

// decideStop makes the stop's decision under the session's lock: what the agent did
// (observe), the verdict (Decide), and whether a message the user typed while the agent
// worked is answered first.
func (e *engine) decideStop(ctx context.Context, st standing, start time.Time) (stopDecision, error) {
	var d stopDecision
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active || cur.Paused() || duplicate(cur, e.ev.Key, e.began()) {
			return nil, nil
		}
		e.claim(cur, st)
		e.refreshBinaries(cur)
		if cur.AwaitCancel {
			// Paused for a /cancel-ralph the transcript showed, and no prompt of the user's
			// has come since: this turn is the host's own (a background command's
			// notification), not the loop's. It is let through, and the loop stays paused.
			d.paused = true
			cur.LastKey, cur.LastKeyAt, cur.LastSeenAt = e.ev.Key, e.env.Now(), e.env.Now()
			tx.Record(state.Event{At: start, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActYielded,
				Reason: inject.ReasonPausedStop(CommandCancel)})
			return cur, nil
		}
		o := observe(e.env, e.facts, cur, e.ev, start)
		recordWork(e.env, cur, &o)
		d.readErr, d.unread = o.err, o.Unread
		cancel, yield := false, "" // the cancel command, or a prompt, the user typed while the turn ran
		for _, q := range o.queued {
			if c, ok, _ := e.command(q); ok && c.Name == CommandCancel {
				cancel = true
			} else if yield == "" {
				yield = q
			}
		}
		d.resumed = cur.Yielded
		d.interrupted = cur.LastAction == state.ActTurnEnded
		d.verdict, d.after = Decide(*cur, o.Observation)
		for _, p := range d.after.Pending[len(cur.Pending):] {
			if p.What == state.ActUncounted {
				tx.Record(state.Event{At: start, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActUncounted,
					Reason: inject.ReasonUncounted(p.Why)})
			}
		}
		d.after.Transcript = o.pos
		d.after.ToolsOffset = o.toolsOffset
		d.after.Yielded = false
		d.after.LastKey, d.after.LastKeyAt, d.after.Turn = e.ev.Key, e.env.Now(), e.ev.Turn
		d.decided = true
		checkpoint := recordCheckpoint(e.env, &d.after, cur.Iteration, o.Tree)
		blocks := d.verdict.Blocks()
		// The transcript does not show the end of the turn yet: what it adds is this
		// iteration's (stamped by this stop's start; its text does not count for the next
		// one), and its usage is counted once written (by the next stop, or settle once the
		// loop has ended). Blocked without the marker, the agent is told that only part of
		// its output was read (partial), and a marker in the rest counts at the next stop
		// (LateMarker, see observed.take); a marker this stop saw never counts twice.
		d.after.Transcript.Unseen = e.facts.transcript().Lags && (e.ev.LastMessage != "" || e.ev.TurnMark != "") && !o.sawLast
		d.after.Transcript.LateMarker = d.after.Transcript.Unseen && d.verdict == Continue && o.Unread == ""
		d.after.Transcript.UnseenAt = time.Time{}
		if d.after.Transcript.Unseen {
			d.after.Transcript.UnseenAt = start
		}
		d.partial = o.partial && d.verdict == Continue && o.Unread == ""
		if d.partial && o.lagging {
			o.note = inject.NotePartial
		}
		reason := eventReason(d.verdict, &d.after, nil)
		switch {
		case d.verdict == Continue && o.Unread != "":
			reason = inject.ReasonUnread(&d.after, o.Unread)
		case d.verdict == Continue && o.HasOther:
			d.other = promise.Marker(o.Other)
			reason = inject.ReasonOtherToken(&d.after, d.other)
		}
		d.pending = takePending(&d.after, e.facts.Words)
		switch {
		case blocks && cancel:
			// The transcript shows /cancel-ralph queued while the agent worked: the stop is
			// let through so that the host hands it over as the user's prompt, which ends
			// the loop. A line in the transcript alone ends nothing (anything can write
			// one): if the next prompt is not the cancel, the loop goes on.
			d.after = yielded(*cur, d.after)
			d.after.AwaitCancel = true
			reason = inject.ReasonCancelQueued(CommandCancel, &d.after)
		case blocks && yield != "":
			// The user typed a message while the agent worked: let this stop through so
			// that it is answered as its own turn; the loop goes on at the next stop, and
			// the iteration that was blocked is not used up.
			d.after = yielded(*cur, d.after)
			reason = inject.ReasonYielded(&d.after)
		}
		if o.note != "" {
			reason += " (" + o.note + ")"
		}
		if d.verdict == NeedChecks {
			d.after.LastAction = state.ActChecking
		}
		tx.Record(spentIn(state.Event{At: start, LoopID: d.after.LoopID, Iteration: cur.Iteration, Action: d.after.LastAction, Reason: reason,
			Checkpoint: checkpoint}, cur.Spent, d.after.Spent))
		return &d.after, nil
	})
	return d, err
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

// stopReply says a stop's verdict: to the agent, the reason it goes on (a block); to the
// user, a notice.
func (e *engine) stopReply(d stopDecision) Reply {
	var warning string
	if d.readErr != nil {
		warning = inject.TranscriptUnread(d.readErr)
		fmt.Fprintln(e.env.Stderr, warning)
	}
	join := func(s string) string {
		if warning != "" {
			s += " (" + warning + ")"
		}
		return joinNotices(d.pending, s)
	}
	after, w := &d.after, e.facts.Words
	switch d.verdict {
	case Continue, ContinueNoWork, ContinueCheckFailed, ContinueEarly:
		why := inject.Why{Kind: inject.BlockNoPromise, Check: failedCheck(d.checks), Resumed: d.resumed}
		switch {
		case d.verdict == ContinueNoWork:
			why.Kind = inject.BlockNoWork
		case d.verdict == ContinueEarly:
			why.Kind = inject.BlockEarly
		case d.verdict == ContinueCheckFailed:
			why.Kind = inject.BlockCheckFailed
		case d.unread != "":
			why.Kind, why.Unread = inject.BlockUnread, d.unread
		case d.other != "":
			why.Kind, why.Other = inject.BlockWrongToken, d.other
		default:
			why.Partial = d.partial
		}
		n := inject.BlockNotice(after, why)
		if w.HidesPromptNotice && after.Iteration == 2 {
			// The user never saw the arming notice: its warning comes with the first block.
			if cw := inject.CapWarning(after, w, e.facts.BlockCap); cw != "" {
				n += ". " + cw
			}
		}
		if w.QueuesCommands && d.interrupted {
			n += "; " + inject.AfterInterrupt(after, w)
		} else if w.QueuesCommands && after.Iteration == 2 {
			n += ". " + inject.EscHint(w)
		}
		if w.BlockLabel != "" && after.Iteration == 2 {
			n += " " + inject.BlockLabelNote(w)
		}
		if e.facts.transcript().StopsWithoutReply && !w.QueuesCommands && after.Iteration == 2 {
			// Gemini CLI: a slash command typed while the agent works is refused, and Esc
			// (a stop with no reply) ends the loop.
			n += "; " + inject.EscEnds(w)
		}
		return Reply{Block: true, Reason: inject.Continuation(after, why, w), Notice: join(n)}
	case Accept:
		return Reply{Notice: join(inject.Accepted(after))}
	case MaxIterations:
		return Reply{Notice: join(inject.MaxReached(after))}
	case TimeBudget:
		return Reply{Notice: join(inject.TimeUp(after))}
	case Budget:
		return Reply{Notice: join(inject.BudgetOut(after))}
	case PausedForPrice:
		return Reply{Notice: join(inject.PausedForPrice(after, w))}
	case CutByHost:
		return Reply{Notice: join(inject.CutByHost(after, w, e.facts.BlockCap))}
	case NoProgress:
		return Reply{Notice: join(inject.NoProgress(after, w))}
	case Stalled:
		return Reply{Notice: join(inject.Stalled(after, w))}
	}
	return Reply{}
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

// blockAnyway answers a stop of an active loop (l, as it stood before the stop) whose state
// could not be read, reached or saved (err): the stop is blocked, never let through nor the
// loop ended, and the user is told why. When the decision to block was made (d) and only
// saving it failed (a full disk), the stop is blocked as decided; otherwise as the loop
// stood. The host's own cap on blocked stops, and the user's cancel, end it.
func (e *engine) blockAnyway(l *state.Loop, d stopDecision, err error) Reply {
	w := e.facts.Words
	if d.decided && d.verdict.Blocks() && errors.Is(err, state.ErrWrite) {
		n := inject.WriteFailed(err)
		fmt.Fprintln(e.env.Stderr, n)
		why := inject.Why{Kind: inject.BlockNoPromise}
		switch d.verdict {
		case ContinueNoWork:
			why.Kind = inject.BlockNoWork
		case ContinueEarly:
			why.Kind = inject.BlockEarly
		}
		return Reply{Block: true, Reason: inject.Continuation(&d.after, why, w), Notice: n}
	}
	n := inject.StopUnrecorded(err)
	fmt.Fprintln(e.env.Stderr, n)
	e.logBlocked(l, inject.ReasonUnrecorded(err))
	return Reply{Block: true, Reason: inject.Continuation(l, inject.Why{Kind: inject.BlockUnrecorded}, w), Notice: n}
}

// logBlocked records, without the session's lock, a stop blocked as loop l stood.
func (e *engine) logBlocked(l *state.Loop, why string) {
	if err := e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration,
		Action: state.ActError, Reason: why}); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
}

// blockUnverified blocks a stop of a session whose loop is active but cannot be verified:
// nothing its files say is taken (neither an end nor a promise), the agent goes on, and the
// user is told what was changed and how to end the loop.
func (e *engine) blockUnverified() Reply {
	u := e.unverified
	n := inject.UnverifiedNotice(u.Why, e.facts.Words, true)
	fmt.Fprintln(e.env.Stderr, n)
	if err := e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: u.LoopID, Action: state.ActUnverified,
		Reason: inject.ReasonUnverified(u.Why)}); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	return Reply{Block: true, Reason: inject.UnverifiedReason(u.Why, e.facts.Words), Notice: n}
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
		Wall:      stopWall(e.env, l),
	})
}

// failedCheck describes the failed check for the agent, if one failed.
func failedCheck(rs []check.Result) *inject.CheckFailure {
	if len(rs) == 0 || rs[len(rs)-1].Passed() {
		return nil
	}
	r := rs[len(rs)-1]
	return &inject.CheckFailure{Index: r.Index, Total: r.Total, Command: r.Command, Outcome: r.Describe(), Tail: r.Tail, LogPath: r.LogPath}
}

// eventReason is the log line of a stop decision.
func eventReason(v Verdict, l *state.Loop, checks []check.Result) string {
	switch v {
	case NeedChecks:
		return inject.ReasonChecking(l)
	case ContinueCheckFailed:
		return inject.ReasonCheckFailed(l, failedCheck(checks))
	case Continue:
		return inject.ReasonBlocked(l)
	case ContinueNoWork:
		return inject.ReasonNoWork(l)
	case ContinueEarly:
		return inject.ReasonEarly(l)
	case PausedForPrice:
		return inject.ReasonPausedPrice(l)
	}
	return inject.ReasonEnded(l, v == Accept)
}

// observed is what observe found.
type observed struct {
	Observation
	pos         state.TranscriptPos
	toolsOffset int64
	// sawLast: the transcript showed the host's last message; queued are prompts the user
	// typed while the turn ran, in order.
	sawLast bool
	queued  []string
	// partial: the agent's output may hold text this stop did not read (the host hands over
	// only the end of it, and the transcript did not show the rest); lagging: the transcript
	// is there but did not show the last message, and the stop did not wait for it.
	partial, lagging bool
	// late: the marker was in the end of the last iteration, which reached the transcript
	// after its stop blocked without finding one (state.TranscriptPos.LateMarker).
	late bool
	// seenTools are the tool calls the transcript shows since the last decision, whether or
	// not they count from there (Transcript.Tools): with Transcript.ToolLogLags, the calls
	// the tool log should hold.
	seenTools []string
	// note says what the transcript contributed, for the event log.
	note string
	// err is a failure to read the transcript or the tool log; the decision is made
	// without them.
	err error
}

// observe gathers what the agent did in the iteration that just ended: the promise in the
// host's last message or in any text block the transcript holds since the last decision,
// and the tool calls the tool log and the transcript show. When a block looks likely and
// the transcript does not yet hold the last message (the host writes it asynchronously),
// it waits a bounded time for the transcript to catch up before deciding.
func observe(env Env, facts Facts, l *state.Loop, ev Event, now time.Time) observed {
	last := ev.LastMessage
	if ev.HasText {
		last = ev.Text
	}
	o := observed{
		Observation: Observation{
			Now:        now,
			Found:      promise.ContainsMode(last, l.CompletionPromise, promise.Mode(l.PromiseMatch)),
			BlockCap:   facts.BlockCap,
			HostBlocks: ev.HostBlocks,
			Words:      facts.Words,
		},
		pos: l.Transcript,
	}
	o.Other, o.HasOther = promise.Other(last, l.CompletionPromise)
	o.Logged, o.toolsOffset, o.err = env.Store.ToolUses(l)
	o.Usage = ev.Usage
	if facts.transcript().Read == nil || ev.HasText {
		return o
	}
	o.readTranscript(env, facts, l, ev, now)
	if facts.transcript().ToolLogLags && o.err == nil {
		o.awaitTools(env, l, now)
	}
	return o
}

// awaitTools waits for the tool calls the transcript shows and the tool log does not hold
// yet (the host logs them in the background: Transcript.ToolLogLags), for at most
// env.ToolWait after now, and only where counting them could change the decision (a
// promise that lacks work without them, a stall they would break, the host's block cap
// they would reset) or the stop ends the loop (no later stop would count them, and the
// loop's count would stay short). Otherwise the stop is decided at once, and the next one
// counts them as they come. A call still missing at the end is one the host refused before
// it ran (it fires no tool hook): it never counts.
func (o *observed) awaitTools(env Env, l *state.Loop, now time.Time) {
	missing := o.unlogged(l)
	if len(missing) == 0 {
		return
	}
	if !o.toolsMatter(l, missing) {
		o.note = joinNote(o.note, inject.NoteToolsLate(len(missing)))
		return
	}
	deadline := now.Add(env.ToolWait)
	for env.Now().Before(deadline) {
		env.Sleep(5 * time.Millisecond)
		logged, offset, err := env.Store.ToolUses(l)
		if err != nil {
			o.err = err
			return
		}
		o.Logged, o.toolsOffset = logged, offset
		if missing = o.unlogged(l); len(missing) == 0 {
			o.note = joinNote(o.note, inject.NoteToolsWaited(env.Now().Sub(now).Round(time.Millisecond)))
			return
		}
	}
	o.note = joinNote(o.note, inject.NoteToolsNotLogged(len(missing), env.ToolWait))
}

// unlogged are the tool calls of seenTools that neither the tool log nor the loop's count
// holds. A tool the model's API ran itself (server_tool_use, its id "srvtoolu_…") fires no
// tool hook: it is never waited for.
func (o *observed) unlogged(l *state.Loop) []string {
	var ids []string
	for _, id := range o.seenTools {
		if id == "" || strings.HasPrefix(id, "srvtoolu_") || slices.Contains(l.ToolIDs, id) ||
			slices.ContainsFunc(o.Logged, func(u state.ToolUse) bool { return u.ToolUseID == id }) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// toolsMatter reports whether counting the tool calls ids would change the stop's verdict,
// or the verdict without them lets the stop through.
func (o *observed) toolsMatter(l *state.Loop, ids []string) bool {
	without, _ := Decide(*l, o.Observation)
	with := o.Observation
	with.ToolIDs = append(slices.Clip(with.ToolIDs), ids...)
	v, _ := Decide(*l, with)
	return v != without || !without.Blocks()
}

// readTranscript adds what the transcript holds since the last decision: the promise in
// any text block, tool calls, the user's queued prompts and the model's usage. When the
// transcript does not show the agent's last message yet (the host writes it late), it
// reads again, for a bounded time, until it does.
func (o *observed) readTranscript(env Env, facts Facts, l *state.Loop, ev Event, now time.Time) {
	tr := facts.Transcript.Read
	path := ev.TranscriptPath
	if path == "" {
		path = o.pos.Path
	}
	if path == "" {
		return
	}
	if path != o.pos.Path {
		o.pos = state.TranscriptPos{Path: path, Offset: -1}
	}
	// Text counts by its place in the transcript: after where the last decision stopped
	// reading (and, when that decision did not see the agent's last message yet, after the
	// next user line). Only when that place is not known are the lines' times used.
	var textAfter time.Time
	if o.pos.Offset < 0 {
		textAfter = l.StartedAt
		start, err := tr.OffsetAfter(path, l.StartedAt)
		switch {
		case errors.Is(err, transcript.ErrBound):
			o.Unread = inject.UnreadBack
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			o.err = fmt.Errorf("read transcript %s: %w", path, err)
			return
		}
		o.pos.Offset, o.pos.InLine = start, false
	}
	waitFor := ev.LastMessage
	if waitFor == "" {
		waitFor = ev.TurnMark
	}
	opt := transcript.Options{
		Token:      l.CompletionPromise,
		Mode:       promise.Mode(l.PromiseMatch),
		TextAfter:  textAfter,
		ToolsAfter: textAfter,
		SkipToUser: o.pos.Unseen,
		LateUntil:  o.pos.UnseenAt,
		Last:       waitFor,
		UsageSeen:  o.pos.UsageID,
		Model:      o.pos.Model,
		MaxRead:    env.MaxRead,
		Deadline:   time.Now().Add(readTime),
		InLine:     o.pos.InLine,
	}
	if ev.Model != "" {
		opt.Model = ev.Model // the model of this turn, which may have begun before the last scan's end
	}
	// Text the host hands over only part of is in the transcript alone.
	textHere := facts.transcript().LastMessagePart || ev.LastMessage == ""
	res, err := tr.Scan(path, o.pos.Offset, opt)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		o.err = fmt.Errorf("read transcript %s: %w", path, err)
		o.partial = textHere
		return
	}
	o.take(&res, facts, missing)
	if facts.transcript().Lags && waitFor != "" && !res.SawLast && !res.Cut {
		if o.couldChange(l, ev, textHere, facts.transcript().ToolLogLags) {
			missing = o.catchUp(env, facts, path, opt, now, &res, missing)
		} else if !missing {
			o.note, o.lagging = inject.NoteLate, true
		}
		o.partial = textHere && !res.SawLast
	}
	if missing && o.note == "" {
		o.note = inject.NoteNoTranscript(0)
	}
	if o.late {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteLateMarker, "; ")
	}
	if res.Bad > 0 {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteMalformed(res.Bad), "; ")
	}
	if res.Holes > 0 {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteHoles(res.Holes), "; ")
	}
	if res.Cut {
		max := env.MaxRead
		if max <= 0 {
			max = transcript.MaxRead
		}
		o.Unread = inject.UnreadCut(res.Read, max)
	}
}

// take keeps what a scan of the transcript found (res: everything read since the last
// decision; missing: there is no transcript file yet).
func (o *observed) take(res *transcript.Result, facts Facts, missing bool) {
	o.Found = o.Found || res.Found
	if res.LateFound && o.pos.LateMarker && !o.Found {
		o.Found, o.late = true, true
	}
	if res.HasOther && !o.HasOther {
		o.Other, o.HasOther = res.Other, true
	}
	if facts.transcript().Tools {
		o.ToolIDs = res.ToolIDs
	}
	o.seenTools = res.ToolIDs
	o.pos.Offset, o.pos.InLine = res.Offset, res.InLine
	o.sawLast = res.SawLast
	o.queued = res.Queued()
	o.NoReply = facts.transcript().StopsWithoutReply && !missing && res.Replies == 0
	o.Usage = res.Usage
	if res.UsageID != "" {
		o.pos.UsageID = res.UsageID
	}
	if res.Model != "" {
		o.pos.Model = res.Model
	}
}

// couldChange reports whether what the transcript does not show yet (the host writes the
// end of a turn after its stop hook has started) could change the stop's decision, which
// is then worth waiting for (textHere: the transcript may hold agent text the stop event
// did not hand over):
//
//   - the loop would end (or pause) without the marker, and the transcript may hold text of
//     the agent's: a marker there ends it accepted instead, and no later stop could count it;
//   - the stop would be blocked, and either the host hands over no text at all (the agent's
//     text is only in the transcript), or the last turn's usage could reach the loop's budget;
//   - the promise would be rejected for too little work while the host logs tool calls in
//     the background (Transcript.ToolLogLags): the turn's calls may be in the part not
//     written yet, and awaitTools waits for those the transcript shows.
//
// Otherwise the stop is decided at once. The tool calls come from the tool hooks, the
// promise from the host's last message; a block without it, when the host hands over only
// the end of the agent's output (Transcript.LastMessagePart), says so to the agent, and a marker
// in the rest counts at the next stop (state.TranscriptPos.LateMarker). The late turn's
// usage is counted when it appears (the next stop, or the next event once the loop has
// ended: see settle), so the totals stay exact.
func (o *observed) couldChange(l *state.Loop, ev Event, textHere, toolsLate bool) bool {
	v, after := Decide(*l, o.Observation)
	switch v {
	case ContinueNoWork:
		return toolsLate || ev.LastMessage == "" || withinReach(&after)
	case Continue:
		return ev.LastMessage == "" || withinReach(&after)
	case Accept, NeedChecks, ContinueCheckFailed:
		return false
	}
	return textHere && !o.Found
}

// withinReach reports whether one more reply could reach the loop's token or cost budget:
// a reply of the model the loop last counted, as large as the model allows (see
// spend.Limits), at its price.
func withinReach(l *state.Loop) bool {
	if l.MaxTokens == 0 && l.MaxCost == 0 {
		return false
	}
	lim := spend.LimitsOf(l.Ledger.Model)
	if l.MaxTokens > 0 && l.Spent.Total()+lim.Context+lim.Output >= l.MaxTokens {
		return true
	}
	if l.MaxCost == 0 {
		return false
	}
	p, ok := spend.Lookup(l.Ledger.Model, l.Prices)
	if !ok {
		return true // a reply of a model without a price would pause the loop
	}
	worst := p.Cost(spend.Tokens{Input: lim.Context, Output: lim.Output})
	if p.CacheWrite > p.Input {
		worst = p.Cost(spend.Tokens{CacheWrite: lim.Context, Output: lim.Output})
	}
	return l.Spent.CostUSD+worst >= l.MaxCost
}

// catchUp reads the transcript again, for at most env.CatchUp after now, until it shows the
// agent's last message (only when that could change the decision: see couldChange). The file
// may not exist yet either: in stream-json sessions Claude Code creates it after the first
// Stop hook has started; with --no-session-persistence it never comes. It returns whether the
// file is still missing.
func (o *observed) catchUp(env Env, facts Facts, path string, opt transcript.Options, now time.Time, res *transcript.Result, missing bool) bool {
	waited := false
	deadline := now.Add(env.CatchUp)
	for !res.SawLast {
		if !env.Now().Before(deadline) {
			if missing {
				o.note = inject.NoteNoTranscript(env.CatchUp)
			} else {
				o.note = inject.NoteTranscriptBehind(env.CatchUp)
			}
			break
		}
		waited = true
		env.Sleep(10 * time.Millisecond)
		opt.UsageSeen, opt.InLine, opt.SkipToUser = o.pos.UsageID, o.pos.InLine, res.Skipping
		if o.pos.Model != "" {
			opt.Model = o.pos.Model
		}
		more, err := facts.Transcript.Read.Scan(path, res.Offset, opt)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			break
		}
		missing = false
		res.Merge(more)
		o.take(res, facts, missing)
	}
	if waited && res.SawLast {
		o.note = inject.NoteWaited(env.Now().Sub(now).Round(time.Millisecond))
	}
	return missing
}
