package spend_test

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/codex"
	"github.com/ralph-loop/ralph-loop/hook/gemini"
	"github.com/ralph-loop/ralph-loop/spend"
)

// TestCost is the price arithmetic: each kind of token at its own price, per million.
func TestCost(t *testing.T) {
	opus := spend.Price{Input: 4, CacheWrite: 5, CacheRead: 0.20, Output: 20}
	for _, c := range []struct {
		name string
		p    spend.Price
		t    spend.Tokens
		want float64
	}{
		{"nothing", opus, spend.Tokens{}, 0},
		{"a million input", opus, spend.Tokens{Input: 1_000_000}, 4},
		{"a million of each", opus, spend.Tokens{Input: 1e6, CacheWrite: 1e6, CacheRead: 1e6, Output: 1e6}, 29.20},
		// Cache reads are not 0.1x input for every model: Opus 5.5's are 0.05x.
		{"cache reads", opus, spend.Tokens{CacheRead: 2_500_000}, 0.50},
		{"one turn", opus, spend.Tokens{Input: 2709, CacheWrite: 1200, CacheRead: 30000, Output: 310}, (2709*4 + 1200*5 + 30000*0.2 + 310*20) / 1e6},
		{"free model", spend.Price{}, spend.Tokens{Input: 1e9}, 0},
	} {
		if got := c.p.Cost(c.t); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSpentAdd: host costs count as given, known models at their price, and a model with
// no price leaves the cost unknown, never free.
func TestSpentAdd(t *testing.T) {
	rs := []spend.Record{
		{Model: "claude-opus-5-5", Tokens: spend.Tokens{Input: 1e6}},
		{Model: "anthropic/claude-opus-5-5-20260922", Tokens: spend.Tokens{Output: 1e6}},
		{Model: "anything", Tokens: spend.Tokens{Input: 10}, Cost: 0.5, HasCost: true},
	}
	s := spend.Spent{}.Add(rs, nil)
	if s.Total() != 2_000_010 || math.Abs(s.CostUSD-24.5) > 1e-9 || !s.CostKnown() {
		t.Errorf("got %+v, want 2000010 tokens, $24.50, known", s)
	}
	s = s.Add([]spend.Record{{Model: "mystery-1", Tokens: spend.Tokens{Output: 1}}}, nil)
	if s.CostKnown() || s.Unpriced[0] != "mystery-1" || s.String() != "2,000,011 tokens, cost unknown (no price for mystery-1)" {
		t.Errorf("got %+v (%s), want mystery-1 unpriced", s, s)
	}
	over := spend.Spent{}.Add([]spend.Record{{Model: "mystery-1", Tokens: spend.Tokens{Output: 1e6}}},
		map[string]spend.Price{"mystery-1": {Output: 3}})
	if !over.CostKnown() || over.CostUSD != 3 {
		t.Errorf("override: got %+v, want $3", over)
	}
	if d := s.Minus(spend.Spent{Tokens: spend.Tokens{Input: 1e6}, CostUSD: 4}); d.Total() != 1_000_011 || d.Unpriced[0] != "mystery-1" {
		t.Errorf("Minus: got %+v", d)
	}
	// A reply that used nothing needs no price.
	if z := (spend.Spent{}).Add([]spend.Record{{Model: "mystery-2"}}, nil); !z.CostKnown() {
		t.Errorf("empty record: got %+v", z)
	}
}

// TestDefaultModelsPriced: a table without the pinned hosts' default models would count
// every turn of theirs as unpriced.
func TestDefaultModelsPriced(t *testing.T) {
	for host, m := range map[string]string{"claude": claude.DefaultModel, "codex": codex.DefaultModel, "gemini": gemini.DefaultModel} {
		p, ok := spend.Lookup(m, nil)
		if !ok || p.Input <= 0 || p.Output <= 0 || p.CacheRead <= 0 || p.CacheWrite <= 0 {
			t.Errorf("%s's default model %s: price %+v, %v", host, m, p, ok)
		}
	}
	for _, e := range spend.Table() {
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
	for _, e := range spend.Table() {
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
		if got := spend.Canonical(in); got != want {
			t.Errorf("Canonical(%q): got %q, want %q", in, got, want)
		}
	}
}

// canonicalByRegexp is Canonical as it was written before, with a regular expression: the
// hand-written one must name every model the same.
func canonicalByRegexp(model string) string {
	dated := regexp.MustCompile(`(-\d{8}|-\d{4}-\d{2}-\d{2}|\[[^\]]*\])$`)
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for {
		n := dated.ReplaceAllString(m, "")
		if n == m {
			return m
		}
		m = n
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"claude-opus-5-5[1m]", "a[b[c]", "a]b[c]", "x-2026-09-29", "x-20260929", "x-2026-0929", "[]", "-12345678",
		"gpt-6.1-sol-2026-09-29-20260101", "m[1m][2m]", "m-1234567", "m-2026-9-29", "m-２０２６０９２９", "m[x]-20260101"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, model string) {
		if got, want := spend.Canonical(model), canonicalByRegexp(model); got != want {
			t.Errorf("Canonical(%q) = %q, the regular expression's %q", model, got, want)
		}
	})
}

func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 0.0421: "$0.0421", 0.05: "$0.05", 0.75: "$0.75", 1: "$1.00", 12.345: "$12.35"} {
		if got := spend.Dollars(v); got != want {
			t.Errorf("Dollars(%v): got %q, want %q", v, got, want)
		}
	}
	if got := spend.Count(1234567); got != "1,234,567" {
		t.Errorf("Count: got %q", got)
	}
}

