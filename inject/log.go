package inject

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// The reasons of the event log (ralph-loop log, status --session) and the end reasons a
// loop keeps: one line each, lower case, for the user reading the loop's timeline.

// ReasonBlocked is for a stop blocked without the promise.
func ReasonBlocked(l *state.Loop) string {
	return fmt.Sprintf("promise not found; continuing with iteration %d/%d", l.Iteration, l.MaxIterations)
}

// ReasonUncounted is for a usage record not counted: why says what it was and why.
func ReasonUncounted(why string) string { return "not counted: " + why }

// ReasonUnread is for a stop blocked because the agent's output could not be read to its
// end (why says why).
func ReasonUnread(l *state.Loop, why string) string {
	return fmt.Sprintf("output not checked: %s; continuing with iteration %d/%d", why, l.Iteration, l.MaxIterations)
}

// ReasonOtherToken is for a stop blocked whose output held a promise with another token.
func ReasonOtherToken(l *state.Loop, other string) string {
	return fmt.Sprintf("promise not found, but a different token was: %s (the marker is %s); continuing with iteration %d/%d",
		other, promise.Marker(l.CompletionPromise), l.Iteration, l.MaxIterations)
}

// ReasonNoWork is for a promise rejected for too few tool calls.
func ReasonNoWork(l *state.Loop) string {
	return fmt.Sprintf("promise found with %d of the %d tool calls required; rejected, continuing with iteration %d/%d",
		l.ToolCalls, l.MinToolCalls, l.Iteration, l.MaxIterations)
}

// ReasonChecking is for a promise whose checks run next.
func ReasonChecking(l *state.Loop) string {
	return fmt.Sprintf("promise found after %s; running %s", Plural(l.ToolCalls, "tool call", "tool calls"),
		Plural(len(l.Checks), "check", "checks"))
}

// ReasonCheck is for one check's result.
func ReasonCheck(index, total int, command, outcome, logPath string) string {
	return fmt.Sprintf("check %d/%d `%s` %s (log: %s)", index, total, command, outcome, logPath)
}

// ReasonCheckFailed is for a promise rejected by a failed check.
func ReasonCheckFailed(l *state.Loop, f *CheckFailure) string {
	return fmt.Sprintf("promise found but check %d/%d `%s` %s; rejected, continuing with iteration %d/%d",
		f.Index, f.Total, f.Command, f.Outcome, l.Iteration, l.MaxIterations)
}

// ReasonEnded is for a stop that ended the loop, with its end reason.
func ReasonEnded(l *state.Loop, accepted bool) string {
	if accepted {
		return fmt.Sprintf("%s after %s", l.EndReason, Plural(l.ToolCalls, "tool call", "tool calls"))
	}
	return l.EndReason
}

// ReasonPausedStop is for a stop of a loop paused for the user's queued cancel.
func ReasonPausedStop(cancel string) string {
	return fmt.Sprintf("a stop with no prompt of the user's since the loop paused for %s: let through, the loop stays paused", cancel)
}

// ReasonCancelQueued is for a stop let through for the cancel the transcript shows queued.
func ReasonCancelQueued(cancel string, l *state.Loop) string {
	return fmt.Sprintf("the transcript shows %s queued while the loop ran; this stop is let through for it, and the loop "+
		"ends when it comes as the user's prompt (or resumes at the next stop, iteration %d/%d)", cancel, l.Iteration, l.MaxIterations)
}

// ReasonYielded is for a stop let through for a message the user typed while the agent worked.
func ReasonYielded(l *state.Loop) string {
	return fmt.Sprintf("the user typed a message while the loop ran; this stop is let through so that it is answered, "+
		"and the loop resumes at the next stop (iteration %d/%d)", l.Iteration, l.MaxIterations)
}

