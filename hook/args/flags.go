package args

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/internal/lazy"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// Flag is one flag of /ralph-loop and "ralph-loop start": how it is typed, what it sets,
// how status shows it and how help and docs/usage.md describe it. Flags is the one table
// that parsing, settings files, help, the command files' argument hint, status and
// docs/usage.md's flag table (made by make generate) are all made from: adding a flag is
// adding an entry.
type Flag struct {
	// Name is the flag without its dashes, and its key in .ralph/settings*.json.
	Name string
	// Arg names the value in usage ("N"); "" for a switch that takes none.
	Arg string
	// Default is the default as shown ("25", "none").
	Default string
	// Usage is the line help gives it; Doc the fuller account in docs/usage.md (Markdown).
	Usage, Doc string
	// Repeatable flags may be given several times (each adds a value).
	Repeatable bool
	// Start: only "ralph-loop start" takes it. NoSettings: settings files cannot set it.
	Start, NoSettings bool
	// set applies a value to the parse; show is the setting's value for status.
	set  func(p *Parsed, v string) error
	show func(c *state.Config) string
}

// Flags are every flag of /ralph-loop and start, in the order help lists them.
var Flags = []Flag{
	{Name: FlagMaxIterations, Arg: "N", Default: "25", Usage: "most agent turns before the loop gives up",
		Doc:  "most agent turns; at least 1. Decimal, leading zeros allowed (`08` is 8).",
		set:  func(p *Parsed, v string) (err error) { p.Config.MaxIterations, err = count(v, 1, MaxCount); return },
		show: func(c *state.Config) string { return fmt.Sprint(c.MaxIterations) }},
	{Name: FlagMinIterations, Arg: "N", Default: "none", Usage: "a promise before iteration N is not accepted: a verification pass after the first done",
		Doc: "a promise made before iteration N is not accepted, and the agent is told so with the continuation: for a pass that verifies the work after the first \"done\". At most `--max-iterations`.",
		set: func(p *Parsed, v string) (err error) { p.Config.MinIterations, err = count(v, 0, MaxCount); return },
		show: func(c *state.Config) string {
			if c.MinIterations <= 1 {
				return "none"
			}
			return fmt.Sprint(c.MinIterations)
		}},
	{Name: FlagCompletionPromise, Arg: "TOKEN", Default: "DONE", Usage: "the agent ends the loop by printing <promise>TOKEN</promise>",
		Doc: "the agent ends the loop by printing `<promise>TOKEN</promise>`. Non-empty, at most 256 bytes, no `<`, `>`, newlines or control characters. Compared byte for byte: no trimming, no case folding, no whitespace normalisation.",
		set: func(p *Parsed, v string) error {
			p.Config.CompletionPromise = v
			return promise.Validate(v)
		},
		show: func(c *state.Config) string { return c.CompletionPromise }},
	{Name: FlagPromiseMatch, Arg: "WHERE", Default: "anywhere", Usage: "where the marker counts: anywhere, line (alone on its line) or end (end of a message)",
		Doc: "where the marker counts in the agent's text: `anywhere` (even quoted in prose), `line` (alone on its line, blanks around it allowed) or `end` (nothing but white space after it in its text block).",
		set: func(p *Parsed, v string) error {
			m, err := promise.ParseMode(v)
			p.Config.PromiseMatch = string(m)
			return err
		},
		show: func(c *state.Config) string { return string(promiseMode(c)) }},
	{Name: FlagMinToolCalls, Arg: "N", Default: "1", Usage: "tool calls required before the promise counts",
		Doc:  "tool calls the agent must have made since the loop started before the promise counts (a call you stopped with Esc is none); 0 allowed.",
		set:  func(p *Parsed, v string) (err error) { p.Config.MinToolCalls, err = count(v, 0, MaxCount); return },
		show: func(c *state.Config) string { return fmt.Sprint(c.MinToolCalls) }},
	{Name: FlagOnPromiseNoWork, Arg: "MODE", Default: "reject", Usage: "a promise before that: reject, warn or accept",
		Doc: "a promise before that many tool calls: `reject` blocks the stop and tells the agent to do the work, `warn` accepts it and records a warning, `accept` accepts it.",
		set: func(p *Parsed, v string) error {
			switch v {
			case state.NoWorkReject, state.NoWorkWarn, state.NoWorkAccept:
				p.Config.OnPromiseNoWork = v
				return nil
			}
			return fmt.Errorf("%q is not one of reject, warn, accept", v)
		},
		show: func(c *state.Config) string { return c.OnPromiseNoWork }},
	{Name: FlagCheck, Arg: "CMD", Default: "none", Repeatable: true, Usage: "a command that must exit 0 for the promise to count (repeatable)",
		Doc: "repeatable: a shell command (`sh -c`, in the session's directory) that must exit 0 for a promise to be accepted. See \"Checks\".",
		set: func(p *Parsed, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("a check command may not be empty")
			}
			p.Config.Checks = append(p.Config.Checks, v)
			return nil
		},
		show: func(c *state.Config) string { return orNone(strings.Join(c.Checks, "; ")) }},
	{Name: FlagCheckTimeout, Arg: "D", Default: "2m", Usage: "each check's time limit",
		Doc: "each check's time limit (`90s`, `5m`, `1h`; `d` for days works too).",
		set: func(p *Parsed, v string) error {
			d, err := ParseDuration(v)
			p.Config.CheckTimeout = state.Duration(d)
			return err
		},
		show: func(c *state.Config) string { return time.Duration(c.CheckTimeout).String() }},
	{Name: FlagCheckOutputChars, Arg: "N", Default: "4000", Usage: "how much of a failed check's output the agent gets",
		Doc: "how much of a failed check's output (its end) the agent is sent; at most 8000.",
		set: func(p *Parsed, v string) (err error) {
			p.Config.CheckOutputChars, err = count(v, 1, MaxCheckOutputChars)
			return
		},
		show: func(c *state.Config) string { return fmt.Sprint(c.CheckOutputChars) }},
	{Name: FlagCheckHint, Arg: "TEXT", Default: "none", Usage: "added to what the agent is told when a check fails",
		Doc:  "added to what the agent is told when a check fails.",
		set:  func(p *Parsed, v string) error { p.Config.CheckHint = v; return nil },
		show: func(c *state.Config) string { return orNone(c.CheckHint) }},
	{Name: FlagMaxTime, Arg: "D", Default: "none", Usage: "wall-clock budget from now, e.g. 45m",
		Doc: "wall-clock budget from arming (`45m`, `2h`): at the first stop after it has run out, the loop ends `TIME_BUDGET_EXHAUSTED`.",
		set: func(p *Parsed, v string) error {
			d, err := ParseDuration(v)
			p.Config.MaxTime = state.Duration(d)
			return err
		},
		show: func(c *state.Config) string {
			if c.MaxTime == 0 {
				return "none"
			}
			return time.Duration(c.MaxTime).String()
		}},
	{Name: FlagMaxTokens, Arg: "N", Default: "none", Usage: "token budget from now: input, cache and output tokens the model used",
		Doc: "budget of the model's tokens from arming, all kinds counted (input, cache writes, cache reads, output), as the host recorded them: at the first stop after it is reached, the loop ends `BUDGET_EXHAUSTED`. A whole number, at least 1. See \"Budgets\".",
		set: func(p *Parsed, v string) (err error) { p.Config.MaxTokens, err = tokens(v); return },
		show: func(c *state.Config) string {
			if c.MaxTokens == 0 {
				return "none"
			}
			return spend.Count(c.MaxTokens)
		}},
	{Name: FlagMaxCost, Arg: "USD", Default: "none", Usage: "cost budget from now in USD, e.g. 5 or 0.75",
		Doc: "budget in USD from arming (`5`, `0.75`): the host's own cost where it records one, else the model's tokens at its price (`ralph-loop prices`; a model with no known price is never counted as free: it counts at the highest price known). At the first stop after it is reached, the loop ends `BUDGET_EXHAUSTED`. See \"Budgets\".",
		set: func(p *Parsed, v string) (err error) { p.Config.MaxCost, err = dollars(v); return },
		show: func(c *state.Config) string {
			if c.MaxCost == 0 {
				return "none"
			}
			return spend.Dollars(c.MaxCost)
		}},
	{Name: FlagMaxStalls, Arg: "N", Default: fmt.Sprint(state.DefaultMaxStalls), Usage: "end the loop NO_PROGRESS after N iterations in a row without progress (0: never)",
		Doc: "the stall breaker: after N iterations in a row without progress the loop ends `NO_PROGRESS`, saying what it saw; `0` turns it off. Progress is a completed call of a tool that writes files, a change to the files of the work tree (in a git work tree: any file git does not ignore, by content), or a check result unlike the last one; an iteration without a tool call changes nothing. Outside a git work tree, an iteration with a tool call counts as progress. See \"Stalls\".",
		set: func(p *Parsed, v string) (err error) { p.Config.MaxStalls, err = count(v, 0, MaxCount); return },
		show: func(c *state.Config) string {
			if c.MaxStalls == 0 {
				return "off"
			}
			return fmt.Sprint(c.MaxStalls)
		}},
	{Name: FlagMaxWait, Arg: "D", Default: "30m", Usage: "how long the loop waits with the host for its background work (0: no bound)",
		Doc: "while the host runs work in the background (a command started with `run_in_background`, a background subagent, a scheduled wake-up) and says so at a stop, the stop is let through without using an iteration or counting a stall, and the loop goes on when the host wakes the session; a stop whose background work has run longer than this is blocked, and the agent is told which task to check or stop. `0` waits without a bound; `--max-time` still applies. See \"Background work\".",
		set: func(p *Parsed, v string) error {
			if v == "0" {
				p.Config.MaxWait = 0
				return nil
			}
			d, err := ParseDuration(v)
			p.Config.MaxWait = state.Duration(d)
			return err
		},
		show: func(c *state.Config) string {
			if c.MaxWait == 0 {
				return "none"
			}
			return time.Duration(c.MaxWait).String()
		}},
	{Name: FlagCheckpoint, Default: "off", Usage: "record the work tree at every iteration's end as a git commit of ralph-loop's own",
		Doc:  "record the work tree at every iteration's end (and at arming) as a commit under `refs/ralph-loop/<loop>/<n>`, leaving your branch, index and stash alone: `ralph-loop log` shows what each iteration changed, `ralph-loop diff` the patch. Only in a git work tree (the arming notice says when it is not). See \"Checkpoints\".",
		set:  func(p *Parsed, v string) (err error) { p.Config.Checkpoint, err = onOff(v); return },
		show: func(c *state.Config) string { return onOrOff(c.Checkpoint) }},
	{Name: FlagNotify, Default: "off", Usage: "a desktop notification when the loop ends or pauses",
		Doc:  "when the loop ends or pauses, a desktop notification says how, at which iteration and what it spent: `notify-send` on Linux, `osascript` on macOS, else the terminal's bell. Set it for every loop of a project with `\"notify\": true` in `.ralph/settings.json` (or `.ralph/settings.local.json`).",
		set:  func(p *Parsed, v string) (err error) { p.Config.Notify, err = onOff(v); return },
		show: func(c *state.Config) string { return onOrOff(c.Notify) }},
	{Name: FlagTaskFile, Arg: "PATH", NoSettings: true, Usage: "read the task from this file (e.g. PROMPT.md) instead of typing it",
		Doc: "the task is read from this file (relative to the session's directory) when the loop is armed, and kept with the loop: an edit of the file afterwards, by the agent or anyone, changes nothing. Instead of a typed task; a regular file of at most 1 MiB.",
		set: func(p *Parsed, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("the task file's path may not be empty")
			}
			p.TaskFile = v
			return nil
		}},
	{Name: FlagResume, NoSettings: true, Usage: "pick up this session's last loop where it ended, with the iterations it had left",
		Doc: "instead of a task: pick up the session's last loop (paused, or ended by `/exit`, the host's cap, a cancel, a stall or the time budget) where it stopped, with the iterations it had left and the same settings; flags given with it change those settings.",
		set: func(p *Parsed, _ string) error { p.Resume = true; return nil }},
	{Name: FlagSession, Arg: "ID", Start: true, NoSettings: true, Usage: "the session to arm (default: the host's session variable)",
		set: func(p *Parsed, v string) error { p.Session = v; return state.ValidSessionID(v) }},
	{Name: FlagHost, Arg: "NAME", Start: true, NoSettings: true, Usage: "the session's host (default: the host whose session variable is set, else claude)",
		set: func(p *Parsed, v string) error { p.Host = v; return nil }},
	{Name: FlagULW, Start: true, NoSettings: true, Usage: "arm like /ulw-loop",
		set: func(p *Parsed, _ string) error { p.Config.Mode = state.ModeULW; return nil }},
}

