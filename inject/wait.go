package inject

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of a loop that waits with the host for work it runs in the background (a
// command run with run_in_background, a background subagent, a scheduled wake-up).

// Task describes a background task for people and the agent, its parts cut to n
// characters each: its name, what it is and runs, and its id (withID).
func Task(t state.Task, n int, withID bool) string {
	name := firstLine(Printable(t.Name), n)
	run := firstLine(Printable(t.Command), n)
	var b strings.Builder
	switch {
	case t.Kind == state.KindCron:
		b.WriteString("a scheduled wake-up")
		if run != "" {
			fmt.Fprintf(&b, " (%s)", run)
		}
		if name != "" {
			fmt.Fprintf(&b, ": %q", name)
		}
	default:
		var what []string
		if t.Kind != "" {
			what = append(what, t.Kind)
		}
		switch {
		case name == "" && run != "":
			name = "`" + run + "`"
		case name == "":
			name = "a background task"
		case run != "" && run != name:
			what = append(what, "`"+run+"`")
		}
		b.WriteString(name)
		if len(what) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(what, " "))
		}
	}
	if withID && t.ID != "" {
		fmt.Fprintf(&b, " [id %s]", Printable(t.ID))
	}
	return b.String()
}

// tasks lists background tasks (at most five named, the rest counted), with how long each
// has run at now when now is set.
func tasks(ts []state.Task, n int, withID bool, now time.Time) string {
	var parts []string
	for i, t := range ts {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ts)-i))
			break
		}
		s := Task(t, n, withID)
		if !now.IsZero() && !t.Since.IsZero() {
			s += ", running for " + roundDuration(now.Sub(t.Since)) + " at least"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// roundDuration is d as people read a wait: to the second under an hour, else the minute.
func roundDuration(d time.Duration) string {
	if d >= time.Hour {
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}

// maxWait says the loop's --max-wait for people.
func maxWait(l *state.Loop) string {
	if l.MaxWait <= 0 {
		return "no limit (--max-wait 0)"
	}
	return "at most " + time.Duration(l.MaxWait).String() + " (--max-wait)"
}

// Waiting is the user's line at a stop let through to wait with the host for its background
// work.
func Waiting(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: iteration %d/%d waits with %s for its background work: %s. The loop goes on when %s wakes the session, "+
		"%s; no iteration is used meanwhile (%s ends the loop)",
		l.Iteration, l.MaxIterations, w.display(), tasks(l.Background, 80, false, time.Time{}), w.display(), maxWait(l), w.cancel())
}

// ReasonWaiting is the event log's line for a stop let through to wait with the host.
func ReasonWaiting(l *state.Loop) string {
	return fmt.Sprintf("waiting with the host for its background work: %s; no iteration used, the loop goes on when the host wakes the session",
		tasks(l.Background, 120, true, time.Time{}))
}

// ReasonWoken is the event log's line for the prompt that ends a wait (the host's wake-up
// turn, or the user's message), after waiting d.
func ReasonWoken(d time.Duration) string {
	return fmt.Sprintf("a prompt came after waiting %s with the host (its wake-up, or the user's message); the loop goes on", roundDuration(d))
}

// WaitingStatus is how status shows a loop that waits with the host: since when, for what.
func WaitingStatus(l *state.Loop, now time.Time) string {
	s := fmt.Sprintf("with the host since %s (%s), for %s", l.WaitSince.Local().Format("15:04:05"), roundDuration(now.Sub(l.WaitSince)),
		tasks(l.Background, 80, true, now))
	if late := overdueAt(l, now); late > 0 {
		s += fmt.Sprintf("; past --max-wait %s: the next stop is blocked", time.Duration(l.MaxWait))
	}
	return s
}

// overdueAt counts the loop's background tasks that have run longer than its --max-wait at
// now.
func overdueAt(l *state.Loop, now time.Time) int {
	n := 0
	for _, t := range l.Background {
		if l.MaxWait > 0 && now.Sub(t.Since) >= time.Duration(l.MaxWait) {
			n++
		}
	}
	return n
}

// busy is the agent's text of a promise rejected while its background work runs.
func busy(b *strings.Builder, l *state.Loop, w Words) {
	fmt.Fprintf(b, "you output the completion marker while work still runs in the background: %s. Its result is not in, so the task "+
		"cannot be known to be done, and the marker does not count while it runs. If the task needs that work, end your turn "+
		"without the marker: %s wakes you when it ends, and this loop waits with it, using no iteration. If it is not needed "+
		"(a server or a watcher left running), stop it, then output the marker again.\n", tasks(l.Background, 300, true, time.Time{}), w.display())
}

// overdue is the agent's text of a stop blocked because background work has run past
// --max-wait.
func overdue(b *strings.Builder, l *state.Loop, late []state.Task, now time.Time) {
	fmt.Fprintf(b, "work in the background has run longer than this loop waits for it (%s): %s. Check on it: read its output, and "+
		"stop it if it is stuck or no longer needed. The loop does not wait for it any more, and a completion marker does not count "+
		"while it runs.\n", time.Duration(l.MaxWait), tasks(late, 300, true, now))
}

// BusyNotice is the user's line when a promise is rejected while background work runs.
func BusyNotice(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: iteration %d/%d: promise rejected, background work still runs: %s", l.Iteration, l.MaxIterations,
		tasks(l.Background, 80, false, time.Time{}))
}

// OverdueNotice is the user's line when a stop is blocked for background work past
// --max-wait.
func OverdueNotice(l *state.Loop, late []state.Task) string {
	return fmt.Sprintf("ralph-loop: iteration %d/%d: background work has run past --max-wait %s (%s): the agent is told to check on it",
		l.Iteration, l.MaxIterations, time.Duration(l.MaxWait), tasks(late, 80, false, time.Time{}))
}

// ReasonBusy is the event log's line for a promise rejected while background work runs.
func ReasonBusy(l *state.Loop) string {
	return fmt.Sprintf("blocked: the promise came while background work runs (%s); now at iteration %d/%d",
		tasks(l.Background, 120, true, time.Time{}), l.Iteration, l.MaxIterations)
}

// ReasonOverdue is the event log's line for a stop blocked for background work past
// --max-wait.
func ReasonOverdue(l *state.Loop, late []state.Task) string {
	return fmt.Sprintf("blocked: background work has run past --max-wait %s (%s); now at iteration %d/%d",
		time.Duration(l.MaxWait), tasks(late, 120, true, time.Time{}), l.Iteration, l.MaxIterations)
}