// The prompts of the user's while a loop runs.
const (
	ReasonQueuedCancelNotSent = "the cancel the transcript showed queued did not come as the user's prompt; the loop goes on"
	ReasonMessageInTurn       = "the user typed a message while the agent worked; the loop goes on"
	ReasonTurnEnded           = "the host ended the turn after a block (interrupted, API error or its stop-block cap); the loop goes on with the next prompt"
)

// ReasonUnseen is for an event of the loop's session from a process that may run below its
// host, which cannot be told (why).
func ReasonUnseen(event, who, why string) string {
	return fmt.Sprintf("a %s event from %s, which may run inside the session (ralph-loop cannot tell: %s), was blocked and changed nothing", event, who, why)
}

// ReasonUnrecorded is for a stop blocked as the loop stood because its state could not be
// read, reached or saved.
func ReasonUnrecorded(err error) string {
	return fmt.Sprintf("the stop was blocked as the loop stood: %v", err)
}

// ReasonInterrupted is why a loop ended when the user stopped one of its commands.
func ReasonInterrupted(w Words) string {
	return "the user pressed Esc while a command of the loop ran (" + w.display() + " stopped it and ended the turn)"
}

// ReasonNotTaken is for an event of the loop's session from another process than its host.
func ReasonNotTaken(event, who string) string {
	return fmt.Sprintf("a %s event from %s, which is not the loop's host, changed nothing", event, who)
}

// ReasonDenied is for a tool call the guard denied.
func ReasonDenied(what string) string { return "denied the agent's " + what }

// ReasonReplaced is for a loop replaced by a new one armed in its session.
func ReasonReplaced(loopID string) string { return "replaced by loop " + loopID }

// ReasonSessionEnded is for the session's end, with the host's reason if it gave one.
func ReasonSessionEnded(why string) string {
	if why != "" {
		return "the session ended (" + why + ")"
	}
	return "the session ended"
}

// ReasonConfigChange is for what a refused change of the host's settings was.
func ReasonConfigChange(file, why string) string {
	return fmt.Sprintf("a change to %s (%s)", file, why)
}

// The end reasons of a loop.

// EndAccepted is for the promise was accepted (checks: how many passed; noWork: the policy that
// accepted it without enough tool calls, or "").
func EndAccepted(checks int, noWork string) string {
	if noWork != "" {
		return "promise found without enough tool calls, accepted by --on-promise-no-work=" + noWork
	}
	if checks > 0 {
		return fmt.Sprintf("promise found and %s passed", Plural(checks, "check", "checks"))
	}
	return "promise found"
}

// EndMaxIterations is for the iteration limit.
const EndMaxIterations = "iteration limit reached without the promise"

// EndTimeBudget is for the --max-time budget.
func EndTimeBudget(d time.Duration) string {
	return fmt.Sprintf("the time budget of %s ran out without the promise", d)
}

// EndTokens is for the --max-tokens budget.
func EndTokens(max int64, s spend.Spent) string {
	return fmt.Sprintf("the token budget of %s was reached without the promise: %s", spend.Count(max), s)
}

// EndCost is for the --max-cost budget.
func EndCost(max float64, s spend.Spent) string {
	return fmt.Sprintf("the cost budget of %s was reached without the promise: %s", spend.Dollars(max), s)
}

// EndCostBound is why a loop ended when what it spent, with the tokens of models of no known
// price counted at the highest prices known, reached its cost budget.
func EndCostBound(max float64, s spend.Spent, bound float64) string {
	return fmt.Sprintf("the cost budget of %s was reached without the promise: %s; at most %s with %s counted at the highest prices ralph-loop knows",
		spend.Dollars(max), s, spend.Dollars(bound), strings.Join(s.Unpriced, ", "))
}

// ReasonPausedPrice is for a stop let through because a model used has no known price
// under a cost budget: the loop waits for the user's price.
func ReasonPausedPrice(l *state.Loop) string {
	return fmt.Sprintf("paused: %s has no known price, so the cost budget of %s waits for the user's price (so far: %s)",
		strings.Join(l.Spent.Unpriced, ", "), spend.Dollars(l.MaxCost), l.Spent)
}

