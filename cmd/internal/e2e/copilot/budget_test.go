package copilot

import (
	"context"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// perTurn is what each agent request reports: 2,000 prompt tokens of which 1,500 cached,
// and 300 completion tokens, which Copilot CLI records as inputTokens 2,000 (the cached
// ones included), cacheReadTokens 1,500, outputTokens 300: 2,300 tokens.
var perTurn = fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}

// TestBudget: on the real Copilot CLI, a loop that never promises ends BUDGET_EXHAUSTED by
// --max-tokens at the stop where the session.usage_record events reach it; a budget never
// reached changes nothing.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name, flags, status string
		iteration           int
	}{
		{"tokens", "--max-tokens 5000", "BUDGET_EXHAUSTED", 3},
		{"never reached", "--max-tokens 1000000", "MAX_ITERATIONS_REACHED", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "user")
			res := run(t, e, Run{
				Script: Script{WhenDone: Text("Still thinking."), Usage: &perTurn},
				Prompt: `/ralph-loop "Think hard" --max-iterations 4 --min-tool-calls 0 ` + c.flags,
			})
			l := onlyLoop(t, e)
			t.Cleanup(func() {
				if t.Failed() {
					out, _ := e.RalphLoopCmd(context.Background(), "log")
					t.Logf("ralph-loop log:\n%s", out)
				}
			})
			expectLoop(t, l, c.status, c.iteration, 0)
			if n := len(res.Fake.MainRequests()); n != c.iteration {
				t.Errorf("%d agent requests, want %d", n, c.iteration)
			}
			if want := int64(c.iteration * 2300); l.Tokens != want {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
		})
	}
}
