// Package copilot runs the real GitHub Copilot CLI, offline, against a scripted fake of the
// OpenAI Chat Completions API (COPILOT_PROVIDER_BASE_URL), with ralph-loop's hooks written by
// "ralph-loop install --host copilot". Nothing here is used by ralph-loop itself.
package copilot

import "github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"

// Shell is an answer with optional text, then a bash call (Copilot CLI's shell tool).
func Shell(text, command string) fakechat.Turn {
	return fakechat.Tool(text, "bash", map[string]any{"command": command, "description": "run a command"})
}