// TestBeyond: a record that reads more than its model's context window, or writes more than
// its output limit, is no reply; a model the table lacks has the generous bound.
func TestBeyond(t *testing.T) {
	for _, c := range []struct {
		name string
		r    spend.Record
		want string
	}{
		{"a real reply", spend.Record{Model: "claude-opus-5-5", Tokens: spend.Tokens{Input: 3000, CacheRead: 900_000, Output: 2000}}, ""},
		{"the window, exactly", spend.Record{Model: "claude-opus-5-5", Tokens: spend.Tokens{Input: 500_000, CacheWrite: 500_000}}, ""},
		{"past the window", spend.Record{Model: "claude-opus-5-5-20261101", ID: "msg_x", Tokens: spend.Tokens{Input: 900_000_000}},
			"reply msg_x of claude-opus-5-5-20261101 read 900,000,000 tokens, more than its context window (1,000,000)"},
		{"past the output limit", spend.Record{Model: "gemini-2.5-pro", Tokens: spend.Tokens{Output: 70_000}},
			"a reply of gemini-2.5-pro wrote 70,000 tokens, more than its output limit (65,536)"},
		{"an unknown model", spend.Record{Model: "mystery", Tokens: spend.Tokens{Input: 1_500_000}}, ""},
		{"an unknown model past its bound", spend.Record{Tokens: spend.Tokens{CacheRead: 2_000_001}},
			"a reply of an unnamed model read 2,000,001 tokens, more than its context window (2,000,000)"},
	} {
		if got := c.r.Beyond(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestScreen: the records the host could have written count; a doubted one, one beyond one
// reply, a copy of one counted, and one out of the host's order in time do not, each with
// the reason.
func TestScreen(t *testing.T) {
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour)
	rec := func(id string, at time.Time) spend.Record {
		return spend.Record{Model: "claude-opus-5-5", ID: id, At: at, Tokens: spend.Tokens{Input: 10, Output: 1}}
	}
	doubted := rec("d", time.Time{})
	doubted.Doubt = "reply d claims more"
	big := rec("big", start.Add(time.Minute))
	big.Input = 2e9
	l := spend.Ledger{IDs: []string{"old"}}
	l2, counted, not := l.Screen([]spend.Record{
		rec("a", start.Add(time.Minute)), rec("", time.Time{}), doubted, big, rec("old", start.Add(2*time.Minute)),
		rec("a", start.Add(3*time.Minute)), rec("early", start.Add(-2*time.Minute)), rec("b", start.Add(30*time.Minute)),
		rec("back", start.Add(10*time.Minute)), rec("near", start.Add(29*time.Minute+30*time.Second)), rec("future", now.Add(2*time.Minute)),
	}, start, now)
	var ids []string
	for _, r := range counted {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "a,,b,near" {
		t.Errorf("counted %q, want a, the one without an id, b and near", got)
	}
	want := []string{"reply d claims more", "reply big of claude-opus-5-5 read 2,000,000,000 tokens, more than its context window (1,000,000)",
		"reply old counted already", "reply a counted already", "reply early stamped 2026-11-27T11:58:00Z, before the loop began",
		"reply back stamped 2026-11-27T12:10:00Z, before the last one counted (2026-11-27T12:30:00Z)",
		"reply future stamped 2026-11-27T13:02:00Z, after the stop that read it"}
	if strings.Join(not, "\n") != strings.Join(want, "\n") {
		t.Errorf("not counted:\n%s\nwant:\n%s", strings.Join(not, "\n"), strings.Join(want, "\n"))
	}
	if len(l.IDs) != 1 || strings.Join(l2.IDs, ",") != "old,a,b,near" || !l2.Last.Equal(start.Add(30*time.Minute)) {
		t.Errorf("ledger %+v (was %+v); want old, a, b, near, last at 12:30, the old one unchanged", l2, l)
	}
}

// TestPriceHeld: tokens of a model without a price are held, never free, and counted at the
// price given later.
func TestPriceHeld(t *testing.T) {
	s := spend.Spent{}.Add([]spend.Record{
		{Model: "mystery", Tokens: spend.Tokens{Input: 1_000_000}},
		{Model: "claude-opus-5-5", Tokens: spend.Tokens{Input: 1_000_000}},
		{Model: "mystery", Tokens: spend.Tokens{Output: 1_000_000}},
	}, nil)
	if s.CostKnown() || s.CostUSD != 4 || s.Held["mystery"] != (spend.Tokens{Input: 1e6, Output: 1e6}) {
		t.Fatalf("before the price: %+v", s)
	}
	if again := s.Price(nil); again.CostKnown() {
		t.Fatalf("priced without a price: %+v", again)
	}
	p := s.Price(map[string]spend.Price{"mystery": {Input: 1, Output: 2}})
	if !p.CostKnown() || math.Abs(p.CostUSD-7) > 1e-9 || p.Held != nil || p.Total() != 3_000_000 {
		t.Fatalf("after the price: %+v; want $7.00, nothing held", p)
	}
	if s.Held == nil || s.CostKnown() {
		t.Error("Price changed the spending it was called on")
	}
}
