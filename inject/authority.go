package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"

	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of who may end a loop: refusals, what was put back, hooks that stopped
// answering. Every refusal says what the user does instead.

// RefusedInside answers a loop command (command: "/cancel-ralph", "ralph-loop cancel") sent
// from a process below the host of session's active loop: the agent's own shell, or a host
// the agent started. who names the process.
func RefusedInside(command, who, session string, w Words) string {
	return fmt.Sprintf("ralph-loop: refused: %s came from %s, which runs inside the agent session %s (below the process "+
		"that runs it), not from you; only the user ends, restarts or unhooks a loop: type %s in that session, or run "+
		"\"ralph-loop cancel --session %s\" in your own terminal", command, who, session, w.cancel(), session)
}

// RefusedUnseenPrompt answers a loop command (command) whose sender (who) may run below the
// host of session's active loop, which cannot be told (why).
func RefusedUnseenPrompt(command, who, session, why string, w Words) string {
	return fmt.Sprintf("ralph-loop: refused: %s came from %s, which may run inside the agent session %s: ralph-loop cannot tell (%s); "+
		"only the user ends, restarts or unhooks a loop: type %s in that session, or run \"ralph-loop cancel --session %s\" in your own terminal",
		command, who, session, why, w.cancel(), session)
}

// StopUnseen is the notice of a stop blocked as the loop stood because whether it came from
// the loop's host cannot be told (why).
func StopUnseen(why string) string {
	return fmt.Sprintf("ralph-loop: warning: ralph-loop cannot tell whether this stop came from the session's host (%s); it is blocked as the loop stood", why)
}

// RefusedOtherHost answers a loop command sent by another host of a session whose loop
// belongs to a host process that still runs (comm, pid).
func RefusedOtherHost(command, comm string, pid int, session string, w Words) string {
	return fmt.Sprintf("ralph-loop: refused: session %s's loop belongs to %s (pid %d), which is still running; type %s there, "+
		"or run \"ralph-loop cancel --session %s\" in your own terminal", session, comm, pid, w.cancel(), session)
}

// RefusedCommand is the error of a ralph-loop command (cancel, start, install, uninstall)
// run below the host of session's active loop (comm, pid).
func RefusedCommand(command, session, comm string, pid int) string {
	return fmt.Sprintf("refused: %q runs inside the agent session %s (below %s, pid %d, the process that runs it), whose loop "+
		"is active; only the user ends, restarts or unhooks a loop: type /cancel-ralph in that session, or run this in your own "+
		"terminal, outside the agent", command, session, comm, pid)
}

// RefusedUnseen is the error of a ralph-loop command (cancel, start, install, uninstall)
// that may run below the host of session's active loop (comm, pid): whether it does cannot
// be told (why), so it is taken to.
func RefusedUnseen(command, session, comm string, pid int, why string) string {
	return fmt.Sprintf("refused: %q may run inside the agent session %s, whose loop is active: ralph-loop cannot tell whether it runs "+
		"below %s (pid %d), the process that runs that session (%s); only the user ends, restarts or unhooks a loop: type /cancel-ralph "+
		"in that session, or run this in your own terminal, outside the agent", command, session, comm, pid, why)
}

// OtherNamespace says why a command cannot tell whether it runs below a loop's host.
const OtherNamespace = "it runs in another process namespace than that process, which it cannot see from there"

// Untraced names a sender whose chain of parent processes cannot be followed to its host.
func Untraced(err error) string {
	return fmt.Sprintf("a process ralph-loop cannot trace to its host (%v)", err)
}

// Pending tells the user what happened to the session's loop since they last heard from it:
// its state put back after something else changed it, attempts from inside refused.
func Pending(ps []state.Pending, w Words) string {
	var restored, refused, settings, uncounted, unpriced []string
	var goal []string
	for _, p := range ps {
		switch p.What {
		case state.PendingGoal:
			goal = append(goal, p.Why)
		case state.ActRestored:
			restored = append(restored, p.Why)
		case state.ActRefused:
			refused = append(refused, p.Why)
		case state.PendingSettings:
			settings = append(settings, p.Why)
		case state.ActUncounted:
			uncounted = append(uncounted, p.Why)
		case state.PendingUnpriced:
			unpriced = append(unpriced, p.Why)
		}
	}
	var parts []string
	if len(restored) > 0 {
		parts = append(parts, "this session's loop state was changed outside ralph-loop ("+strings.Join(restored, "; ")+
			"): ralph-loop put back its own copy, and the loop goes on")
	}
	if len(refused) > 0 {
		parts = append(parts, fmt.Sprintf("refused %s from inside this session to end, restart or unhook the loop (%s): "+
			"only you do that, with %s", Plural(len(refused), "attempt", "attempts"), strings.Join(refused, "; "), w.cancel()))
	}
	if len(settings) > 0 {
		parts = append(parts, fmt.Sprintf("kept %s's settings as they were when the loop was armed: refused %s (%s); "+
			"make it after the loop, or end the loop first with %s", w.display(), Plural(len(settings), "change", "changes"),
			strings.Join(settings, "; "), w.cancel()))
	}
	if len(uncounted) > 0 {
		parts = append(parts, fmt.Sprintf("not counted: %s the host could not have written (%s), so the loop's budget "+
			"is kept on the host's own figures (ralph-loop log shows each)", Plural(len(uncounted), "usage record", "usage records"),
			cutUnits(strings.Join(uncounted, "; "), 600)))
	}
	if len(unpriced) > 0 {
		parts = append(parts, fmt.Sprintf("%s no known price: the cost budget counts its tokens at the highest prices ralph-loop knows "+
			"(\"ralph-loop prices\") until you set one under %q in %s", strings.Join(unpriced, ", "), "prices", args.UserSettingsName))
	}
	parts = append(parts, goal...)
	if len(parts) == 0 {
		return ""
	}
	return "ralph-loop: " + strings.Join(parts, "; ")
}

