package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of who may end a loop: refusals, what was put back, hooks that stopped
// answering. Every refusal says what the user does instead.

// RefusedInside answers a loop command (command: "/cancel-ralph", "ralph-loop cancel") sent
// from a process below the host of session's active loop: the agent's own shell, or a host
// the agent started. who names the process.
func RefusedInside(command, who, session string, h Words) string {
	return fmt.Sprintf("ralph-loop: refused: %s came from %s, which runs inside the agent session %s (below the process "+
		"that runs it), not from you; only the user ends, restarts or unhooks a loop: type %s in that session, or run "+
		"\"ralph-loop cancel --session %s\" in your own terminal", command, who, session, h.cancel(), session)
}

// RefusedOtherHost answers a loop command sent by another host of a session whose loop
// belongs to a host process that still runs (comm, pid).
func RefusedOtherHost(command, comm string, pid int, session string, h Words) string {
	return fmt.Sprintf("ralph-loop: refused: session %s's loop belongs to %s (pid %d), which is still running; type %s there, "+
		"or run \"ralph-loop cancel --session %s\" in your own terminal", session, comm, pid, h.cancel(), session)
}

// RefusedCommand is the error of a ralph-loop command (cancel, start, install, uninstall)
// run below the host of session's active loop (comm, pid).
func RefusedCommand(command, session, comm string, pid int) string {
	return fmt.Sprintf("refused: %q runs inside the agent session %s (below %s, pid %d, the process that runs it), whose loop "+
		"is active; only the user ends, restarts or unhooks a loop: type /cancel-ralph in that session, or run this in your own "+
		"terminal, outside the agent", command, session, comm, pid)
}

// Pending tells the user what happened to the session's loop since they last heard from it:
// its state put back after something else changed it, attempts from inside refused.
func Pending(ps []state.Pending, h Words) string {
	var restored, refused, uncounted []string
	for _, p := range ps {
		switch p.What {
		case state.ActRestored:
			restored = append(restored, p.Why)
		case state.ActRefused:
			refused = append(refused, p.Why)
		case state.ActUncounted:
			uncounted = append(uncounted, p.Why)
		}
	}
	var parts []string
	if len(restored) > 0 {
		parts = append(parts, "this session's loop state was changed outside ralph-loop ("+strings.Join(restored, "; ")+
			"): ralph-loop put back its own copy, and the loop goes on")
	}
	if len(refused) > 0 {
		parts = append(parts, fmt.Sprintf("refused %s from inside this session to end, restart or unhook the loop (%s): "+
			"only you do that, with %s", Plural(len(refused), "attempt", "attempts"), strings.Join(refused, "; "), h.cancel()))
	}
	if len(uncounted) > 0 {
		parts = append(parts, fmt.Sprintf("not counted: %s the host could not have written (%s), so the loop's budget "+
			"is kept on the host's own figures (ralph-loop log shows each)", Plural(len(uncounted), "usage record", "usage records"),
			cutUnits(strings.Join(uncounted, "; "), 600)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "ralph-loop: " + strings.Join(parts, "; ")
}

// ConfigRefused is the reason a settings change that would unhook ralph-loop is refused
// (Claude Code's ConfigChange), for the host and the agent.
func ConfigRefused(file, why string, h Words) string {
	return fmt.Sprintf("ralph-loop: this change to %s is refused while this session's loop is active: %s. Only the user ends a "+
		"loop: ask them to type %s first", file, why, h.cancel())
}

// HooksSilent tells the user that another session's hooks stopped answering while its loop
// was active: its transcript was written after the last hook of it ran.
func HooksSilent(session, since string) string {
	return fmt.Sprintf("ralph-loop: session %s's hooks stopped answering while its loop was active (its transcript grew for %s "+
		"after the last ralph-loop hook ran): its hooks were probably turned off or removed; \"ralph-loop status\" shows it", session, since)
}

// LockHeld is the notice of a stop blocked because the session's lock is held by a process
// that is not ralph-loop.
func LockHeld(err error) string {
	return fmt.Sprintf("ralph-loop: warning: %v; this stop is blocked as the loop stood (its state could not be updated)", err)
}

// WriteFailed is the notice of a stop blocked as decided although its state could not be
// saved (a full disk).
func WriteFailed(err error) string {
	return fmt.Sprintf("ralph-loop: warning: %v; this stop is blocked as decided, but the loop cannot count it until its state "+
		"can be written (free some space); after 10 minutes like this, stops are let through", err)
}

// CancelQueued is the notice of a stop let through for a cancel the user queued while the
// agent worked.
func CancelQueued(l *state.Loop, h Words) string {
	if h.SteersCommands {
		return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d for the %s you typed while the agent worked (%s handed it to the agent, "+
			"not to ralph-loop): type %s now to end the loop; any other message resumes it", l.Iteration, l.MaxIterations, h.cancel(), h.display(), h.cancel())
	}
	return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d for the %s you typed; it ends when that command runs",
		l.Iteration, l.MaxIterations, h.cancel())
}

// QueuedCancelNotSent tells the user that the cancel the transcript showed queued never came
// as their prompt, so the loop goes on.
func QueuedCancelNotSent(l *state.Loop, h Words) string {
	if h.SteersCommands {
		return fmt.Sprintf("ralph-loop: the loop was paused for a %s typed while the agent worked, and your next message was not %s: "+
			"the loop goes on at iteration %d/%d (type %s to end it)", h.cancel(), h.cancel(), l.Iteration, l.MaxIterations, h.cancel())
	}
	return fmt.Sprintf("ralph-loop: the loop was paused for a %s that appeared in the session's transcript, but you did not send it: "+
		"the loop goes on at iteration %d/%d (type %s to end it)", h.cancel(), l.Iteration, l.MaxIterations, h.cancel())
}

// EndedBy says who or what ended a loop (state.Loop.EndedBy), for status and log.
func EndedBy(by string) string {
	switch by {
	case state.ByPromise:
		return "ralph-loop, accepting the agent's promise"
	case state.ByLimit:
		return "its limit (iterations or time)"
	case state.ByHost:
		return "the host's cap on blocked stops"
	case state.ByUser:
		return "the user, typing the cancel command in the session"
	case state.ByTerminal:
		return "\"ralph-loop cancel\" run outside the session (a terminal)"
	case state.ByInside:
		return "\"ralph-loop cancel\" run inside the session (where who runs it cannot be told)"
	case state.ByNewLoop:
		return "a new loop armed in the session"
	case state.BySessionEnd:
		return "the session's end"
	}
	return by
}

// AuthorityProcess says that a loop is guarded by who asks: only its host (comm, pid) sends
// its events, and nothing below that host ends it.
func AuthorityProcess(comm string, pid int) string {
	return fmt.Sprintf("only you: its events are taken from its host %s (pid %d) alone, and no process below that host "+
		"(the agent's shell, a host the agent starts) can end, restart or unhook it", comm, pid)
}

// AuthoritySpelling says that who asks cannot be told for a loop, and why: only the guard's
// reading of the agent's commands stands between the agent and the loop.
func AuthoritySpelling(why string) string {
	return "the guard's reading of the agent's commands only (" + why + ")"
}
