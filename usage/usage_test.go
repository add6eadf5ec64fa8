package usage_test

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/codex"
	"github.com/ralph-loop/ralph-loop/hook/gemini"
	"github.com/ralph-loop/ralph-loop/usage"
)

// TestCost is the price arithmetic: each kind of token at its own price, per million.
func TestCost(t *testing.T) {
	opus := usage.Price{Input: 4, CacheWrite: 5, CacheRead: 0.20, Output: 20}
	for _, c := range []struct {
		name string
		p    usage.Price
		t    usage.Tokens
		want float64
	}{
		{"nothing", opus, usage.Tokens{}, 0},
		{"a million input", opus, usage.Tokens{Input: 1_000_000}, 4},
		{"a million of each", opus, usage.Tokens{Input: 1e6, CacheWrite: 1e6, CacheRead: 1e6, Output: 1e6}, 29.20},
		// Cache reads are not 0.1x input for every model: Opus 5.5's are 0.05x.
		{"cache reads", opus, usage.Tokens{CacheRead: 2_500_000}, 0.50},
		{"one turn", opus, usage.Tokens{Input: 2709, CacheWrite: 1200, CacheRead: 30000, Output: 310}, (2709*4 + 1200*5 + 30000*0.2 + 310*20) / 1e6},
		{"free model", usage.Price{}, usage.Tokens{Input: 1e9}, 0},
	} {
		if got := c.p.Cost(c.t); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSpentAdd: host costs count as given, known models at their price, and a model with
// no price leaves the cost unknown, never free.
func TestSpentAdd(t *testing.T) {
	rs := []usage.Record{
		{Model: "claude-opus-5-5", Tokens: usage.Tokens{Input: 1e6}},
		{Model: "anthropic/claude-opus-5-5-20260922", Tokens: usage.Tokens{Output: 1e6}},
		{Model: "anything", Tokens: usage.Tokens{Input: 10}, Cost: 0.5, HasCost: true},
	}
	s := usage.Spent{}.Add(rs, nil)
	if s.Total() != 2_000_010 || math.Abs(s.CostUSD-24.5) > 1e-9 || !s.CostKnown() {
		t.Errorf("got %+v, want 2000010 tokens, $24.50, known", s)
	}
	s = s.Add([]usage.Record{{Model: "mystery-1", Tokens: usage.Tokens{Output: 1}}}, nil)
	if s.CostKnown() || s.Unpriced[0] != "mystery-1" || s.String() != "2,000,011 tokens, cost unknown (no price for mystery-1)" {
		t.Errorf("got %+v (%s), want mystery-1 unpriced", s, s)
	}
	over := usage.Spent{}.Add([]usage.Record{{Model: "mystery-1", Tokens: usage.Tokens{Output: 1e6}}},
		map[string]usage.Price{"mystery-1": {Output: 3}})
	if !over.CostKnown() || over.CostUSD != 3 {
		t.Errorf("override: got %+v, want $3", over)
	}
	if d := s.Minus(usage.Spent{Tokens: usage.Tokens{Input: 1e6}, CostUSD: 4}); d.Total() != 1_000_011 || d.Unpriced[0] != "mystery-1" {
		t.Errorf("Minus: got %+v", d)
	}
	// A reply that used nothing needs no price.
	if z := (usage.Spent{}).Add([]usage.Record{{Model: "mystery-2"}}, nil); !z.CostKnown() {
		t.Errorf("empty record: got %+v", z)
	}
}

// TestDefaultModelsPriced: a table without the pinned hosts' default models would count
// every turn of theirs as unpriced.
func TestDefaultModelsPriced(t *testing.T) {
	for host, m := range map[string]string{"claude": claude.DefaultModel, "codex": codex.DefaultModel, "gemini": gemini.DefaultModel} {
		p, ok := usage.Lookup(m, nil)
		if !ok || p.Input <= 0 || p.Output <= 0 || p.CacheRead <= 0 || p.CacheWrite <= 0 {
			t.Errorf("%s's default model %s: price %+v, %v", host, m, p, ok)
		}
	}
	for _, e := range usage.Table() {
		if e.Source == "" || e.Price.Validate() != nil || e.Price.Output == 0 {
			t.Errorf("%s: price %+v from %q", e.Model, e.Price, e.Source)
		}
	}
}

// TestPricesFromProviders: each price in the table names the provider's own page (its API
// docs or price page), and no other site: no blog, no aggregator, no other library.
func TestPricesFromProviders(t *testing.T) {
	own := map[string][]string{ // by the model's prefix
		"claude-": {"platform.claude.com", "docs.anthropic.com", "www.anthropic.com"},
		"gpt-":    {"developers.openai.com", "platform.openai.com", "openai.com"},
		"gemini-": {"ai.google.dev", "cloud.google.com"},
	}
	site := regexp.MustCompile(`[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}\b`) // a host name
	for _, e := range usage.Table() {
		var domains []string
		for prefix, d := range own {
			if strings.HasPrefix(e.Model, prefix) {
				domains = d
			}
		}
		if domains == nil {
			t.Errorf("%s: no provider known for its name", e.Model)
			continue
		}
		sites := site.FindAllString(e.Source, -1)
		if len(sites) == 0 || !strings.HasPrefix(e.Source, sites[0]+"/") {
			t.Errorf("%s: source %q does not start with a page", e.Model, e.Source)
		}
		for _, s := range sites {
			if !slices.Contains(domains, s) {
				t.Errorf("%s: source %q names %s, not the provider's own site (%s)", e.Model, e.Source, s, strings.Join(domains, ", "))
			}
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-5-5":                 "claude-opus-5-5",
		"claude-opus-5-5[1m]":             "claude-opus-5-5",
		"claude-opus-4-5-20251101":        "claude-opus-4-5",
		"openai/gpt-6.1-sol-2026-09-29":   "gpt-6.1-sol",
		"models/gemini-2.5-pro":           "gemini-2.5-pro",
		" Claude-Opus-5-5 ":               "claude-opus-5-5",
		"anthropic/claude-opus-5-5[1m]":   "claude-opus-5-5",
		"fake-model":                      "fake-model",
		"claude-opus-4-5-20251101[1m]x":   "claude-opus-4-5-20251101[1m]x",
		"gpt-6.1-sol-2026-09-29-20260101": "gpt-6.1-sol",
	} {
		if got := usage.Canonical(in); got != want {
			t.Errorf("Canonical(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 0.0421: "$0.0421", 0.05: "$0.05", 0.75: "$0.75", 1: "$1.00", 12.345: "$12.35"} {
		if got := usage.Dollars(v); got != want {
			t.Errorf("Dollars(%v): got %q, want %q", v, got, want)
		}
	}
	if got := usage.Count(1234567); got != "1,234,567" {
		t.Errorf("Count: got %q", got)
	}
}
