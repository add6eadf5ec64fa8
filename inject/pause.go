package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of a paused loop (the model's provider refused a turn), of a turn the user
// interrupted or the host halted, and of the notifications (--notify).

// failureWords are the hosts' words for a refused turn, as people read them (a list, not a
// map: data the linker lays out rather than a table built at every start).
var failureWords = [][2]string{
	{"rate_limit", "a rate limit"},
	{"overloaded", "the provider is overloaded"},
	{"billing_error", "a billing error"},
	{"authentication_failed", "authentication failed"},
	{"server_error", "a server error"},
	{"max_output_tokens", "the reply hit its output limit"},
	{"invalid_request", "the provider refused the request"},
	{"model_not_found", "the model was not found"},
	{"loop_detected", "the host's loop detector aborted a turn that repeated itself"},
}

// PauseWhy says why a loop paused: the host's word for the failure (kind) and what it
// showed (msg), cut to a line.
func PauseWhy(kind, msg string) string {
	var what string
	for _, w := range failureWords {
		if w[0] == kind {
			what = w[1]
		}
	}
	if what == "" {
		what = "an error"
		if kind != "" && kind != "unknown" {
			what += " (" + kind + ")"
		}
	}
	s := "the model's provider refused the turn: " + what
	if kind == "" {
		s = "the turn ended on an error" // the host says no more
	}
	if msg = strings.TrimSpace(Printable(firstLine(msg, 200))); msg != "" {
		s += " (" + msg + ")"
	}
	return s
}

// untilText says until when a pause lasts, "" when nobody said.
func untilText(p *state.Pause) string {
	if p.Until == nil {
		return ""
	}
	return " until " + p.Until.Local().Format("15:04:05")
}

// ReasonPaused is for a loop paused by a refused turn.
func ReasonPaused(p *state.Pause) string {
	return fmt.Sprintf("%s; the loop is paused%s, the turn uses up no iteration, and the user's next prompt goes on with it", p.Why, untilText(p))
}

// PausedNotice is the user's line when a loop pauses.
func PausedNotice(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d: %s. Wait%s, then send any message to go on with it (or %s --resume; %s ends it)",
		l.Iteration, l.MaxIterations, l.Pause.Why, untilText(l.Pause), w.Arm(), w.cancel())
}

// PausedStatus is how status shows a pause: why, since when and until when.
func PausedStatus(p *state.Pause) string {
	return fmt.Sprintf("%s, since %s%s", p.Why, p.At.Local().Format("15:04:05"), untilText(p))
}

// ReasonResumed is for a paused loop going on with the user's prompt.
func ReasonResumed(p *state.Pause) string {
	if p == nil {
		return "the loop goes on"
	}
	return fmt.Sprintf("the user's prompt came; the loop paused at %s goes on", p.At.Local().Format("15:04:05"))
}

// ResumedNotice is the user's line when a paused loop goes on with their prompt.
func ResumedNotice(l *state.Loop, p *state.Pause, w Words) string {
	return fmt.Sprintf("ralph-loop: the loop paused at %s goes on at iteration %d/%d with this prompt (%s ends it)",
		p.At.Local().Format("15:04:05"), l.Iteration, l.MaxIterations, w.cancel())
}

// EndInterrupted is the end reason of a loop whose turn the user interrupted.
func EndInterrupted(w Words) string {
	return "the user interrupted the turn (Esc or Ctrl-C in " + w.display() + ")"
}

// Interrupted is the user's line when interrupting a turn ended the loop.
func Interrupted(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop ended at iteration %d/%d: you interrupted the turn%s", l.Iteration, l.MaxIterations, resumeHint(l, w))
}

// haltWhat says what ended a loop's turn without a stop (a Halted event): the user's Esc
// (interrupted), or an error (kind: the host's name for it, "" when it gives none). who is
// the user as the text names them.
func haltWhat(interrupted bool, kind, who string) string {
	switch {
	case interrupted:
		return who + " stopped the agent (Esc)"
	case kind != "":
		return "the turn ended on an error (" + Printable(firstLine(kind, 80)) + ")"
	}
	return "the turn ended on an error"
}

