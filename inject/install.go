package inject

import (
	"fmt"

	"github.com/ralph-loop/ralph-loop/state"
)

// NotInstalledHere is the one line a project's committed hooks print on a machine that has
// no ralph-loop on PATH: the hooks do nothing there, and this says how to change that.
func NotInstalledHere(display string) string {
	return "ralph-loop: " + display + "'s ralph-loop hooks (a project's or a plugin's) run the ralph-loop binary, which is not on this machine's PATH; " +
		"loops (/ralph-loop) are off until you install it (" + GetIt + ")"
}

// HooksFindNone is the one line a hook command line prints, at the events that tell the
// user, when it finds neither ralph-loop nor the hook script that answers in its place (a
// teammate's machine without ralph-loop): short, for it is written into every such line.
func HooksFindNone() string {
	return "ralph-loop: not installed here, so /ralph-loop is off (npm install -g " + NPMPackage + ")"
}

// AfterInstall tells the user, after an install that changed something, what makes the
// hooks take effect, then how to start a loop (arm: the host's /ralph-loop): a new session
// of a host that reads its settings at start; a restart (or its reload command) of one whose
// hooks are a plugin or an extension of its own (kind), which it loads at start.
func AfterInstall(display, kind, reload, arm string) string {
	start := "Start a new " + display + " session (settings are read at start)"
	switch {
	case kind != "" && reload != "":
		start = "Restart " + display + ", or type " + reload + " in it (it loads " + kind + "s at start)"
	case kind != "":
		start = "Restart " + display + " (it loads " + kind + "s at start)"
	}
	return start + ", then type: " + arm + ` "TASK" --max-iterations 20`
}

// NPMPackage is the npm package that installs ralph-loop's native binary
// (npm install -g @ralph-loop/cli); the per-platform packages are named after it
// (@ralph-loop/cli-linux-x64, ...).
const NPMPackage = "@ralph-loop/cli"

// NPMShebang is the argument the command of the npm package hands the native binary when
// the system runs the binary as that command's interpreter ("#!<binary> --npm-shebang", the
// command's path after it): see cmd/internal/dist's launcher.
const NPMShebang = "--npm-shebang"

// GetIt is how to get ralph-loop, the ways README's install section lists, in brief.
const GetIt = "npm install -g " + NPMPackage + ", a release archive from https://github.com/ralph-loop/ralph-loop/releases, " +
	"or go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest"

// BinaryGone is the one line the hooks a user-scope install wrote print once the binary they
// run is gone: they do nothing, and this says how to get it back or take them out.
func BinaryGone(display, binary string) string {
	return "ralph-loop: " + display + "'s ralph-loop hooks run " + binary + ", which is gone; loops (/ralph-loop) are off. " +
		"Install it again (" + GetIt + ") and run ralph-loop install, or remove the hooks: npx " + NPMPackage + " uninstall"
}

// The texts of a hook's command line that cannot run ralph-loop (prog: its path, or
// "ralph-loop (on PATH)") in a session whose loop is active: see hook/install's command.go.

// FallbackBlock is the reason a stop is blocked with, for the agent.
func FallbackBlock(prog string) string {
	return "ralph-loop: this session's loop is still active, but " + FallbackMark + " " + prog +
		" (it is missing or not executable: moved, removed or changed), so nothing can check that the task is done and the loop goes on. " +
		"Do not try to end the loop: tell the user that ralph-loop must be put back, and go on with the task."
}

// FallbackMark is in every stop the hooks' script blocks by itself (FallbackBlock):
// the host records the reason in its transcript, which is how ralph-loop, once it runs
// again, knows the hooks saw it missing (hook's fallback). Plain ASCII words, so that every
// host's transcript holds them as they are.
const FallbackMark = "its hooks cannot run"

// FallbackNotice tells the user why the stops are blocked and what to do.
func FallbackNotice(display, prog string) string {
	return "ralph-loop: " + display + "'s hooks cannot run " + prog + " (missing or not executable), and this session's loop is active: " +
		"its stops are blocked until ralph-loop is back (" + GetIt + ", then ralph-loop install), or type /cancel-ralph to end the loop"
}

// FallbackLimit tells the user that the loop's iterations ran out while ralph-loop could not
// run: the stop is let through, the loop stays as it is for ralph-loop to see.
func FallbackLimit(display, prog string) string {
	return "ralph-loop: this session's loop used its last iteration while " + display + "'s hooks could not run " + prog +
		" (missing or not executable): the stop is let through; put ralph-loop back (" + GetIt + ") or type /cancel-ralph"
}

// FallbackCancelled answers the user's /cancel-ralph typed while ralph-loop cannot run.
func FallbackCancelled(prog string) string {
	return "ralph-loop: loop cancelled. " + prog + " cannot run now (missing or not executable); the cancel is recorded, " +
		"this session's stops are no longer blocked, and ralph-loop ends the loop when it runs again"
}

// FallbackConfig refuses a settings change while ralph-loop cannot run and a loop is active.
func FallbackConfig(display, prog string) string {
	return "ralph-loop: a loop is active in this session and " + display + "'s hooks cannot run " + prog +
		" (missing or not executable): settings changes are refused until ralph-loop is back or you type /cancel-ralph"
}

// FallbackCancelTaken tells the user that ralph-loop, running again, ended the loop for the
// /cancel-ralph the hooks recorded while it could not run.
func FallbackCancelTaken(l *state.Loop) string {
	return "ralph-loop: the /cancel-ralph you typed while ralph-loop could not run ended the loop (" + Cancelled(l) + ")"
}

// FallbackCancelRefused tells the user that a cancel file in the state directory was not
// the hooks' and changed nothing.
func FallbackCancelRefused(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: a cancel recorded in this session's state directory while ralph-loop could run was not the hooks' "+
		"(something inside the session wrote it): refused; the loop goes on (iteration %d/%d). To end it, type %s",
		l.Iteration, l.MaxIterations, w.cancel())
}

// MissedNotice tells the user that stops of the loop went through with no decision of
// ralph-loop's (n of them: their hook was killed before it answered, by something other
// than ralph-loop), and that the loop goes on.
func MissedNotice(l *state.Loop, n int, w Words) string {
	what := "the last stop"
	if n > 1 {
		what = fmt.Sprintf("%d stops", n)
	}
	return fmt.Sprintf("ralph-loop: %s of this loop went through with no decision: the hook was killed before it answered, "+
		"not by ralph-loop (something in the session kills its processes?). The loop goes on (iteration %d/%d) and its next stop is "+
		"blocked; %s ends it", what, l.Iteration, l.MaxIterations, w.cancel())
}
