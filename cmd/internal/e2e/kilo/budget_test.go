package kilo

import (
	"context"
	"math"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// perTurn is what each agent request reports: 2,000 prompt tokens of which 1,500 cached, and
// 300 completion tokens, which Kilo records (as opencode does) as 500 input, 1,500 cache
// reads and 300 output: 2,300 tokens; at price, Kilo's own cost of a turn is $0.0215.
var perTurn = fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}

var price = map[string]float64{"input": 10, "output": 50, "cache_read": 1, "cache_write": 10}

// TestBudget: Kilo's usage reaches ralph-loop as opencode's does: a loop that never promises
// ends BUDGET_EXHAUSTED at the stop where the tokens Kilo recorded reach --max-tokens, or
// where Kilo's own cost reaches --max-cost (the second iteration each time).
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name, flags string
		reason      string
	}{
		{"tokens", "--max-iterations 3 --max-tokens 4000", "token budget of 4,000 was reached"},
		{"cost", "--max-iterations 3 --max-cost 0.04", "cost budget of $0.04 was reached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			suite.Need(t)
			e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
			if err != nil {
				t.Fatal(err)
			}
			e.ModelCost = price
			if _, err := e.Install(context.Background(), "user"); err != nil {
				t.Fatal(err)
			}
			w := serve(t, e, Script{WhenDone: Text("Still thinking."), Usage: &perTurn})
			w.start(t, `!/ralph-loop "Think hard" --min-tool-calls 0 `+c.flags, w.ended)
			l := onlyLoop(t, e)
			expectLoop(t, l, "BUDGET_EXHAUSTED", 2, 0)
			contains(t, "the end reason", l.EndReason, c.reason)
			if l.Tokens != 2*2300 {
				t.Errorf("%d tokens counted, want %d", l.Tokens, 2*2300)
			}
			if l.CostUSD == nil || math.Abs(*l.CostUSD-2*0.0215) > 1e-9 {
				t.Errorf("cost %v, want %v", l.CostUSD, 2*0.0215)
			}
		})
	}
}
