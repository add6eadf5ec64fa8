// Package droid runs the real Factory Droid CLI, offline, against a scripted fake of the
// OpenAI Chat Completions API (a BYOK custom model in ~/.factory/settings.json), with
// ralph-loop installed as its hooks by "ralph-loop install --host droid", through "droid exec"
// and its --input-format stream-jsonrpc. Nothing here is used by ralph-loop itself.
package droid

import "github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"

// The scripted fake of the OpenAI Chat Completions API the CLI runs against (see fakechat).
type (
	Turn   = fakechat.Turn
	Script = fakechat.Script
	Fake   = fakechat.Fake
)

// Text is a plain answer.
func Text(s string) Turn { return fakechat.Text(s) }

// Execute is an answer with optional text, then an Execute call: Factory Droid refuses one
// without riskLevel and riskLevelReason.
func Execute(text, command string) Turn {
	return fakechat.Tool(text, "Execute", map[string]any{"command": command, "riskLevel": "low", "riskLevelReason": "a test's command"})
}

// Tool is an answer with optional text, then a call of another tool.
func Tool(text, name string, args map[string]any) Turn { return fakechat.Tool(text, name, args) }

// StartFake serves script on 127.0.0.1.
func StartFake(script Script) (*Fake, error) { return fakechat.StartFake(script) }
