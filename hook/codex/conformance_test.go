package codex

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Codex's payloads from the ones captured from Codex 0.169.0.
type fixture struct{ hosttest.Claude }

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
	hosttest.AppendJSONL(f.T, s.Transcript, lines...)
}

func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	if code == 0 && len(stdout) != 0 {
		if err := checkWire(kind, stdout); err != nil {
			return hosttest.Reply{}, err
		}
	}
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) {
	f := fixture{hosttest.NewClaude(t, Host{}, "Bash", nil)}
	delete(f.Events, hook.SessionEnd) // Codex has no such event
	hosttest.Run(t, f)
}