// onOff reads a switch's value: "" (typed without one) or "true" is on, "false" off.
func onOff(v string) (bool, error) {
	switch v {
	case "", "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", v)
}

func onOrOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// lookup returns the flag of that name, if opt allows it.
func lookup(name string, opt Options) (*Flag, bool) {
	for i := range Flags {
		f := &Flags[i]
		if f.Name == name && (!f.Start || opt.Session) {
			return f, true
		}
	}
	return nil, false
}

// suggest returns the known flag that name most likely meant, or "".
func suggest(name string, opt Options) string {
	best, bestD := "", 4
	for _, f := range Flags {
		if f.Start && !opt.Session {
			continue
		}
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			return f.Name
		}
		if d := distance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func promiseMode(c *state.Config) promise.Mode {
	m, err := promise.ParseMode(c.PromiseMatch)
	if err != nil {
		return promise.Anywhere
	}
	return m
}

// LoopFlags returns the flags that set a loop's settings, by name, in the order help lists
// them: the keys .ralph/settings*.json take.
func LoopFlags() []string { return loopFlags.Get() }

var loopFlags = lazy.Value[[]string]{Make: func() []string {
	var names []string
	for _, f := range Flags {
		if !f.NoSettings {
			names = append(names, f.Name)
		}
	}
	return names
}}

// Show returns a loop setting's value as status shows it.
func Show(c *state.Config, name string) string {
	if f, ok := lookup(name, Options{Session: true}); ok && f.show != nil {
		return f.show(c)
	}
	return ""
}

// usageWord is a flag as usage shows it: --name VALUE.
func (f Flag) usageWord() string {
	if f.Arg == "" {
		return "--" + f.Name
	}
	return "--" + f.Name + " " + f.Arg
}

// ArgumentHint is the loop commands' usage after the task, as the command files' argument
// hint shows it.
func ArgumentHint() string {
	var b strings.Builder
	b.WriteString(`"TASK"`)
	for _, f := range Flags {
		if f.Start {
			continue
		}
		fmt.Fprintf(&b, " [%s]", f.usageWord())
		if f.Repeatable {
			b.WriteString("...")
		}
	}
	return b.String()
}

// HelpLines are the flags' lines of help: "  --name ARG   usage (default …)".
func HelpLines(start bool) string {
	var rows [][2]string
	width := 0
	for _, f := range Flags {
		if f.Start && !start {
			continue
		}
		u := f.Usage
		if f.Default != "" && f.Default != "none" && f.Arg != "" {
			u += " (default " + f.Default + ")"
		}
		rows = append(rows, [2]string{f.usageWord(), u})
		width = max(width, len(f.usageWord()))
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, r[0], r[1])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Markdown is the table of flags in docs/usage.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, f := range Flags {
		if f.Start {
			continue
		}
		def := f.Default
		switch {
		case def == "" || def == "none":
			def = "none"
		case f.Name == FlagCompletionPromise || f.Name == FlagOnPromiseNoWork || f.Name == FlagPromiseMatch || f.Name == FlagCheckTimeout:
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.usageWord(), def, f.Doc)
	}
	return b.String()
}

// Over lays the flags typed in p over a loop's settings (for --resume): the loop keeps its
// task and every setting not typed again.
func Over(c state.Config, p Parsed) (state.Config, error) {
	c.Sources = maps.Clone(c.Sources)
	if c.Sources == nil {
		c.Sources = map[string]string{}
	}
	if p.Given[FlagCheck] {
		c.Checks = nil
	}
	for _, kv := range p.values {
		if err := setConfig(&c, kv[0], kv[1]); err != nil {
			return c, fmt.Errorf("--%s: %w", kv[0], err)
		}
		c.Sources[kv[0]] = "flag"
	}
	return c, validate(c)
}

// MaxTokens and MaxCost bound the budgets a loop takes: more than anyone spends in a loop,
// small enough that the sums never lose precision.
const (
	MaxTokens = 1_000_000_000_000
	MaxCost   = 1_000_000
)

// tokens reads a token budget: a whole number from 1 to MaxTokens.
func tokens(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > MaxTokens || strings.TrimLeft(v, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a whole number of tokens from 1 to %s", v, spend.Count(MaxTokens))
	}
	return n, nil
}

// dollars reads a cost budget: a decimal number of USD (digits, one optional point), more
// than 0 and at most MaxCost.
func dollars(v string) (float64, error) {
	bad := fmt.Errorf("%q is not an amount in USD such as 5 or 0.75 (more than 0, at most %d)", v, MaxCost)
	whole, frac, _ := strings.Cut(v, ".")
	if whole+frac == "" || strings.Trim(whole+frac, "0123456789") != "" || len(v) > 32 {
		return 0, bad
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > MaxCost {
		return 0, bad
	}
	return f, nil
}
