package inject

import (
	"fmt"
	"time"

	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of "ralph-loop watch" and its dashboard (cmd/ralph-loop-watch).

// DashboardProgram is the dashboard's program, installed beside ralph-loop.
const DashboardProgram = "ralph-loop-watch"

// WatchLabels are the dashboard's row labels, in the order it shows them.
var WatchLabels = struct {
	Iteration, Time, Tokens, Cost, Stalls, Tools, Last, Checks, Changes, Now, Ended string
}{
	Iteration: "iteration",
	Time:      "time",
	Tokens:    "tokens",
	Cost:      "cost",
	Stalls:    "stalls",
	Tools:     "tool calls",
	Last:      "last",
	Checks:    "checks",
	Changes:   "changes",
	Now:       "now",
	Ended:     "ended",
}

// WatchTitle heads the dashboard: the session watched, or how many loops are shown.
func WatchTitle(session string, loops int) string {
	if session != "" {
		return "ralph-loop watch · session " + session
	}
	return "ralph-loop watch · " + Plural(loops, "loop", "loops")
}

// The dashboard's key hints.
const (
	WatchKeysOne      = "q quit · enter timeline · c cancel the loop"
	WatchKeysMany     = "q quit · ↑/↓ tab select · enter timeline · c cancel the loop"
	WatchKeysTimeline = "esc/enter back · ↑/↓ pgup/pgdn scroll · q quit"
)

// WatchTimelineTitle heads a session's timeline.
func WatchTimelineTitle(session string) string {
	return "timeline of session " + session + " (ralph-loop log)"
}

// WatchTimelineWaiting is shown until the timeline asked for comes.
const WatchTimelineWaiting = "reading the timeline…"

// WatchConfirmCancel asks before a loop is cancelled.
func WatchConfirmCancel(session string, iteration, max int) string {
	return fmt.Sprintf("cancel the loop of session %s at iteration %d/%d? y cancels it, any other key keeps it", session, iteration, max)
}

// WatchCancelling is shown while the cancel runs.
const WatchCancelling = "cancelling…"

// WatchNotActive is shown when c is pressed on a loop that has ended.
const WatchNotActive = "this loop has ended: nothing to cancel"

// WatchCancelWhat names the dashboard's cancel in the event log and in a refusal.
func WatchCancelWhat(commandLine, session string) string {
	return fmt.Sprintf("%s (c: cancel the loop of session %s)", commandLine, session)
}

// WatchLeaving is the dashboard's last line for a session whose loop ended.
const WatchLeaving = "the loop has ended; leaving (any key leaves now)"

// WatchNoLoops is shown while no loop is active on the machine.
func WatchNoLoops(stateDir string) string {
	return "no active ralph loop; waiting for one (state directory: " + stateDir + ")"
}

// WatchNoLoop is shown while the session watched has no loop yet.
func WatchNoLoop(session string) string { return "waiting for a loop in session " + session }

// WatchNotTerminal is the note on stderr when watch's standard output is not a terminal.
const WatchNotTerminal = `ralph-loop: watch: standard output is not a terminal, so no dashboard: printing what "ralph-loop log --follow" prints`

// DashboardMissing is the error of watch when its dashboard program cannot be found.
func DashboardMissing(dir string) string {
	return fmt.Sprintf("the dashboard program %s is neither beside this ralph-loop (in %s) nor on PATH; install it as ralph-loop was "+
		"(make install, or go install github.com/ralph-loop/ralph-loop/cmd/%s@latest), or run \"ralph-loop log --follow\"",
		DashboardProgram, dir, DashboardProgram)
}

// DashboardAlone is the dashboard program's error when it is run on its own.
const DashboardAlone = DashboardProgram + `: error: this is the dashboard of "ralph-loop watch": run that`

// DashboardOtherVersion is its error when ralph-loop speaks another version of their protocol.
func DashboardOtherVersion(got string, want int) string {
	return fmt.Sprintf("%s: error: ralph-loop speaks version %q of the dashboard's protocol, this %s version %d: install both from the same release",
		DashboardProgram, got, DashboardProgram, want)
}

// WatchTime is the time row: how long the loop has run, and of its --max-time.
func WatchTime(elapsed, max time.Duration) string {
	e := elapsed.Round(time.Second).String()
	if max <= 0 {
		return e + " (no --max-time)"
	}
	return e + " of " + max.String()
}

// WatchTokens is the tokens row: what the model used, and of --max-tokens.
func WatchTokens(used, max int64) string {
	if max <= 0 {
		return spend.Count(used) + " (no --max-tokens)"
	}
	return spend.Count(used) + " of " + spend.Count(max)
}

// WatchCost is the cost row (cost nil: a model used has no known price).
func WatchCost(cost *float64, max float64) string {
	c := "unknown (a model has no price)"
	if cost != nil {
		c = spend.Dollars(*cost)
	}
	if max <= 0 {
		return c + " (no --max-cost)"
	}
	return c + " of " + spend.Dollars(max)
}

// WatchStalls is the stalls row.
func WatchStalls(stalls, max int) string {
	if max <= 0 {
		return fmt.Sprintf("%d in a row (no --max-stalls)", stalls)
	}
	return fmt.Sprintf("%d in a row of %d", stalls, max)
}

// WatchTools is the tool calls row.
func WatchTools(calls, min int) string {
	return fmt.Sprintf("%d (the promise needs %d)", calls, min)
}

// WatchNoChecks and WatchNoChanges fill their rows when there is nothing to show.
const (
	WatchNoChecks     = "none run yet"
	WatchNoCheckpoint = "no --checkpoint"
	WatchNoDecision   = "none yet"
)

// WatchNow says what an active loop waits for, or how a loop ended. last is the action of
// the loop's last event.
func WatchNow(l *state.Loop, last string) string {
	switch {
	case l.Status != state.Active:
		s := fmt.Sprintf("%s at iteration %d/%d", l.Status, l.Iteration, l.MaxIterations)
		if l.EndReason != "" {
			s += ": " + l.EndReason
		}
		if l.EndedBy != "" {
			s += " (by " + EndedBy(l) + ")"
		}
		return s
	case l.Unverified != "":
		return "its state cannot be verified (" + l.Unverified + "); only your cancel ends it"
	case l.Paused():
		return "paused: " + PausedStatus(l.Pause)
	case l.AwaitCancel:
		return "a cancel typed while the agent worked is queued: the loop ends when the host hands it over, or goes on"
	case l.Yielded:
		return fmt.Sprintf("the stop was let through for your message; the loop goes on at the next stop (iteration %d)", l.Iteration)
	case last == state.ActChecking:
		return "the promise came: its checks run"
	case l.LastAction == state.ActArmed:
		return "armed: the agent works on iteration 1"
	}
	return fmt.Sprintf("the agent works on iteration %d", l.Iteration)
}

// LoopEnded is the last line of "ralph-loop log --follow" (and of watch) when the loop
// followed has ended.
func LoopEnded(l *state.Loop) string {
	spent := ""
	if !l.Spent.Empty() {
		spent = "; spent " + l.Spent.String()
	}
	return fmt.Sprintf("loop ended: %s at iteration %d/%d (%s)%s", l.Status, l.Iteration, l.MaxIterations, l.EndReason, spent)
}