// UnverifiedNotice tells the user that the session's loop is active but its state was
// changed outside ralph-loop and cannot be verified (why): nothing its files say is taken,
// and at a stop (stop) the stop is blocked.
func UnverifiedNotice(why string, w Words, stop bool) string {
	s := fmt.Sprintf("ralph-loop: this session's loop is active, but its state was changed outside ralph-loop and cannot be verified (%s): "+
		"it is not taken as ended, nor any promise in it", why)
	if stop {
		s += ", so this stop is blocked"
	}
	return s + fmt.Sprintf("; %s ends the loop (or \"ralph-loop cancel\" in your own terminal)", w.cancel())
}

// UnverifiedReason is the block reason the agent reads when its stop is blocked because
// the loop's state cannot be verified.
func UnverifiedReason(why string, w Words) string {
	return fmt.Sprintf("ralph-loop: your stop was blocked: this session's loop is still active, but its state was changed outside "+
		"ralph-loop and cannot be verified (%s), so nothing you output was judged. Keep working on the task you were given; only "+
		"the user ends the loop, with %s.", why, w.cancel())
}

// ArmUnverified is for a loop not armed because the session's active loop cannot be
// verified (err).
func ArmUnverified(err error, w Words) string {
	return Errorf("could not start the loop: %v; end that loop first with %s", err, w.cancel())
}

// ConfigRefused is the reason a settings change that would unhook ralph-loop is refused
// (Claude Code's ConfigChange), for the host and the agent.
func ConfigRefused(file, why string, w Words) string {
	return fmt.Sprintf("ralph-loop: this change to %s is refused while this session's loop is active: %s. Only the user ends a "+
		"loop: ask them to type %s first", file, why, w.cancel())
}

// SettingChanged is why a settings change is refused: key of file (or the file itself, key
// "") differs from what was in force when the loop was armed.
func SettingChanged(file, key string) string {
	if key == "" {
		return fmt.Sprintf("%s differs from when the loop was armed", file)
	}
	return fmt.Sprintf("%q in %s differs from when the loop was armed", key, file)
}

// SettingsUnreadable is why a settings change is refused when the settings cannot be read
// or told.
func SettingsUnreadable(err error) string {
	return fmt.Sprintf("ralph-loop cannot tell what the host would run after it (%v)", err)
}

// SettingsRefusedBefore is why a settings change is refused once a change to file was
// refused while the host runs: the host still holds what it had read of that file, and
// would read it again from the disk with any change it takes.
func SettingsRefusedBefore(file string, w Words) string {
	return fmt.Sprintf("a change to %s was refused before while this %s runs: it would read that file again with any change it takes, "+
		"so none is taken until %s starts again", file, w.display(), w.display())
}

// SettingsUnknown is why a settings change is refused in a loop armed without a record of
// the settings in force.
func SettingsUnknown() string {
	return "the loop was armed without a record of the settings in force, so no change can be told harmless"
}

// HooksSilent tells the user that another session's hooks stopped answering while its loop
// was active: its transcript was written after the last hook of it ran.
func HooksSilent(session, since string) string {
	return fmt.Sprintf("ralph-loop: session %s's hooks stopped answering while its loop was active (its transcript grew for %s "+
		"after the last ralph-loop hook ran): its hooks were probably turned off or removed; \"ralph-loop status\" shows it", session, since)
}

// StopUnrecorded is the notice of a stop blocked as the loop stood because its state could
// not be read, reached or saved (err): a lock held by a process that is not ralph-loop or
// that does not let it go, a file that cannot be written.
func StopUnrecorded(err error) string {
	return fmt.Sprintf("ralph-loop: warning: %v; this stop is blocked as the loop stood (its state could not be updated)", err)
}

