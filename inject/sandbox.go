package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/state"
)

// Why a host's sandbox is not a wall around ralph-loop's files (state.Loop.Sandbox).
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

// SandboxToolsWrite is why a host's sandbox is not a wall: the host's file tools, which run
// outside it, may write a path ralph-loop trusts (no deny rule names it).
func SandboxToolsWrite(path string) string {
	return "Claude Code's file tools may write " + path + " (no Edit deny rule names it; ralph-loop install --sandbox adds them)"
}

// SandboxChecksOutside is why a host's sandbox is not a wall around the loop: its checks,
// which run what the agent wrote, cannot run in the same sandbox here.
func SandboxChecksOutside(why string) string {
	return "the loop's checks cannot run in the sandbox here (" + why + ")"
}

// SandboxPolicyOff is why a host's sandbox is off by the session's own policy (Codex's
// danger-full-access, also set by --dangerously-bypass-approvals-and-sandbox).
func SandboxPolicyOff(policy string) string {
	return "the session runs without the sandbox (" + policy + ")"
}

// SandboxWritable is why a host's sandbox is not a wall: it lets the agent's commands write
// a path ralph-loop trusts.
func SandboxWritable(path string) string {
	return "the sandbox lets the agent's commands write " + path
}

// The walls around a loop's files, the strongest first (state.Loop.Wall).
const (
	WallSandbox  = "sandbox"
	WallProcess  = "process table"
	WallSpelling = "spelling only"
)

// Wall names the strongest wall in force around a loop: the host's sandbox (the agent's
// processes cannot write ralph-loop's files), the process table (who asks is told by
// process; what the agent's processes write is put back or refused), or the guard's reading
// of commands only. why says why a stronger one is not.
func Wall(l *state.Loop, processTable bool) (wall, why string) {
	switch {
	case l.Sandbox == state.SandboxOn:
		return WallSandbox, ""
	case l.Owner != nil && processTable:
		return WallProcess, l.Sandbox
	}
	return WallSpelling, l.Sandbox
}

// WallNotice is the arming notice's word on the wall around the loop, for a host with a
// sandbox.
func WallNotice(l *state.Loop, processTable bool, w Words) string {
	wall, why := Wall(l, processTable)
	switch wall {
	case WallSandbox:
		return fmt.Sprintf(". %s's sandbox keeps the agent's commands away from the loop's files", w.display())
	case WallProcess:
		return fmt.Sprintf(". Walls: %s, so the process table and the guard keep the agent away from the loop's files%s", sandboxWhy(why), w.sandboxHint())
	}
	return fmt.Sprintf(". Walls: %s, so only the guard's reading of commands keeps the agent away from the loop's files%s", sandboxWhy(why), w.sandboxHint())
}

func sandboxWhy(why string) string {
	if why == "" {
		return "the sandbox is not known to be on"
	}
	return why
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
	"cannot (Linux needs the bubblewrap and socat packages). ralph-loop's state, its keep, the binary the hooks run, Claude " +
	"Code's settings files and its session transcripts are denied to those commands and to Claude Code's file tools. " +
	"ralph-loop uninstall takes this out again"

// SandboxNotShared is the note for a file of ralph-loop's that a shared settings file
// cannot name (a path of this machine's, outside the home directory and the project).
func SandboxNotShared(path string) string {
	return "--sandbox: " + path + " is not named in the shared settings (a path of this machine's); outside the project the " +
		"sandbox keeps it read-only anyway (install --sandbox --scope local names it)"
}
