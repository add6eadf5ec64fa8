package qwen

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Qwen Code's payloads from the ones captured from Qwen Code 0.24.4.
type fixture struct{ hosttest.Payloads }

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.Stop:      {File: "Stop.first-call.json", Field: "last_assistant_message"},
	hook.ToolUsed:  {File: "PostToolUse.run_shell_command.json", Field: "tool_call_id"},
	hook.ToolCheck: {File: "PreToolUse.run_shell_command.json", Field: "tool_input.command"},
	// SessionEnd is synthetic: Qwen Code fires no SessionEnd in -p runs, where the captures
	// come from; the payload is a captured one's common fields with the documented reason.
	hook.SessionEnd: {File: "SessionEnd.synthetic.json"},
}

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{"QWEN_PROJECT_DIR": ""} }

// Prompt is the user's own prompt: Qwen Code sends the typed text as submitted_prompt (and,
// without a command file, as prompt too).
func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.Base("UserPromptSubmit.json", s, map[string]any{"prompt": text, "submitted_prompt": text})
}

// Said does nothing: the Stop hook decides on last_assistant_message.
func (fixture) Said(hosttest.Session, string, string) {}

func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) {
	hosttest.Run(t, fixture{hosttest.Payloads{T: t, Dir: "qwen", Session: hosttest.ClaudeSession, Events: events}})
}
