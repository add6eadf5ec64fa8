package spend

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Price is what a model costs, in USD per million tokens of each kind.
type Price struct {
	Input      float64 `json:"input"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
	Output     float64 `json:"output"`
}

// Cost is what t costs at p, in USD.
func (p Price) Cost(t Tokens) float64 {
	return (float64(t.Input)*p.Input + float64(t.CacheWrite)*p.CacheWrite +
		float64(t.CacheRead)*p.CacheRead + float64(t.Output)*p.Output) / 1e6
}

// Validate refuses a price that is negative or not a number.
func (p Price) Validate() error {
	for _, v := range []float64{p.Input, p.CacheWrite, p.CacheRead, p.Output} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("prices are USD per million tokens, 0 or more")
		}
	}
	return nil
}

// PricesDate is when the table's prices were read from the providers' own pages named
// beside them.
const PricesDate = "2026-11-27"

// Entry is one model of the price table and where its price came from: the provider's own
// page (a test keeps it so: no blog, aggregator or other library).
type Entry struct {
	Model  string
	Price  Price
	Source string
}

// The models the pinned hosts use by default, and others a user is likely to choose. The
// list prices of each provider's own API, standard tier, at short context: long-context
// tiers (OpenAI bills a whole request over 272K input tokens at twice the input rates and
// 1.5 times the output rate), batch, priority and fast modes, promotions and 1-hour cache
// writes are not modelled. Cache writes are priced at the 5-minute rate (Anthropic), the
// page's cache-write price (OpenAI) or, where the page names none, the input rate (OpenAI's
// older models; Google, which bills cache storage by the hour instead, not counted).
var table = []Entry{
	// Claude Code 2.1.330's default model.
	{"claude-opus-5-5", Price{4, 5, 0.20, 20}, "platform.claude.com/docs/en/models/opus-5-5/overview"},
	{"claude-opus-5", Price{5, 6.25, 0.50, 25}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-opus-4-5", Price{5, 6.25, 0.50, 25}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-opus-4-1", Price{15, 18.75, 1.50, 75}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-opus-4", Price{15, 18.75, 1.50, 75}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-sonnet-4-5", Price{3, 3.75, 0.30, 15}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-sonnet-4", Price{3, 3.75, 0.30, 15}, "platform.claude.com/docs/en/about-claude/pricing"},
	{"claude-haiku-4-5", Price{1, 1.25, 0.10, 5}, "platform.claude.com/docs/en/about-claude/pricing"},
	// Codex CLI 0.169.0's default model (the model it asks a provider for when config.toml
	// names none).
	{"gpt-6.1-sol", Price{2, 2.50, 0.10, 10}, "developers.openai.com/api/docs/models/gpt-6.1-sol"},
	{"gpt-6-sol", Price{2, 2.50, 0.20, 10}, "developers.openai.com/api/docs/models/gpt-6-sol"},
	{"gpt-5.6-sol", Price{5, 5, 0.50, 30}, "developers.openai.com/api/docs/models/gpt-5.6-sol (the list price; a promotional $4 / $0.40 / $20 ran to at least 2026-11-21)"},
	{"gpt-5.5", Price{5, 5, 0.50, 30}, "developers.openai.com/api/docs/models/gpt-5.5"},
	{"gpt-5.4", Price{2.50, 2.50, 0.25, 15}, "developers.openai.com/api/docs/models/gpt-5.4"},
	{"gpt-5.4-mini", Price{0.75, 0.75, 0.075, 4.50}, "developers.openai.com/api/docs/models/gpt-5.4-mini"},
	// Gemini CLI 0.61.0's default model (DEFAULT_GEMINI_MODEL).
	{"gemini-2.5-pro", Price{1.25, 1.25, 0.125, 10}, "ai.google.dev/gemini-api/docs/pricing (prompts up to 200K tokens)"},
	{"gemini-2.5-flash", Price{0.30, 0.30, 0.03, 2.50}, "ai.google.dev/gemini-api/docs/pricing (text, image and video)"},
}

// Ceiling is the highest price of each kind of token in the table (and of the user's
// overrides): a model with no known price costs at most this much, unless it costs more
// than every model ralph-loop knows.
func Ceiling(overrides map[string]Price) Price {
	var c Price
	up := func(p Price) {
		c.Input, c.CacheWrite = max(c.Input, p.Input), max(c.CacheWrite, p.CacheWrite)
		c.CacheRead, c.Output = max(c.CacheRead, p.CacheRead), max(c.Output, p.Output)
	}
	for _, e := range table {
		up(e.Price)
	}
	for _, p := range overrides {
		up(p)
	}
	return c
}

// Table returns the embedded price table, sorted by model.
func Table() []Entry {
	t := append([]Entry(nil), table...)
	sort.Slice(t, func(i, j int) bool { return t[i].Model < t[j].Model })
	return t
}

// Canonical is the name a model is priced under: without a provider prefix
// ("anthropic/", "openai/", "models/"), a dated snapshot's suffix ("-20251101",
// "-2026-09-29") or a context-window tag ("[1m]"), as many as it ends with, in lower case.
// (Read by hand, not by a regular expression: every stop prices its turn, and compiling
// one cost a hook more than the rest of the pricing.)
func Canonical(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for {
		n := trimDated(m)
		if n == m {
			return m
		}
		m = n
	}
}

// trimDated takes one dated suffix or context tag off the end of m (see Canonical).
func trimDated(m string) string {
	if inner, ok := strings.CutSuffix(m, "]"); ok {
		// The first "[" after the last "]" before the end opens the tag.
		j := strings.LastIndexByte(inner, ']')
		if k := strings.IndexByte(inner[j+1:], '['); k >= 0 {
			return m[:j+1+k]
		}
		return m
	}
	if n := len(m); n >= 9 && m[n-9] == '-' && digits(m[n-8:]) {
		return m[:n-9] // -YYYYMMDD
	}
	if n := len(m); n >= 11 && m[n-11] == '-' && digits(m[n-10:n-6]) && m[n-6] == '-' && digits(m[n-5:n-3]) && m[n-3] == '-' && digits(m[n-2:]) {
		return m[:n-11] // -YYYY-MM-DD
	}
	return m
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Lookup returns the price of model: an override of the user's (by the model's name as
// recorded, or its canonical name), else the table's. ok is false when neither knows it.
func Lookup(model string, overrides map[string]Price) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	c := Canonical(model)
	if p, ok := overrides[model]; ok {
		return p, true
	}
	for k, p := range overrides {
		if Canonical(k) == c {
			return p, true
		}
	}
	for _, e := range table {
		if e.Model == c {
			return e.Price, true
		}
	}
	return Price{}, false
}
