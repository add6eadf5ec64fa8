package codex

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// perTurn is what each agent request reports in the budget scenarios: 2,000 input tokens of
// which 1,500 cached, and 300 output, which ralph-loop counts as 500 input, 1,500 cache
// reads and 300 output: 2,300 tokens.
var perTurn = Usage{Input: 2000, Cached: 1500, Output: 300}

const turnTokens = 2300

// TestBudget: on the real Codex CLI, a loop that never promises ends BUDGET_EXHAUSTED at the
// stop where what the rollout's token_usage_record lines say reaches the budget: by tokens
// at the third iteration (6,900 >= 5,000); by cost at the fourth, priced with the user's own
// "prices" (~/.config/ralph-loop/settings.json) for the model Codex names ($0.0215 a turn, $0.086 >= $0.08). A budget never
// reached changes nothing. A cost budget for a model with no known price is refused at
// arming: Codex names the model in the prompt's event.
func TestBudget(t *testing.T) {
	const prices = `{"prices": {"fake-model": {"input": 10, "cache_write": 10, "cache_read": 1, "output": 50}}}`
	for _, c := range []struct {
		name, flags, settings string
		status                string
		iteration             int
		cost                  float64 // per turn; -1: unknown
		reason                string
	}{
		{"tokens", "--max-tokens 5000", "", "BUDGET_EXHAUSTED", 3, -1, "token budget of 5,000 was reached"},
		{"cost", "--max-cost 0.08", prices, "BUDGET_EXHAUSTED", 4, 0.0215, "cost budget of $0.08 was reached"},
		{"never reached", "--max-tokens 1000000 --max-cost 50", prices, "MAX_ITERATIONS_REACHED", 5, 0.0215, "iteration limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t, Script{WhenDone: Text("Still thinking."), Usage: &perTurn})
			if c.settings != "" {
				dir := filepath.Join(env.Home, ".config", "ralph-loop")
				os.MkdirAll(dir, 0o700)
				if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(c.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := runOK(t, env, `/ralph-loop "Think hard" --max-iterations 5 --min-tool-calls 0 `+c.flags)
			l := loopOf(t, env, r.SessionID)
			expectLoop(t, l, c.status, c.iteration, 0)
			if !strings.Contains(l.EndReason, c.reason) {
				t.Errorf("end reason %q, want %q", l.EndReason, c.reason)
			}
			if n := len(env.Fake.Requests()); n != c.iteration {
				t.Errorf("%d model requests, want %d", n, c.iteration)
			}
			if want := int64(c.iteration * turnTokens); l.Tokens != want {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			switch {
			case c.cost < 0 && l.CostUSD != nil:
				t.Errorf("cost %v, want unknown", *l.CostUSD)
			case c.cost >= 0 && (l.CostUSD == nil || math.Abs(*l.CostUSD-float64(c.iteration)*c.cost) > 1e-9):
				t.Errorf("cost %v, want %v", l.CostUSD, float64(c.iteration)*c.cost)
			}
		})
	}
}

func TestBudgetUnknownModelRefused(t *testing.T) {
	env := newEnv(t, Script{WhenDone: Text("Still thinking."), Usage: &perTurn})
	runOK(t, env, `/ralph-loop "Think hard" --max-iterations 5 --min-tool-calls 0 --max-cost 5`)
	loops, err := env.Status(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 0 {
		t.Errorf("a loop was armed: %+v", loops[0])
	}
	// codex exec does not show a refused prompt's reason (testdata/script/budget.txtar checks it)
	if n := len(env.Fake.Requests()); n != 0 {
		t.Errorf("%d model requests, want none (the prompt is refused)", n)
	}
}
