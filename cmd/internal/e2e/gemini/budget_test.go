package gemini

import (
	"fmt"
	"math"
	"testing"

	"github.com/ralph-loop/ralph-loop/spend"
)

// perTurn is what each agent request reports: 2,000 prompt tokens of which 1,500 cached,
// 200 candidates and 100 thoughts, which ralph-loop counts as 500 input, 1,500 cache reads
// and 300 output: 2,300 tokens, $0.0010125 at the price of Model.
var perTurn = Usage{Prompt: 2000, Cached: 1500, Candidates: 200, Thoughts: 100}

// TestBudget: on the real Gemini CLI, a loop that never promises ends BUDGET_EXHAUSTED at the
// stop where the tokens Gemini CLI recorded in its chat file reach the budget: by tokens or
// by cost at the third iteration (6,900 >= 5,000; $0.0030375 >= $0.003); a budget never
// reached changes nothing.
func TestBudget(t *testing.T) {
	p, ok := spend.Lookup(Model, nil)
	if !ok {
		t.Fatalf("no price for %s", Model)
	}
	turnCost := p.Cost(spend.Tokens{Input: 500, CacheRead: 1500, Output: 300})
	for _, c := range []struct {
		name, flags, status string
		iteration           int
	}{
		{"tokens", "--max-tokens 5000", "BUDGET_EXHAUSTED", 3},
		// Reached by the third turn's cost, whatever the price table says of the model.
		{"cost", fmt.Sprintf("--max-cost %.6f", 2.5*turnCost), "BUDGET_EXHAUSTED", 3},
		{"never reached", "--max-tokens 1000000 --max-cost 10", "MAX_ITERATIONS_REACHED", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			res := run(t, env, Run{
				Prompt: `/ralph-loop "Think it over" --max-iterations 4 --min-tool-calls 0 ` + c.flags,
				Script: Script{After: &Turn{Text: "Pass {n}: still thinking."}, Usage: &perTurn},
			})
			l := loopOf(t, env, res.SessionID)
			expectLoop(t, l, c.status, c.iteration, 0)
			if n := len(res.Fake.MainRequests()); n != c.iteration {
				t.Errorf("%d model requests, want %d", n, c.iteration)
			}
			if want := int64(c.iteration * 2300); l.Tokens != want {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			if want := float64(c.iteration) * turnCost; l.CostUSD == nil || math.Abs(*l.CostUSD-want) > 1e-9 {
				t.Errorf("cost %v, want %v", l.CostUSD, want)
			}
		})
	}
}
