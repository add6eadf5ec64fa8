package claude

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Claude Code's payloads from the ones captured from Claude Code 2.1.330.
type fixture struct{ hosttest.Claude }

// Said appends an assistant line as Claude Code writes it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	hosttest.AppendJSONL(f.T, s.Transcript, map[string]any{"type": "assistant", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": hosttest.ClaudeBlocks(text, toolID, "Bash")}})
}

// Busy is a stop while a command runs in the background, as captured from Claude Code
// 2.1.332.
func (f fixture) Busy(s hosttest.Session, last string) []byte {
	return f.Base("Stop.background.json", s, map[string]any{"last_assistant_message": last})
}

func TestConformance(t *testing.T) {
	hosttest.Run(t, fixture{hosttest.NewClaude(t, Host{}, "Bash", map[string]string{"CLAUDE_PROJECT_DIR": ""})})
}
