package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/state"
)

// Why a host's sandbox does not protect ralph-loop's files (state.Loop.Sandbox).
const (
	SandboxOff      = "the sandbox is off"
	SandboxWayOut   = "the agent's commands may leave the sandbox (allowUnsandboxedCommands is not false)"
	SandboxExcluded = "some commands run outside the sandbox (sandbox.excludedCommands)"
)

// SandboxMissing is why the host's sandbox cannot start: its programs are missing.
func SandboxMissing(missing []string, fix string) string {
	return fmt.Sprintf("the sandbox cannot start here: %s not found (%s)", strings.Join(missing, " and "), fix)
}

// SandboxUnsupported is why the host's sandbox cannot start on this system.
func SandboxUnsupported(goos string) string {
	return "the host has no sandbox on " + goos
}

// SandboxToolsWrite is why a host's sandbox does not protect a loop: the host's file tools,
// which run outside it, may write a path ralph-loop trusts (no deny rule names it).
func SandboxToolsWrite(path string) string {
	return "Claude Code's file tools may write " + path + " (no Edit deny rule names it; ralph-loop install --sandbox adds them)"
}

// SandboxChecksOutside is why a host's sandbox does not protect the loop: its checks,
// which run what the agent wrote, cannot run in the same sandbox here.
func SandboxChecksOutside(why string) string {
	return "the loop's checks cannot run in the sandbox here (" + why + ")"
}

// SandboxPolicyOff is why a host's sandbox is off by the session's own policy (Codex's
// danger-full-access, also set by --dangerously-bypass-approvals-and-sandbox).
func SandboxPolicyOff(policy string) string {
	return "the session runs without the sandbox (" + policy + ")"
}

// SandboxWritable is why a host's sandbox does not protect ralph-loop's files: it lets the
// agent's commands write a path ralph-loop trusts.
func SandboxWritable(path string) string {
	return "the sandbox lets the agent's commands write " + path
}

// What protects a loop's files from the agent's own processes, the strongest first (status
// --json's "protection").
const (
	// ProtectedBySandbox: the host's sandbox; the agent's commands cannot write
	// ralph-loop's files.
	ProtectedBySandbox = "sandbox"
	// ProtectedByProcess: no sandbox; ralph-loop tells the agent's processes from the
	// user's by the process table, refuses their loop commands and puts its files back.
	ProtectedByProcess = "process"
	// ProtectedByGuard: no sandbox, and who runs a command cannot be told: only the guard's
	// check of each command the agent runs.
	ProtectedByGuard = "guard"
)

// Protection says what protects a loop's files from the agent's processes: the host's
// sandbox, ralph-loop by process (who asks is told by the process table; what the agent's
// processes write is put back or refused), or the guard's check of each command alone. why
// says why the sandbox does not.
func Protection(l *state.Loop, processTable bool) (level, why string) {
	switch {
	case l.Sandbox == state.SandboxOn:
		return ProtectedBySandbox, ""
	case l.Owner != nil && processTable:
		return ProtectedByProcess, l.Sandbox
	}
	return ProtectedByGuard, l.Sandbox
}

// ProtectionNotice is what the arming notice says of what protects the loop's files, for a
// host with a sandbox.
func ProtectionNotice(l *state.Loop, processTable bool, w Words) string {
	level, why := Protection(l, processTable)
	switch level {
	case ProtectedBySandbox:
		return fmt.Sprintf(". %s's sandbox stops the agent's commands from changing the loop's files", w.display())
	case ProtectedByProcess:
		return fmt.Sprintf(". No sandbox protects the loop's files (%s): ralph-loop refuses loop commands from the agent and "+
			"puts its files back, but a script the agent runs can still change them%s", w.noSandboxWhy(why), w.sandboxHint())
	}
	return fmt.Sprintf(". No sandbox protects the loop's files (%s), and ralph-loop cannot tell the agent's commands from yours "+
		"here: only its check of each command the agent runs stands in the way%s", w.noSandboxWhy(why), w.sandboxHint())
}

