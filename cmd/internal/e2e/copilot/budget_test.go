package copilot

import "testing"

// TestBudget: on the real Copilot CLI, the token budget scenario (see e2e.TokenBudget),
// from the session.usage_record events: Copilot CLI records a turn as inputTokens 2,000
// (the cached ones included), cacheReadTokens 1,500, outputTokens 300: 2,300 tokens.
func TestBudget(t *testing.T) { headless.Budget(t, false, nil) }
