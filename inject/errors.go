package inject

import (
	"fmt"
)

// The errors and warnings of ralph-loop's hooks: one line each, on stderr and, where the host
// shows it, to the user. Every one starts "ralph-loop: error: " or "ralph-loop: warning: ",
// then says what failed, then (after "; ") what ralph-loop did about it.

const (
	errorPrefix   = "ralph-loop: error: "
	warningPrefix = "ralph-loop: warning: "
)

// Error is the line of an error with nothing more to say than err.
func Error(err error) string { return errorPrefix + err.Error() }

// Errorf is the line of an error, formatted.
func Errorf(format string, a ...any) string { return errorPrefix + fmt.Sprintf(format, a...) }

// BadEvent is for a hook event whose input cannot be used.
func BadEvent(event string, err error) string { return Errorf("%s hook: %v", event, err) }

// ReplyFailed is for the reply to the host could not be written.
func ReplyFailed(host string, err error) string { return Errorf("write the %s reply: %v", host, err) }

// StateMovedAside is for an unreadable state file, moved aside; the agent may stop.
func StateMovedAside(err error, to string) string {
	return Errorf("%v; moved it to %s and let the agent stop", err, to)
}

// StateNotMoved is for an unreadable state file that could not be moved aside either.
func StateNotMoved(err, moveErr error) string {
	return Errorf("%v; moving it aside failed too: %v", err, moveErr)
}

// LockStuck is for the session's lock was not had in time (at an event other than a stop,
// which is blocked instead): nothing was changed.
func LockStuck(err error) string {
	return Errorf("%v; nothing was changed", err)
}

// NothingStarted is for a loop command refused before anything was armed.
func NothingStarted(err error) string { return Errorf("%v; nothing was started", err) }

// CannotLoop is for a session in which the host cannot run a loop (why says so).
func CannotLoop(why string) string { return "ralph-loop: " + why + "; nothing was started" }

// ArmFailed is for the loop could not be armed.
func ArmFailed(err error) string { return Errorf("could not start the loop: %v", err) }

// CancelFailed is for the loop could not be cancelled.
func CancelFailed(err error) string { return Errorf("could not cancel the loop: %v", err) }

// TranscriptUnread is for the transcript could not be read; the stop was decided without it.
func TranscriptUnread(err error) string {
	return warningPrefix + fmt.Sprintf("%v; decided on the last message alone", err)
}

// Quarantined is added to a notice when an unreadable state file was moved aside.
func Quarantined(path string) string {
	return fmt.Sprintf(" (an unreadable state file was moved to %s)", path)
}