// ProtectionLine is how status and doctor say what protects an active loop's files.
func ProtectionLine(l *state.Loop, processTable bool, w Words) string {
	level, why := Protection(l, processTable)
	switch level {
	case ProtectedBySandbox:
		return w.display() + "'s sandbox: the agent's commands cannot change ralph-loop's files"
	case ProtectedByProcess:
		return "ralph-loop alone, no sandbox (" + w.noSandboxWhy(why) + "): it refuses loop commands from the agent's " +
			"processes and puts its files back when they change"
	}
	return "ralph-loop's check of each command the agent runs, alone: no sandbox (" + w.noSandboxWhy(why) + "), and " +
		"ralph-loop cannot tell the agent's processes from yours here"
}

// Unprotected says, for a loop no sandbox protects, what a script of the agent's can still
// do, and what would stop it.
func Unprotected(w Words) string {
	s := "a script the agent writes and then runs (ralph-loop checks only the command that starts it) can still do what " +
		"you can: rewrite or delete ralph-loop's state, its copies and its key, replace the binary the hooks run, turn " +
		"the hooks off in " + w.display() + "'s settings, or detach itself and run \"ralph-loop cancel\", which then " +
		"looks like yours; "
	if w.SandboxOn == "" {
		return s + w.display() + " has no sandbox ralph-loop can use to stop that"
	}
	return s + w.display() + "'s sandbox stops that (" + w.SandboxOn + "): the agent's commands then run where those " +
		"files are read-only"
}

// DoctorSandbox is doctor's line on the host's sandbox for the agent's shell: on (st is
// state.SandboxOn), or why not and what that leaves open.
func DoctorSandbox(st string, w Words) string {
	if st == state.SandboxOn {
		return "sandbox: on: the agent's commands cannot change ralph-loop's files"
	}
	s := "sandbox: " + st + ": a script the agent runs can change ralph-loop's files (its state, the binary the hooks run, " +
		w.display() + "'s settings) and so end a loop unseen"
	if w.SandboxOn != "" {
		s += "; " + w.SandboxOn + ", and those files are then read-only to the agent's commands"
	}
	return s
}

// noSandboxWhy says why no sandbox protects a loop's files ("" from the loop: not known).
func (w Words) noSandboxWhy(why string) string {
	switch {
	case why != "":
		return why
	case w.SandboxOn == "":
		return w.display() + " has no sandbox ralph-loop can use"
	}
	return "the sandbox is not known to be on"
}

// sandboxHint says how to turn the host's sandbox on.
func (w Words) sandboxHint() string {
	if w.SandboxOn == "" {
		return ""
	}
	return " (" + w.SandboxOn + ")"
}

// SandboxSays is what install --sandbox tells the user, before it writes, that Claude Code's
// sandbox changes for their agent.
const SandboxSays = "--sandbox: Claude Code will run each of the agent's shell commands in its sandbox (bubblewrap on Linux, " +
	"Seatbelt on macOS): they write nothing outside the project and the session's temporary directory, reach the network " +
	"only through Claude Code's proxy, and cannot ask to leave the sandbox; Claude Code will not start where the sandbox " +
	"cannot (Linux needs the bubblewrap and socat packages). ralph-loop's state, its copies of the loops and their key, the binary " +
	"the hooks run, Claude Code's settings files and its session transcripts are denied to those commands and to Claude Code's file tools. " +
	"ralph-loop uninstall takes this out again"

// SandboxNotShared is the note for a file of ralph-loop's that a shared settings file
// cannot name (a path of this machine's, outside the home directory and the project).
func SandboxNotShared(path string) string {
	return "--sandbox: " + path + " is not named in the shared settings (a path of this machine's); outside the project the " +
		"sandbox keeps it read-only anyway (install --sandbox --scope local names it)"
}
