package copilot

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestBudget: on the real Copilot CLI, the token budget scenario (see e2e.TokenBudget),
// from the session.usage_record events: Copilot CLI records a turn as inputTokens 2,000
// (the cached ones included), cacheReadTokens 1,500, outputTokens 300: 2,300 tokens.
func TestBudget(t *testing.T) {
	e2e.TokenBudget(t, "copilot", func(t *testing.T, script Script, prompt string) (e2e.Host, *Fake) {
		e := newEnv(t, "user")
		return e, run(t, e, Run{Script: script, Prompt: prompt}).Fake
	}, false, nil)
}