// ReasonPriced is for the user's prices read at their prompt, which counted the tokens held
// for models (priced) that had none.
func ReasonPriced(l *state.Loop, priced []string) string {
	return fmt.Sprintf("the user's price for %s counted: %s; the loop goes on", strings.Join(priced, ", "), l.Spent)
}

// ReasonArmed is for a loop armed (by: "slash-command", "resume", …), or a loop picked up by
// --resume (resumed: the loop it goes on from).
func ReasonArmed(l *state.Loop, resumed string) string {
	what := "armed by " + l.ArmedBy
	if resumed != "" {
		what = fmt.Sprintf("picks up loop %s at iteration %d with %s", resumed, l.Iteration, Plural(l.ToolCalls, "tool call", "tool calls"))
	}
	return fmt.Sprintf("%s: up to %s, promise %s, at least %s, no-work policy %s",
		what, Plural(l.MaxIterations, "iteration", "iterations"), promise.Marker(l.CompletionPromise),
		Plural(l.MinToolCalls, "tool call", "tool calls"), l.OnPromiseNoWork)
}

// ReasonSentBy is for who sent a refused loop command (from a process, c), and in which session
// when it is another.
func ReasonSentBy(command, sender, session string) string {
	if session != "" {
		return fmt.Sprintf("%s sent by %s (in session %s)", command, sender, session)
	}
	return fmt.Sprintf("%s sent by %s", command, sender)
}

// ReasonUnverified is for a stop blocked because the active loop's state cannot be verified.
func ReasonUnverified(why string) string {
	return "its state cannot be verified (" + why + "); the stop was blocked"
}

// ReasonUnverifiedEnded is the end reason of a loop whose state could not be verified,
// ended by the user (why).
func ReasonUnverifiedEnded(why, unverified string) string {
	return why + "; its state had been changed outside ralph-loop and could not be verified (" + unverified + ")"
}

// ReasonRefused is for an attempt from inside the session to end, re-arm or unhook its loop.
func ReasonRefused(what string) string { return "refused " + what }

// ReasonHooksSilent is for the loop's hooks stopped answering; the user was told in another
// session.
func ReasonHooksSilent(since time.Duration, last, toldIn string) string {
	return fmt.Sprintf("its hooks stopped answering while the loop was active (its transcript grew for %s after the last hook, at %s); told in session %s",
		since, last, toldIn)
}

// The notes a stop's reason carries on what the transcript gave.

// NoteNoTranscript is for no transcript file (within the catch-up wait d, if d > 0).
func NoteNoTranscript(d time.Duration) string {
	if d > 0 {
		return fmt.Sprintf("no transcript file within %s", d)
	}
	return "no transcript file"
}

// NoteTranscriptBehind is for the transcript did not show the last message within the wait d.
func NoteTranscriptBehind(d time.Duration) string {
	return fmt.Sprintf("the transcript did not show the last message within %s", d)
}

// ReasonLateUsage is for the usage of a loop's last turn, which the host wrote to its
// transcript after the stop that ended the loop, counted at the session's next event.
const ReasonLateUsage = "the last turn's usage, written after the loop ended, counted"

// NoteLate is for a stop decided without waiting for a transcript that did not show the
// agent's last message yet (nothing it could add would change the decision): what the turn
// used is counted once it is written.
const NoteLate = "the transcript did not show the last message yet: its usage is counted once written"

// NotePartial is for a stop blocked without the marker, decided without waiting for a
// transcript that did not show all of the agent's output yet: a marker in the rest counts
// at the next stop.
const NotePartial = "the transcript did not show all of the last message yet: a marker in the rest counts at the next stop, " +
	"its usage once written"