// Halted is the user's line when the host ended a turn of an active loop without a stop
// (see haltWhat): no stop came, so the loop waits, and the user's next message goes on
// with it.
func Halted(l *state.Loop, interrupted bool, kind string, w Words) string {
	return fmt.Sprintf("ralph-loop: %s; the loop is still active at iteration %d/%d and goes on with your next message (%s ends it)",
		haltWhat(interrupted, kind, "you"), l.Iteration, l.MaxIterations, w.cancel())
}

// ReasonHalted is for a turn the host ended without a stop.
func ReasonHalted(interrupted bool, kind string) string {
	return haltWhat(interrupted, kind, "the user") + ", with no stop; the loop goes on with the user's next prompt"
}

// NotifyTitle is a notification's title: how the loop ended, or that it paused, in words
// (the body gives the details).
func NotifyTitle(l *state.Loop) string {
	what := "the loop ended"
	switch l.Shown() {
	case state.PromiseAccepted:
		what = "task done"
	case state.MaxIterationsReached:
		what = "out of iterations, task not done"
	case state.TimeBudgetExhausted:
		what = "out of time, task not done"
	case state.BudgetExhausted:
		what = "out of budget, task not done"
	case state.NoProgress:
		what = "stopped without progress, task not done"
	case state.CutByHost:
		what = "the host ended the loop, task not done"
	case state.Cancelled:
		what = "loop cancelled"
	case state.SessionEnded:
		what = "the session ended, task not done"
	case state.Superseded:
		what = "replaced by a new loop"
	case state.Paused:
		what = "loop paused"
	case state.Active:
		what = "loop running"
	}
	return "ralph-loop: " + what
}

// NotifyBody is a notification's text: at which iteration, what it spent, why, and the
// task's first line.
func NotifyBody(l *state.Loop) string {
	why := l.EndReason
	if l.Paused() {
		why = l.Pause.Why + untilText(l.Pause)
	}
	s := fmt.Sprintf("iteration %d/%d, %s", l.Iteration, l.MaxIterations, Plural(l.ToolCalls, "tool call", "tool calls"))
	if !l.Spent.Empty() {
		s += ", spent " + l.Spent.String()
	}
	return fmt.Sprintf("%s: %s\n%s", s, firstLine(why, 200), firstLine(l.Task, 100))
}

// ReasonNotified is for a notification sent (how: "notify-send", "osascript", "bell"), or
// not (err).
func ReasonNotified(how string, err error) string {
	if err != nil {
		return fmt.Sprintf("could not notify: %v", err)
	}
	return "notified with " + how
}

// GoalActive is the arming notice's warning when the host shows its own goal active in the
// session (Claude Code's /goal, Codex's goals, Qwen Code's and Kilo Code's /goal): both
// would keep the agent going.
func GoalActive(goal string, w Words) string {
	g := ""
	if goal != "" {
		g = fmt.Sprintf(" (%q)", firstLine(Printable(goal), 120))
	}
	return fmt.Sprintf("Note: this session also has %s's own goal active%s, which keeps the agent going too: the agent would be pushed twice. "+
		"Clear it with /goal clear, or end this loop with %s", w.display(), g, w.cancel())
}

// GoalPaused is the arming notice's warning when the host's own goal for the session is
// paused (Kilo Code pauses it for any message or command, the loop's too): resumed, it would
// keep the agent going beside the loop.
func GoalPaused(goal string, w Words) string {
	g := ""
	if goal != "" {
		g = fmt.Sprintf(" (%q)", firstLine(Printable(goal), 120))
	}
	return fmt.Sprintf("Note: this session also has %s's own goal%s, paused: /goal resume would set it going beside this loop, "+
		"which would push the agent twice. Clear it with /goal clear, or end this loop first with %s", w.display(), g, w.cancel())
}
