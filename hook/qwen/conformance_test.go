package qwen

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Qwen Code's payloads from the ones captured from Qwen Code 0.24.4.
type fixture struct{ t *testing.T }

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{"QWEN_PROJECT_DIR": ""} }
func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	return hosttest.ClaudePayload(f.t, "qwen", name, s, fields)
}

// Prompt is the user's own prompt: Qwen Code sends the typed text as submitted_prompt (and,
// without a command file, as prompt too).
func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("UserPromptSubmit.json", s, map[string]any{"prompt": text, "submitted_prompt": text})
}

func (f fixture) Stop(s hosttest.Session, last string) []byte {
	return f.base("Stop.first-call.json", s, map[string]any{"last_assistant_message": last})
}

func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("PostToolUse.run_shell_command.json", s, map[string]any{"tool_call_id": id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("PreToolUse.run_shell_command.json", s, map[string]any{"tool_input.command": command})
}

// SessionEnd is synthetic: Qwen Code fires no SessionEnd in -p runs, where the captures
// come from; the payload is a captured one's common fields with the documented reason.
func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("SessionEnd.synthetic.json", s, map[string]any{})
}

// Said does nothing: the Stop hook decides on last_assistant_message.
func (fixture) Said(hosttest.Session, string, string) {}

func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t}) }
