// Package spend counts what a loop's model used, as the host recorded it: tokens by kind
// (input, cache writes, cache reads, output) and model, and what they cost, from the host's
// own figure or from a dated table of prices per million tokens.
package spend

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Tokens are a model's tokens by how they are billed. Input excludes the cached tokens
// (hosts whose records count cache reads inside the input subtract them when they read).
type Tokens struct {
	Input      int64 `json:"input"`
	CacheWrite int64 `json:"cache_write"`
	CacheRead  int64 `json:"cache_read"`
	Output     int64 `json:"output"`
}

// MaxCount bounds a count of one kind in one record: more is not a real count (and sums
// of such could overflow), so a record with one is not counted.
const MaxCount = 1 << 40

// Valid reports whether every count of t is from 0 to MaxCount.
func (t Tokens) Valid() bool {
	for _, n := range []int64{t.Input, t.CacheWrite, t.CacheRead, t.Output} {
		if n < 0 || n > MaxCount {
			return false
		}
	}
	return true
}

// Total is every token the model read and wrote.
func (t Tokens) Total() int64 { return t.Input + t.CacheWrite + t.CacheRead + t.Output }

// Add returns t + o.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{t.Input + o.Input, t.CacheWrite + o.CacheWrite, t.CacheRead + o.CacheRead, t.Output + o.Output}
}

// Record is one model reply's usage, as the host recorded it.
type Record struct {
	// Model is the model the host names in the record ("" when it names none).
	Model string
	// ID is the host's id of the reply ("" when it gives none); At is when the host stamped
	// it (zero: not stamped).
	ID string
	At time.Time
	// Doubt, when set, is why the reader that found the record knows it is not the host's
	// (a later line of a reply claiming another input than its first): it is not counted.
	Doubt string
	Tokens
	// Cost, when HasCost, is the host's own figure in USD (opencode computes one).
	Cost    float64
	HasCost bool
}

// Spent is what a loop's model used: all its tokens, and their cost where it is known.
type Spent struct {
	Tokens
	// CostUSD is the cost of the replies whose price is known.
	CostUSD float64 `json:"cost_usd"`
	// Unpriced are the models used whose price is not known: CostUSD leaves their tokens
	// out, so the cost is unknown (never taken as free). Held are those tokens, by model,
	// so that a price given later counts them (Price).
	Unpriced []string          `json:"unpriced,omitempty"`
	Held     map[string]Tokens `json:"held,omitempty"`
}

// Empty reports whether nothing was used.
func (s Spent) Empty() bool { return s.Total() == 0 && s.CostUSD == 0 && len(s.Unpriced) == 0 }

// CostKnown reports whether CostUSD is the whole cost.
func (s Spent) CostKnown() bool { return len(s.Unpriced) == 0 }

// Bound is the most the spending can have cost: CostUSD, and the tokens held for models
// without a price (Held) at the highest prices known (Ceiling). It is CostUSD when the cost
// is known.
func (s Spent) Bound(overrides map[string]Price) float64 {
	b := s.CostUSD
	if len(s.Held) == 0 {
		return b
	}
	c := Ceiling(overrides)
	for _, t := range s.Held {
		b += c.Cost(t)
	}
	return b
}

// Add counts records in: each one's own cost when the host gave one, otherwise its tokens
// at the model's price (overrides first, then the table). A record whose model has no
// price adds its model to Unpriced.
func (s Spent) Add(rs []Record, overrides map[string]Price) Spent {
	s.Unpriced = slices.Clone(s.Unpriced)
	s.Held = maps.Clone(s.Held)
	for _, r := range rs {
		s.Tokens = s.Tokens.Add(r.Tokens)
		switch p, ok := Lookup(r.Model, overrides); {
		case r.HasCost:
			s.CostUSD += r.Cost
		case ok:
			s.CostUSD += p.Cost(r.Tokens)
		case r.Tokens.Total() == 0:
			// Nothing used: nothing to price.
		default:
			name := r.Model
			if name == "" {
				name = "(unnamed model)"
			}
			if !slices.Contains(s.Unpriced, name) {
				s.Unpriced = append(s.Unpriced, name)
			}
			if s.Held == nil {
				s.Held = map[string]Tokens{}
			}
			s.Held[name] = s.Held[name].Add(r.Tokens)
		}
	}
	return s
}

// Price counts the tokens held for models without a price (Held) at the prices now known
// (overrides first, then the table), and returns the spending with the models priced.
func (s Spent) Price(overrides map[string]Price) Spent {
	s.Held = maps.Clone(s.Held)
	var left []string
	for _, m := range s.Unpriced {
		p, ok := Lookup(m, overrides)
		if !ok {
			left = append(left, m)
			continue
		}
		s.CostUSD += p.Cost(s.Held[m])
		delete(s.Held, m)
	}
	s.Unpriced = left
	if len(s.Held) == 0 {
		s.Held = nil
	}
	return s
}

// Minus returns what was spent since before (for one iteration's share).
func (s Spent) Minus(before Spent) Spent {
	d := Spent{
		Tokens: Tokens{s.Input - before.Input, s.CacheWrite - before.CacheWrite, s.CacheRead - before.CacheRead,
			s.Output - before.Output},
		CostUSD: s.CostUSD - before.CostUSD,
	}
	for _, m := range s.Unpriced {
		if !slices.Contains(before.Unpriced, m) {
			d.Unpriced = append(d.Unpriced, m)
		}
	}
	return d
}

// String says what was spent for people: "12,345 tokens, $0.0421", or with "cost unknown
// (no price for X)".
func (s Spent) String() string {
	t := Count(s.Total()) + " tokens"
	if !s.CostKnown() {
		return t + ", cost unknown (no price for " + strings.Join(s.Unpriced, ", ") + ")"
	}
	return t + ", " + Dollars(s.CostUSD)
}

// Count writes n with thousands separators.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Dollars writes an amount in USD: in cents for a dollar or more and for whole cents, with
// four decimals below a dollar otherwise.
func Dollars(v float64) string {
	if c := v * 100; v >= 1 || math.Abs(c-math.Round(c)) < 1e-9 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}
