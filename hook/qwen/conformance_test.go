package qwen

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Qwen Code's payloads from the ones captured from Qwen Code 0.24.4.
type fixture struct{ hosttest.Claude }

// Prompt is the user's own prompt: Qwen Code sends the typed text as submitted_prompt (and,
// without a command file, as prompt too).
func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.Base("UserPromptSubmit.json", s, map[string]any{"prompt": text, "submitted_prompt": text})
}

// Said does nothing: the Stop hook decides on last_assistant_message.
func (fixture) Said(hosttest.Session, string, string) {}

// Busy is a stop while a subagent runs in the background: synthetic, a captured stop with
// background_tasks and crons in the shape Qwen Code 0.24.4's source gives them (its
// background shells are not in the payload: see TestBackgroundShells).
func (f fixture) Busy(s hosttest.Session, last string) []byte {
	return f.Base("Stop.background.synthetic.json", s, map[string]any{"last_assistant_message": last})
}

func TestConformance(t *testing.T) {
	f := fixture{hosttest.NewClaude(t, Host{}, "run_shell_command", map[string]string{"QWEN_PROJECT_DIR": ""})}
	f.Events[hook.ToolUsed] = hosttest.Event{File: "PostToolUse.run_shell_command.json", Field: "tool_call_id"}
	// SessionEnd is synthetic: Qwen Code fires no SessionEnd in -p runs, where the captures
	// come from; the payload is a captured one's common fields with the documented reason.
	f.Events[hook.SessionEnd] = hosttest.Event{File: "SessionEnd.synthetic.json"}
	hosttest.Run(t, f)
}