// WriteFailed is the notice of a stop blocked as decided although its state could not be
// saved (a full disk).
func WriteFailed(err error) string {
	return fmt.Sprintf("ralph-loop: warning: %v; this stop is blocked as decided, but the loop cannot count it until its state "+
		"can be written (free some space)", err)
}

// CancelQueued is the notice of a stop let through for a cancel the user queued while the
// agent worked.
func CancelQueued(l *state.Loop, w Words) string {
	if w.SteersCommands {
		return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d for the %s you typed while the agent worked (%s handed it to the agent, "+
			"not to ralph-loop): type %s now to end the loop; any other message resumes it", l.Iteration, l.MaxIterations, w.cancel(), w.display(), w.cancel())
	}
	return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d for the %s you typed; it ends when that command runs",
		l.Iteration, l.MaxIterations, w.cancel())
}

// QueuedCancelNotSent tells the user that the cancel the transcript showed queued never came
// as their prompt, so the loop goes on.
func QueuedCancelNotSent(l *state.Loop, w Words) string {
	if w.SteersCommands {
		return fmt.Sprintf("ralph-loop: the loop was paused for a %s typed while the agent worked, and your next message was not %s: "+
			"the loop goes on at iteration %d/%d (type %s to end it)", w.cancel(), w.cancel(), l.Iteration, l.MaxIterations, w.cancel())
	}
	return fmt.Sprintf("ralph-loop: the loop was paused for a %s that appeared in the session's transcript, but you did not send it: "+
		"the loop goes on at iteration %d/%d (type %s to end it)", w.cancel(), l.Iteration, l.MaxIterations, w.cancel())
}

// EndedBy says who or what ended a loop (state.Loop.EndedBy, read with its status), for
// status and log.
func EndedBy(l *state.Loop) string {
	switch l.EndedBy {
	case state.ByPromise:
		return "ralph-loop, accepting the agent's promise"
	case state.ByLimit:
		switch l.Status {
		case state.MaxIterationsReached:
			return "its iteration limit (--max-iterations)"
		case state.TimeBudgetExhausted:
			return "its time budget (--max-time)"
		case state.BudgetExhausted:
			return "its token or cost budget (--max-tokens, --max-cost)"
		case state.NoProgress:
			return "the stall breaker (--max-stalls): too many iterations in a row without progress"
		}
		return "one of its limits"
	case state.ByHost:
		if l.Status == state.NoProgress {
			return "the host, which ended an iteration without a reply from the model"
		}
		return "the host's cap on blocked stops"
	case state.ByUser:
		return "you, typing the cancel command in the session"
	case state.ByTerminal:
		return "you, with \"ralph-loop cancel\" in a terminal"
	case state.ByInside:
		return "\"ralph-loop cancel\" run inside the session (a tool call or a shell escape, not the cancel command)"
	case state.ByCommand:
		return "\"ralph-loop cancel\", run by a program without a terminal (" + notSeen + ")"
	case state.ByNewLoop:
		return "a new loop armed in the session"
	case state.BySessionEnd:
		return "the session's end"
	}
	return l.EndedBy
}

// notSeen is why ralph-loop cannot tell whether a cancel run without a terminal came from
// the agent: the session's host was not known yet, or the process table cannot be read.
const notSeen = "ralph-loop could not see whether the agent started it"

// The end reasons of a loop cancelled with "ralph-loop cancel" (state.ByTerminal,
// ByInside, ByCommand).
const (
	EndCancelTerminal = "you cancelled it with ralph-loop cancel in a terminal"
	EndCancelInside   = "cancelled with ralph-loop cancel run inside the session (a tool call or a shell escape)"
	EndCancelCommand  = "cancelled with ralph-loop cancel, run by a program without a terminal (" + notSeen + ")"
)

// AuthorityProcess says that a loop is guarded by who asks: only its host (comm, pid) sends
// its events, and nothing below that host ends it.
func AuthorityProcess(comm string, pid int) string {
	return fmt.Sprintf("only you: its events are taken from its host %s (pid %d) alone, and no process below that host "+
		"(the agent's shell, a host the agent starts) can end, restart or unhook it", comm, pid)
}

// Why who runs a command cannot be told for a loop (AuthorityGuard).
const (
	NoProcessTable  = "this system's process table cannot be read"
	HostNotKnownYet = "no hook of its session has run since it was armed, so its host process is not known yet"
)

// AuthorityGuard says that who asks cannot be told for a loop, and why: only ralph-loop's
// check of each command the agent runs (the guard) stands between the agent and the loop.
func AuthorityGuard(why string) string {
	return "you, and the agent by any command that ralph-loop's check of each command misses (who runs a command " +
		"cannot be told here: " + why + ")"
}
