package opencode

import (
	"math"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// perTurn is what each agent request reports in the budget scenarios: 2,000 prompt tokens
// of which 1,500 cached, and 300 completion tokens, which opencode records as 500 input,
// 1,500 cache reads and 300 output: 2,300 tokens.
var perTurn = fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}

const turnTokens = 2300

// price is the fake model's price in opencode's config: opencode's own cost of a turn is
// $0.0215 (500 x 10 + 1,500 x 1 + 300 x 50, per million).
var price = map[string]float64{"input": 10, "output": 50, "cache_read": 1, "cache_write": 10}

const turnCost = 0.0215

// TestBudget: on the real opencode, a loop that never promises ends BUDGET_EXHAUSTED at the
// stop where the tokens opencode recorded on the iteration's messages reach --max-tokens
// (the second iteration: 4,600 >= 4,000), or where opencode's own cost reaches --max-cost
// (the second: $0.043 >= $0.04). A model opencode has no price for (it reports a cost of 0)
// is not free: a cost budget pauses the loop at the first stop, naming it, and the loop
// waits (still active) for the user's price. A budget never reached
// changes nothing. (Each run starts "opencode serve": the iterations are kept few.)
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name, flags string
		cost        map[string]float64
		status      string
		iteration   int
		perTurn     float64 // cost; -1: unknown
		reason      string
	}{
		{"tokens", "--max-iterations 3 --max-tokens 4000", nil, "BUDGET_EXHAUSTED", 2, -1, "token budget of 4,000 was reached"},
		{"cost", "--max-iterations 3 --max-cost 0.04", price, "BUDGET_EXHAUSTED", 2, turnCost, "cost budget of $0.04 was reached"},
		{"unknown price", "--max-iterations 3 --max-cost 5", nil, "ACTIVE", 1, -1, "fake-model has no known price"},
		{"never reached", "--max-iterations 2 --max-tokens 1000000 --max-cost 50", price, "MAX_ITERATIONS_REACHED", 2, turnCost, "iteration limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorldWith(t, "", Script{WhenDone: Text("Still thinking."), Usage: &perTurn}, c.cost, "user")
			done := w.ended
			if c.status == "ACTIVE" {
				done = func() bool { return strings.Contains(w.toasts(), "loop paused") }
			}
			w.start(t, `!/ralph-loop "Think hard" --min-tool-calls 0 `+c.flags, done)
			l := w.onlyLoop(t)
			it := c.iteration
			expectLoop(t, l, c.status, it, 0)
			if c.status == "ACTIVE" {
				contains(t, "what the user was shown", w.toasts(), "loop paused at iteration 1/3", c.reason)
			} else {
				contains(t, "the end reason", l.EndReason, c.reason)
			}
			if n := len(w.srv.Fake.MainRequests()); n != it {
				t.Errorf("%d agent requests, want %d", n, it)
			}
			if want := int64(it * turnTokens); l.Tokens != want {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			switch {
			case c.perTurn < 0 && l.CostUSD != nil:
				t.Errorf("cost %v, want unknown", *l.CostUSD)
			case c.perTurn >= 0 && (l.CostUSD == nil || math.Abs(*l.CostUSD-float64(it)*c.perTurn) > 1e-9):
				t.Errorf("cost %v, want %v", l.CostUSD, float64(it)*c.perTurn)
			}
		})
	}
}
