package claude

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Claude Code's payloads from the ones captured from Claude Code 2.1.330.
type fixture struct{ t *testing.T }

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{"CLAUDE_PROJECT_DIR": ""} }
func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	return hosttest.ClaudePayload(f.t, "claude", name, s, fields)
}

func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("UserPromptSubmit.json", s, map[string]any{"prompt": text})
}

func (f fixture) Stop(s hosttest.Session, last string) []byte {
	return f.base("Stop.first-call.json", s, map[string]any{"last_assistant_message": last})
}

func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("PostToolUse.Bash.json", s, map[string]any{"tool_use_id": id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("PreToolUse.Bash.json", s, map[string]any{"tool_input.command": command})
}

func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("SessionEnd.json", s, map[string]any{})
}

// Said appends an assistant line as Claude Code writes it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	blocks := []map[string]any{{"type": "text", "text": text}}
	if toolID != "" {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": "true"}})
	}
	hosttest.AppendJSONL(f.t, s.Transcript, map[string]any{"type": "assistant", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": blocks}})
}

func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t}) }
