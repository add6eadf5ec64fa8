package spend

import (
	"fmt"
	"slices"
	"time"
)

// Limits are what one reply of a model can use: its context window (what it reads: input,
// cache writes and cache reads together) and its output limit.
type Limits struct {
	Context, Output int64
}

// UnknownLimits are the limits of a model the table does not know: about twice the largest
// known, so that a model the table has not caught up with is not undercounted, while a
// record of hundreds of millions of tokens still is no reply.
var UnknownLimits = Limits{Context: 2_000_000, Output: 256_000}

// limits are the known models', by canonical name, from the providers' model pages (read
// 2026-11-27). A model not here has UnknownLimits. (A list, not a map: it is data the linker
// lays out, where a map would be built at every start of the program.)
var limits = []struct {
	model string
	Limits
}{
	// platform.claude.com/docs/en/models/opus-5-5/overview, and the comparison table of
	// platform.claude.com/docs/en/models/opus-5/overview.
	{"claude-opus-5-5", Limits{1_000_000, 128_000}},
	{"claude-opus-5", Limits{1_000_000, 128_000}},
	{"claude-haiku-4-5", Limits{200_000, 64_000}},
	// vercel.com/ai-gateway/models/gpt-6.1-sol (1,050,000 context, 128,000 output).
	{"gpt-6.1-sol", Limits{1_050_000, 128_000}},
	// ai.google.dev/gemini-api/docs/models (1,048,576 input, 65,536 output).
	{"gemini-2.5-pro", Limits{1_048_576, 65_536}},
	{"gemini-2.5-flash", Limits{1_048_576, 65_536}},
}

// LimitsOf returns what one reply of model can use.
func LimitsOf(model string) Limits {
	c := Canonical(model)
	for _, l := range limits {
		if l.model == c {
			return l.Limits
		}
	}
	return UnknownLimits
}

// Read is what a reply read: its input, cache writes and cache reads.
func (t Tokens) Read() int64 { return t.Input + t.CacheWrite + t.CacheRead }

// Beyond says why r is more than one reply of its model can be (it read more than the
// model's context window, or wrote more than its output limit), or "" when it is not.
func (r Record) Beyond() string {
	l := LimitsOf(r.Model)
	name := r.Model
	if name == "" {
		name = "an unnamed model"
	}
	switch {
	case r.Read() > l.Context:
		return fmt.Sprintf("%s of %s read %s tokens, more than its context window (%s)", r.Name(), name, Count(r.Read()), Count(l.Context))
	case r.Output > l.Output:
		return fmt.Sprintf("%s of %s wrote %s tokens, more than its output limit (%s)", r.Name(), name, Count(r.Output), Count(l.Output))
	}
	return ""
}

// Name names the reply for people: "reply msg_1", or "a reply" when the host gives it no id.
func (r Record) Name() string {
	if r.ID == "" {
		return "a reply"
	}
	return "reply " + r.ID
}

// stamp writes a record's time for people.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// MaxIDs bounds Ledger.IDs: a reply is recorded once, when it is written, so the most recent
// ids are enough to tell a copy of one.
const MaxIDs = 512

// Skew is how far a record's time may stray from the order its host writes in (the replies
// of subagents running side by side are stamped when they begin, and written when they end).
const Skew = time.Minute

// Ledger is what a loop keeps to tell the usage its host could have written from what it
// could not: the ids of the replies counted (the latest MaxIDs), and the time and model of
// the last one counted.
type Ledger struct {
	IDs   []string  `json:"ids,omitempty"`
	Last  time.Time `json:"last,omitzero"`
	Model string    `json:"model,omitempty"`
}

// Screen returns the records of rs that count, in order, and says why each of the others
// does not: one its reader doubted (Record.Doubt), one beyond what one reply of its model
// can be (Record.Beyond), a reply counted already, one stamped before the loop began (at
// start) or before the last one counted, or after now (each give or take Skew). It returns
// the ledger with the counted ones added; l is not changed.
func (l Ledger) Screen(rs []Record, start, now time.Time) (Ledger, []Record, []string) {
	l.IDs = slices.Clone(l.IDs)
	var counted []Record
	var not []string
	for _, r := range rs {
		why := r.Doubt
		if why == "" {
			why = r.Beyond()
		}
		switch {
		case why != "":
		case r.ID != "" && slices.Contains(l.IDs, r.ID):
			why = r.Name() + " counted already"
		case r.At.IsZero():
		case r.At.Before(start.Add(-Skew)):
			why = fmt.Sprintf("%s stamped %s, before the loop began", r.Name(), stamp(r.At))
		case !l.Last.IsZero() && r.At.Before(l.Last.Add(-Skew)):
			why = fmt.Sprintf("%s stamped %s, before the last one counted (%s)", r.Name(), stamp(r.At), stamp(l.Last))
		case r.At.After(now.Add(Skew)):
			why = fmt.Sprintf("%s stamped %s, after the stop that read it", r.Name(), stamp(r.At))
		}
		if why != "" {
			not = append(not, why)
			continue
		}
		counted = append(counted, r)
		if r.ID != "" {
			l.IDs = append(l.IDs, r.ID)
			if len(l.IDs) > MaxIDs {
				l.IDs = l.IDs[len(l.IDs)-MaxIDs:]
			}
		}
		if r.At.After(l.Last) {
			l.Last = r.At
		}
		if r.Model != "" {
			l.Model = r.Model
		}
	}
	return l, counted, not
}
