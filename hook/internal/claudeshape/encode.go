package claudeshape

import (
	"io"

	"github.com/ralph-loop/ralph-loop/hook"
)

// Encode writes the reply as Claude Code's hook output JSON (exit code 0; nothing at all
// for an empty reply, which lets everything go on).
func Encode(w, _ io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	if rep.Empty() {
		return 0, nil
	}
	out := Output{SystemMessage: rep.Notice}
	if rep.Block {
		out.Decision, out.Reason = "block", rep.Reason
	}
	switch {
	case rep.Deny:
		out.HookSpecificOutput = &Specific{HookEventName: ev.Name, PermissionDecision: "deny", PermissionDecisionReason: rep.DenyReason}
	case rep.Context != "":
		out.HookSpecificOutput = &Specific{HookEventName: ev.Name, AdditionalContext: rep.Context}
	}
	return WriteOutput(w, out)
}
