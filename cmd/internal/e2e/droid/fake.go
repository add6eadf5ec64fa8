// Package droid runs the real Factory Droid CLI, offline, against a scripted fake of the
// OpenAI Chat Completions API (a BYOK custom model in ~/.factory/settings.json), with
// ralph-loop installed as its hooks by "ralph-loop install --host droid", through "droid exec"
// and its --input-format stream-jsonrpc. Nothing here is used by ralph-loop itself.
package droid

import "github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"

// Execute is an answer with optional text, then an Execute call: Factory Droid refuses one
// without riskLevel and riskLevelReason.
func Execute(text, command string) fakechat.Turn {
	return fakechat.Tool(text, "Execute", map[string]any{"command": command, "riskLevel": "low", "riskLevelReason": "a test's command"})
}
