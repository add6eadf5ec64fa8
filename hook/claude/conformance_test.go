package claude

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Claude Code's payloads from the ones captured from Claude Code 2.1.330.
type fixture struct{ hosttest.Payloads }

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.Prompt:     {File: "UserPromptSubmit.json", Field: "prompt"},
	hook.Stop:       {File: "Stop.first-call.json", Field: "last_assistant_message"},
	hook.ToolUsed:   {File: "PostToolUse.Bash.json", Field: "tool_use_id"},
	hook.ToolCheck:  {File: "PreToolUse.Bash.json", Field: "tool_input.command"},
	hook.SessionEnd: {File: "SessionEnd.json"},
}

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{"CLAUDE_PROJECT_DIR": ""} }

// Said appends an assistant line as Claude Code writes it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	blocks := []map[string]any{{"type": "text", "text": text}}
	if toolID != "" {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": "true"}})
	}
	hosttest.AppendJSONL(f.T, s.Transcript, map[string]any{"type": "assistant", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": blocks}})
}

func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ClaudeReply(stdout, code)
}

func TestConformance(t *testing.T) {
	hosttest.Run(t, fixture{hosttest.Payloads{T: t, Dir: "claude", Session: hosttest.ClaudeSession, Events: events}})
}
