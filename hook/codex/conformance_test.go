package codex

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Codex's payloads from the ones captured from Codex 0.169.0.
type fixture struct{ t *testing.T }

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{} }
func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	return hosttest.ClaudePayload(f.t, "codex", name, s, fields)
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

// SessionEnd: Codex has no such event.
func (fixture) SessionEnd(hosttest.Session) []byte { return nil }

// Said appends the model's message (and a tool call) to the rollout as Codex writes them.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	var lines []any
	if toolID != "" {
		lines = append(lines, map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{
			"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"true"}`, "call_id": toolID}})
	}
	lines = append(lines, map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{
		"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}})
	hosttest.AppendJSONL(f.t, s.Transcript, lines...)
}

func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	if code == 0 && len(stdout) != 0 {
		if err := checkWire(kind, stdout); err != nil {
			return hosttest.Reply{}, err
		}
	}
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t}) }