// NoteLateMarker is for a marker in the end of the last iteration, which reached the
// transcript after its stop had been blocked without finding one.
const NoteLateMarker = "the marker was in the last iteration's output, which reached the transcript after its stop"

// NoteWaited is for the stop waited d for the transcript to show the last message.
func NoteWaited(d time.Duration) string {
	return fmt.Sprintf("waited %s for the transcript to catch up", d)
}

// NoteToolsLate is the event log's note for a stop decided before the host's background
// tool hook logged n calls the transcript shows (they count at the next stop).
func NoteToolsLate(n int) string {
	return Plural(n, "tool call", "tool calls") + " not logged yet, counted when logged"
}

// NoteToolsWaited is the note for a stop that waited d for the tool log to hold the calls
// the transcript shows.
func NoteToolsWaited(d time.Duration) string {
	return fmt.Sprintf("waited %s for the tool calls to be logged", d)
}

// NoteToolsNotLogged is the note for a stop after which n calls the transcript shows were
// still not logged after d: refused by the host before they ran, they never count (logged
// later, they count at the next stop).
func NoteToolsNotLogged(n int, d time.Duration) string {
	return fmt.Sprintf("%s the transcript shows not logged within %s: not counted (a call the host refused before it ran never is)", Plural(n, "tool call", "tool calls"), d)
}

// UnreadCut says why a stop's transcript was not read to its end: it grew by more than one
// stop reads (read of at most max bytes were read), or reading took too long.
func UnreadCut(read, max int64) string {
	return fmt.Sprintf("the transcript grew by more than one stop reads (%s read, at most %s), so the rest is read at the next stop",
		Bytes(read), Bytes(max))
}

// UnreadMissed says why a stop is blocked after stops that went through with no decision of
// ralph-loop's (n of them: their hook was killed before it answered).
func UnreadMissed(n int) string {
	what := "a stop"
	if n > 1 {
		what = fmt.Sprintf("%d stops", n)
	}
	return what + " before this one went through with no decision of ralph-loop's (its hook was killed before it answered), so " +
		"the work of that turn was never checked"
}

// ReasonMissed is the log line for stops found to have gone through with no decision.
func ReasonMissed(n int) string {
	what := "a stop"
	if n > 1 {
		what = fmt.Sprintf("%d stops", n)
	}
	return what + " went through with no decision: the hook was killed before it answered (not by ralph-loop); the next stop is blocked"
}

// UnreadBack says why a stop's transcript was not read: it could not be read back to where
// the loop began.
const UnreadBack = "the transcript could not be read back to where the loop began (more than " +
	"one stop reads, or a hole in the file), so it is read from the latest line it could date"

// NoteHoles is for a transcript whose holes (a sparse file's ranges never written) were
// skipped unread.
func NoteHoles(n int64) string {
	return "skipped a hole of " + Bytes(n) + " in the transcript (never written by the host)"
}

// Bytes writes a size for people: "256 MiB", "4.0 GiB", "512 bytes".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return Plural(int(n), "byte", "bytes")
}

// NoteMalformed is for n transcript lines were skipped as malformed.
func NoteMalformed(n int) string {
	return "skipped " + Plural(n, "malformed transcript line", "malformed transcript lines")
}

// What the hooks' command line recorded while it could not run ralph-loop (see
// hook/install's command.go).
const (
	ReasonFallbackCancel        = "cancelled with /cancel-ralph while the hooks could not run ralph-loop (recorded by the hooks' command line)"
	ReasonFallbackCancelRefused = "a cancel-typed file in the session's state directory, written while ralph-loop could run (not by its hooks): not taken"
)

// ReasonFallbackStops is for the stops the hooks' command line blocked while it could not run
// ralph-loop (logged, not counted as iterations).
func ReasonFallbackStops(n int) string {
	return fmt.Sprintf("the hooks' command line blocked %d stops while it could not run ralph-loop (not counted as iterations)", n)
}
