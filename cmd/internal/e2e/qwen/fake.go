// Package qwen runs the real Qwen Code CLI, offline, against a scripted fake of the OpenAI
// Chat Completions API, with ralph-loop installed as its hooks by "ralph-loop install
// --host qwen". Nothing here is used by ralph-loop itself.
package qwen

import "github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"

// Shell is an answer with optional text, then a run_shell_command call.
func Shell(text, command string) fakechat.Turn {
	return fakechat.Tool(text, "run_shell_command", map[string]any{"command": command})
}
