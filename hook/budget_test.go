package hook

import (
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// TestDecideBudget: a token or cost budget ends the loop BUDGET_EXHAUSTED at the first stop
// where what was used reaches it; one not reached changes nothing; a model with no known
// price never counts as free; a
// record no reply can be is not counted; a promise still wins. A model with no known price
// counts at the highest prices known (never as free), or, where the user's own settings ask
// for it, pauses the loop for the user's price.
func TestDecideBudget(t *testing.T) {
	opus := func(in, out int64) []spend.Record {
		return []spend.Record{{Model: "claude-opus-5-5", Tokens: spend.Tokens{Input: in, Output: out}}}
	}
	tests := []struct {
		name   string
		l      state.Loop
		o      Observation
		want   Verdict
		reason string
		tokens int64
	}{
		{"no budget, usage counted", loop(nil), Observation{Usage: opus(1000, 100)}, Continue, "", 1100},
		{"below the token budget", loop(func(l *state.Loop) { l.MaxTokens = 2000 }), Observation{Usage: opus(1000, 100)}, Continue, "", 1100},
		{"token budget reached", loop(func(l *state.Loop) { l.MaxTokens = 1100 }), Observation{Usage: opus(1000, 100)}, Budget,
			"the token budget of 1,100 was reached without the promise: 1,100 tokens, $0.0060", 1100},
		{"token budget reached over iterations", loop(func(l *state.Loop) {
			l.MaxTokens = 2000
			l.Spent = spend.Spent{Tokens: spend.Tokens{Input: 1000}, CostUSD: 0.004}
		}), Observation{Usage: opus(1000, 0)}, Budget, "the token budget of 2,000 was reached", 2000},
		{"below the cost budget", loop(func(l *state.Loop) { l.MaxCost = 1 }), Observation{Usage: opus(100_000, 10_000)}, Continue, "", 110_000},
		{"cost budget reached", loop(func(l *state.Loop) { l.MaxCost = 0.6 }), Observation{Usage: opus(100_000, 10_000)}, Budget,
			"the cost budget of $0.60 was reached without the promise: 110,000 tokens, $0.60", 110_000},
		{"the user's price counts", loop(func(l *state.Loop) { l.MaxCost = 0.5; l.Prices = map[string]spend.Price{"claude-opus-5-5": {Input: 1}} }),
			Observation{Usage: opus(100_000, 10_000)}, Continue, "", 110_000},
		{"the host's cost counts", loop(func(l *state.Loop) { l.MaxCost = 2 }),
			Observation{Usage: []spend.Record{{Model: "fake", Tokens: spend.Tokens{Input: 5}, Cost: 2, HasCost: true}}}, Budget, "$2.00", 5},
		{"unknown model under a cost budget: counted at the highest prices, the loop goes on", loop(func(l *state.Loop) { l.MaxCost = 100 }),
			Observation{Usage: []spend.Record{{Model: "mystery", Tokens: spend.Tokens{Input: 5}}}}, Continue, "", 5},
		{"unknown model under a cost budget, its bound reached", loop(func(l *state.Loop) { l.MaxCost = 1 }),
			Observation{Usage: []spend.Record{{Model: "mystery", Tokens: spend.Tokens{Input: 100_000, Output: 10_000}}}}, Budget,
			"at most $2.25 with mystery counted at the highest prices ralph-loop knows", 110_000},
		{"unknown model under a cost budget, the user's settings pause it", loop(func(l *state.Loop) { l.MaxCost = 100; l.Unpriced = state.UnpricedPause }),
			Observation{Usage: []spend.Record{{Model: "mystery", Tokens: spend.Tokens{Input: 5}}}}, PausedForPrice, "", 5},
		{"unknown model under a cost budget, the token budget reached", loop(func(l *state.Loop) { l.MaxCost = 100; l.MaxTokens = 5 }),
			Observation{Usage: []spend.Record{{Model: "mystery", Tokens: spend.Tokens{Input: 5}}}}, Budget, "the token budget of 5 was reached", 5},
		{"a record beyond one reply is not counted", loop(func(l *state.Loop) { l.MaxTokens = 100_000 }),
			Observation{Usage: []spend.Record{{Model: "claude-opus-5-5", ID: "x", Tokens: spend.Tokens{Input: 900_000_000}}}}, Continue, "", 0},
		{"unknown model without a cost budget", loop(func(l *state.Loop) { l.MaxTokens = 100 }),
			Observation{Usage: []spend.Record{{Model: "mystery", Tokens: spend.Tokens{Input: 5}}}}, Continue, "", 5},
		{"a promise wins over a budget reached", loop(func(l *state.Loop) { l.MaxTokens = 10; l.ToolCalls = 1 }),
			Observation{Found: true, Usage: opus(1000, 100)}, Accept, "", 1100},
	}
	for _, tt := range tests {
		v, after := Decide(tt.l, tt.o)
		if v != tt.want || !strings.Contains(after.EndReason, tt.reason) || after.Spent.Total() != tt.tokens {
			t.Errorf("%s: got %v %s %q, %d tokens; want %v with %q, %d tokens", tt.name, v, after.Status, after.EndReason, after.Spent.Total(), tt.want, tt.reason, tt.tokens)
		}
		if v == Budget && (after.Status != state.BudgetExhausted || after.LastAction != state.ActBudget || after.Iteration != tt.l.Iteration) {
			t.Errorf("%s: got %s, %s at iteration %d", tt.name, after.Status, after.LastAction, after.Iteration)
		}
		if v == PausedForPrice && (after.Status != state.Active || after.LastAction != state.ActPaused || after.Iteration != tt.l.Iteration) {
			t.Errorf("%s: got %s, %s at iteration %d; want the loop active, paused, at the same iteration", tt.name, after.Status, after.LastAction, after.Iteration)
		}
	}
}
