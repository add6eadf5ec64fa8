package hook

import (
	"errors"
	"fmt"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

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
	case Continue, ContinueNoWork, ContinueCheckFailed, ContinueEarly, ContinueBusy, ContinueOverdue:
		why := inject.Why{Kind: inject.BlockNoPromise, Check: failedCheck(d.checks), Resumed: d.resumed}
		switch {
		case d.verdict == ContinueOverdue:
			why.Kind, why.Late, why.At = inject.BlockOverdue, overdue(after, after.UpdatedAt), after.UpdatedAt
		case d.verdict == ContinueBusy:
			why.Kind = inject.BlockBusy
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
	case Wait:
		return Reply{Notice: join(inject.Waiting(after, w))}
	case CutByHost:
		return Reply{Notice: join(inject.CutByHost(after, w, e.facts.BlockCap))}
	case NoProgress:
		return Reply{Notice: join(inject.NoProgress(after, w))}
	case Stalled:
		return Reply{Notice: join(inject.Stalled(after, w))}
	}
	return Reply{}
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
		case ContinueBusy:
			why.Kind = inject.BlockBusy
		case ContinueOverdue:
			why.Kind, why.Late, why.At = inject.BlockOverdue, overdue(&d.after, d.after.UpdatedAt), d.after.UpdatedAt
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
	case Wait:
		return inject.ReasonWaiting(l)
	case ContinueBusy:
		return inject.ReasonBusy(l)
	case ContinueOverdue:
		return inject.ReasonOverdue(l, overdue(l, l.UpdatedAt))
	}
	return inject.ReasonEnded(l, v == Accept)
}
