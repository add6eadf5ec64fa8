package inject

import "fmt"

// The guard's reasons: what the agent reads in the tool result when the PreToolUse hook
// denies one of its calls while its loop is active.

// GuardCommand denies running "ralph-loop SUB" (cancel, start, install, uninstall, hook).
func GuardCommand(sub string, w Words) string {
	return fmt.Sprintf("ralph-loop: \"ralph-loop %s\" would end or replace the loop, which only the user can do (%s). "+
		"Denied while the loop is active: keep working on the task, and output the promise only when it is truly done.", sub, w.cancel())
}

// GuardState denies a command that changes the state directory, or deletes, moves or
// overwrites a directory above it.
func GuardState(dir string, w Words) string {
	return fmt.Sprintf("ralph-loop: commands that change %s (this loop's state) are denied while the loop is active, "+
		"and so are commands that delete, move or overwrite a directory above it. Keep working on the task; only the user "+
		"can end the loop (%s). Reading the state is allowed.", dir, w.cancel())
}

// GuardFile denies a file tool writing in the state directory.
func GuardFile(tool, dir string, w Words) string {
	return fmt.Sprintf("ralph-loop: this loop's state is not the agent's to change: %s of a file in %s is denied while the "+
		"loop is active. Keep working on the task; only the user can end the loop (%s).", tool, dir, w.cancel())
}

// SandboxLeaveDenied denies a shell call that asks to run outside the host's sandbox.
func SandboxLeaveDenied(tool string, w Words) string {
	if tool == "" {
		tool = "this command"
	}
	return fmt.Sprintf("ralph-loop: %s asks to run outside %s's sandbox, which is denied while the loop is active: the "+
		"sandbox keeps the loop's files out of reach. Run it inside the sandbox (without asking to leave it), or do "+
		"without it; only the user can end the loop (%s).", tool, w.display(), w.cancel())
}

// GuardResume denies the host's CLI resuming or continuing a session from inside it.
func GuardResume(cli string, w Words) string {
	return fmt.Sprintf("ralph-loop: running %s to resume or continue a session from inside this one is denied while the "+
		"loop is active: it would hand this session a prompt the user never typed (such as %s), and only the user can end "+
		"the loop. Keep working on the task.", cli, w.cancel())
}

// GuardServer denies a request to the host's server that drives, aborts or deletes a
// session, or drives its TUI.
func GuardServer(cli string, w Words) string {
	return fmt.Sprintf("ralph-loop: sending %s's server a prompt or a command for a session, or aborting or deleting a "+
		"session through it, is denied while the loop is active: it could hand this session a prompt the user never typed "+
		"(such as %s) or end it, and only the user can end the loop. Keep working on the task.", cli, w.cancel())
}

// GuardKill denies ending the host's process, which would end the session and its loop.
func GuardKill(cli string, w Words) string {
	return fmt.Sprintf("ralph-loop: ending %s from inside the session would end the loop, which only the user can do (%s). "+
		"Denied while the loop is active: keep working on the task.", cli, w.cancel())
}

// GuardUnsure denies a command the guard could not read with certainty and that names the
// state directory, ralph-loop or the session.
func GuardUnsure(w Words) string {
	return fmt.Sprintf("ralph-loop: this command could not be read with certainty and it names ralph-loop, its state or "+
		"this session, so it is denied while the loop is active (only the user ends the loop: %s). If it only reads, "+
		"write it more simply; otherwise keep working on the task.", w.cancel())
}

// GuardTooComplex denies a command the guard could not finish reading within its budget.
func GuardTooComplex(w Words) string {
	return fmt.Sprintf("ralph-loop: this command is too complex to check; split the command into simpler ones (while the "+
		"loop is active, every command is checked; only the user ends the loop: %s).", w.cancel())
}

// GuardProtected denies changing a path the loop depends on besides its state directory:
// ralph-loop's copies of the loop's state, or the host's hook configuration.
func GuardProtected(path, dir string, w Words) string {
	return fmt.Sprintf("ralph-loop: %s keeps this loop going (with its state in %s): changing, moving or deleting it, or a "+
		"directory above it, is denied while the loop is active. Keep working on the task; only the user can end the loop "+
		"(%s). Reading it is allowed.", path, dir, w.cancel())
}
