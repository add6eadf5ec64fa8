// Package inject writes every text the agent or the user reads: the prompt contract given
// when a loop is armed, the continuation sent when a stop is blocked, the short notices shown
// to the user, and the slash-command files that install writes.
package inject

import (
	"fmt"
	"strings"

	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// MaxTaskInline is the longest task repeated in full in a message to the agent. Claude Code
// caps every hook output string at 10,000 characters; a longer task is cut and the agent is
// pointed at the file that holds all of it.
const MaxTaskInline = 6000

// taskBlock returns the task as the agent should read it: whole when short, otherwise its
// beginning and the path of the file with the rest.
func taskBlock(l *state.Loop) string {
	if len(l.Task) <= MaxTaskInline {
		return l.Task
	}
	cut := MaxTaskInline
	for cut > 0 && !startsRune(l.Task[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[… the task is %d bytes long; this is its beginning. Read the whole task in %s before you go on.]",
		l.Task[:cut], len(l.Task), l.TaskFile)
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// Plural returns "1 thing" or "n things".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Contract is the context given to the agent when a loop is armed.
func Contract(l *state.Loop) string {
	marker := promise.Marker(l.CompletionPromise)
	var b strings.Builder
	fmt.Fprintf(&b, "ralph-loop: a loop is now active for this session. Keep working on the task below until it is completely done; you have up to %s.\n\n",
		Plural(l.MaxIterations, "iteration", "iterations"))
	fmt.Fprintf(&b, "TASK:\n%s\n\n", taskBlock(l))
	b.WriteString("RULES:\n")
	fmt.Fprintf(&b, "1. Only when the task is fully complete, output exactly %s in your reply.\n", marker)
	fmt.Fprintf(&b, "2. The marker must match exactly: the same tags, text, case and spacing. No variants: a bare %q, other tags or a paraphrase do not count.\n", l.CompletionPromise)
	b.WriteString("3. If the task is not fully done, do not output the marker: not to end the loop, not because you are stuck, not because the iterations run out. Keep working instead.\n")
	if l.MinToolCalls > 0 && l.OnPromiseNoWork == state.NoWorkReject {
		fmt.Fprintf(&b, "4. The marker counts only after real work: at least %s since the loop started.\n", Plural(l.MinToolCalls, "tool call", "tool calls"))
	}
	b.WriteString("Each time you try to stop without the marker, you will be given this task again.")
	return b.String()
}

// Why a stop was blocked.
const (
	BlockNoPromise = iota
	BlockNoWork
)

// Continuation is the block reason the agent reads when its stop is blocked; l is the loop
// after the block (its Iteration is the one starting).
func Continuation(l *state.Loop, why int) string {
	marker := promise.Marker(l.CompletionPromise)
	var b strings.Builder
	fmt.Fprintf(&b, "ralph-loop: iteration %d/%d. Your stop was blocked: ", l.Iteration, l.MaxIterations)
	switch why {
	case BlockNoWork:
		fmt.Fprintf(&b, "you output the completion marker, but only %s been made since the loop started and at least %d %s required. Do the real work first.\n",
			Plural(l.ToolCalls, "tool call has", "tool calls have"), l.MinToolCalls, map[bool]string{true: "is", false: "are"}[l.MinToolCalls == 1])
	default:
		b.WriteString("the completion marker was not in your output.\n")
	}
	fmt.Fprintf(&b, "Keep working on the task. Only when it is fully complete, output exactly %s (exact match, no variants). If it is not done, do not output it.\n\n", marker)
	fmt.Fprintf(&b, "TASK:\n%s", taskBlock(l))
	return b.String()
}

// BlockNotice is the short line shown to the user when a stop is blocked.
func BlockNotice(l *state.Loop, why int) string {
	if why == BlockNoWork {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: promise rejected, no real work yet (%d/%d tool calls)", l.Iteration, l.MaxIterations, l.ToolCalls, l.MinToolCalls)
	}
	return fmt.Sprintf("ralph-loop: iteration %d/%d: no promise yet, continuing", l.Iteration, l.MaxIterations)
}

// Armed is the notice shown to the user when a loop is armed.
func Armed(l *state.Loop, replaced *state.Loop, blockCap int) string {
	s := fmt.Sprintf("ralph-loop: loop armed: up to %s, done on %s", Plural(l.MaxIterations, "iteration", "iterations"), promise.Marker(l.CompletionPromise))
	if l.MinToolCalls > 0 {
		s += fmt.Sprintf(" after at least %s", Plural(l.MinToolCalls, "tool call", "tool calls"))
	}
	if replaced != nil {
		s += fmt.Sprintf(" (replaces the loop started %s, now %s)", replaced.StartedAt.Local().Format("15:04:05"), state.Superseded)
	}
	if w := CapWarning(l, blockCap); w != "" {
		s += ". " + w
	}
	return s
}

// CapWarning explains, when it applies, that the host will end a turn before the loop's last
// iteration if the agent never calls a tool.
func CapWarning(l *state.Loop, blockCap int) string {
	if blockCap <= 0 || l.MaxIterations-1 <= blockCap {
		return ""
	}
	return fmt.Sprintf("Note: Claude Code ends a turn after %d stop blocks in a row without a tool call (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP); "+
		"run \"ralph-loop install\" and start a new session to raise it", blockCap)
}

// Accepted is the notice shown when the promise ends the loop.
func Accepted(l *state.Loop) string {
	s := fmt.Sprintf("ralph-loop: promise accepted at iteration %d/%d after %s: loop complete",
		l.Iteration, l.MaxIterations, Plural(l.ToolCalls, "tool call", "tool calls"))
	if l.ToolCalls < l.MinToolCalls {
		s += fmt.Sprintf(" (warning: fewer than the %d required, accepted by --on-promise-no-work=%s)", l.MinToolCalls, l.OnPromiseNoWork)
	}
	return s
}

// MaxReached is the notice shown when the iteration limit ends the loop.
func MaxReached(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: iteration limit reached (%d/%d) without the promise: loop over", l.Iteration, l.MaxIterations)
}

// CutByHost explains why the loop ended when the host's block cap was about to end the turn.
func CutByHost(l *state.Loop, blockCap int) string {
	return fmt.Sprintf("ralph-loop: loop ended at iteration %d/%d: Claude Code ends a turn after %d stop blocks in a row without a tool call "+
		"(CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%d); run \"ralph-loop install\" and start a new session to raise the cap",
		l.Iteration, l.MaxIterations, blockCap, blockCap)
}

// Cancelled is the reason shown when /cancel-ralph ends a loop.
func Cancelled(l *state.Loop) string {
	return fmt.Sprintf("ralph loop cancelled at iteration %d/%d", l.Iteration, l.MaxIterations)
}

// NothingToCancel is the reason shown when /cancel-ralph finds no active loop.
const NothingToCancel = "no active ralph loop in this session"

// ArgError is the reason shown when /ralph-loop has bad arguments.
func ArgError(err error) string {
	return fmt.Sprintf("ralph-loop: %v; nothing was started. %s", err, "Usage: /ralph-loop \"TASK\" [--max-iterations N] [--completion-promise TOKEN] [--min-tool-calls N] [--on-promise-no-work reject|warn|accept]")
}

// Help is the reason shown for /ralph-loop --help.
const Help = `ralph-loop: keep working on a task, in this session, until it is really done.
usage: /ralph-loop "TASK" [flags]
  --max-iterations N           most agent turns before the loop gives up (default 25)
  --completion-promise TOKEN   the agent ends the loop by printing <promise>TOKEN</promise> (default DONE)
  --min-tool-calls N           tool calls required before the promise counts (default 1)
  --on-promise-no-work MODE    a promise before that: reject (default), warn or accept
/cancel-ralph ends the loop; "ralph-loop status" in a terminal shows it.`
