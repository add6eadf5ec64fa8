package args

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

func texts(ws []Word) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`fix the parser`, []string{"fix", "the", "parser"}},
		{`"Fix the bug in parser.go" --max-iterations 3`, []string{"Fix the bug in parser.go", "--max-iterations", "3"}},
		{`'single $HOME ` + "`x`" + `'`, []string{"single $HOME `x`"}},
		{`"dq \" \\ \$ \` + "`" + ` \n \a"`, []string{"dq \" \\ $ ` \\n \\a"}},
		{`un\ quoted\"x`, []string{`un quoted"x`}},
		{"a\\\nb", []string{"ab"}},
		{"\"multi\nline\"", []string{"multi\nline"}},
		{"\"join\\\nme\"", []string{"joinme"}},
		{`a""b`, []string{"ab"}},
		{`""`, []string{""}},
		{`''`, []string{""}},
		{`--flag=` + `"a b"`, []string{"--flag=a b"}},
		{`trailing\`, []string{`trailing\`}},
		{`$HOME $(rm -rf /) ; | & > < # not a comment`, []string{"$HOME", "$(rm", "-rf", "/)", ";", "|", "&", ">", "<", "#", "not", "a", "comment"}},
		{"  \t spaced \r\n  out  ", []string{"spaced", "out"}},
		{`naïve ✓ 完了`, []string{"naïve", "✓", "完了"}},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if err != nil {
			t.Errorf("Split(%q): %v", tt.in, err)
			continue
		}
		if strings.Join(texts(got), "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, texts(got), tt.want)
		}
	}
}

func TestSplitQuotedFlag(t *testing.T) {
	ws, _ := Split(`"--not-a-flag" \--neither --yes`)
	if !ws[0].Quoted || !ws[1].Quoted || ws[2].Quoted {
		t.Fatalf("Quoted = %v %v %v, want true true false", ws[0].Quoted, ws[1].Quoted, ws[2].Quoted)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, in := range []string{`fix the parser's bug`, `"open`, `ok "then 'open`, "line\n  'x"} {
		if _, err := Split(in); err == nil {
			t.Errorf("Split(%q) succeeded", in)
		}
	}
	_, err := Split("first line\n  it's")
	if err == nil || !strings.Contains(err.Error(), "column 5") {
		t.Errorf("error %v does not give column 5", err)
	}
}

func parse(t *testing.T, s string, opt Options) (Parsed, error) {
	t.Helper()
	ws, err := Split(s)
	if err != nil {
		t.Fatalf("Split(%q): %v", s, err)
	}
	return Parse(ws, opt)
}

func TestParse(t *testing.T) {
	def := state.DefaultConfig()
	cfg := func(task string, f func(*state.Config)) state.Config {
		c := def
		c.Task = task
		if f != nil {
			f(&c)
		}
		return c
	}
	tests := []struct {
		in   string
		want state.Config
	}{
		{`"Fix the bug in parser.go" --max-iterations 3`, cfg("Fix the bug in parser.go", func(c *state.Config) { c.MaxIterations = 3 })},
		{`fix the parser --max-iterations 5`, cfg("fix the parser", func(c *state.Config) { c.MaxIterations = 5 })},
		{`--max-iterations=08 task`, cfg("task", func(c *state.Config) { c.MaxIterations = 8 })},
		{`--completion-promise "ALL  GREEN" --min-tool-calls 0 --on-promise-no-work=warn go`, cfg("go", func(c *state.Config) {
			c.CompletionPromise = "ALL  GREEN"
			c.MinToolCalls = 0
			c.OnPromiseNoWork = "warn"
		})},
		{`--completion-promise=a.b*c task`, cfg("task", func(c *state.Config) { c.CompletionPromise = "a.b*c" })},
		{`task -- --max-iterations 3`, cfg("task --max-iterations 3", nil)},
		{`"--fast flag is broken"`, cfg("--fast flag is broken", nil)},
		{`fix - the dash`, cfg("fix - the dash", nil)},
		{"\"Fix `x` in $HOME's dir\"", cfg("Fix `x` in $HOME's dir", nil)},
		{"first line\nsecond line --max-iterations 2\nthird", cfg("first line\nsecond line\nthird", func(c *state.Config) { c.MaxIterations = 2 })},
		{"\"quoted\nnewline\" and more", cfg("quoted\nnewline and more", nil)},
	}
	for _, tt := range tests {
		got, err := parse(t, tt.in, Options{})
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got.Config, tt.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got.Config, tt.want)
		}
	}
}

func TestParseGiven(t *testing.T) {
	p, err := parse(t, `--max-iterations 4 --min-tool-calls=2 t`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Given["max-iterations"] || !p.Given["min-tool-calls"] || p.Given["completion-promise"] {
		t.Errorf("Given = %v", p.Given)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "no task given"},
		{`--max-iterations 3`, "no task given"},
		{`"  "`, "no task given"},
		{`--max-iteration 3 t`, "unknown flag --max-iteration"},
		{`-max-iterations 3 t`, "unknown flag -max-iterations"},
		{`--session abc t`, "unknown flag --session"},
		{`t --max-iterations`, "--max-iterations needs a value"},
		{`t --max-iterations 0`, `"0" must be at least 1`},
		{`t --max-iterations -1`, `"-1" is not a whole number`},
		{`t --max-iterations 3x`, `"3x" is not a whole number`},
		{`t --max-iterations 0x10`, `"0x10" is not a whole number`},
		{`t --max-iterations 1e3`, `"1e3" is not a whole number`},
		{`t --max-iterations 99999999999999999999999`, "too large"},
		{`t --max-iterations 1000001`, "too large"},
		{`t --min-tool-calls -1`, "not a whole number"},
		{`t --max-iterations 3 --max-iterations=4`, "--max-iterations is given twice"},
		{`t --completion-promise ""`, promise.ErrEmpty.Error()},
		{`t --completion-promise "<b>"`, promise.ErrBadChar.Error()},
		{`t --completion-promise=` + strings.Repeat("x", 257), promise.ErrTooLong.Error()},
		{`t --on-promise-no-work maybe`, `"maybe" is not one of reject, warn, accept`},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.in, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error has several lines: %q", tt.in, err)
		}
	}
}

func TestParseSession(t *testing.T) {
	p, err := parse(t, `--session abc-123 task`, Options{Session: true})
	if err != nil || p.Session != "abc-123" {
		t.Fatalf("Parse with --session: %+v, %v", p, err)
	}
	if _, err := parse(t, `--session ../x task`, Options{Session: true}); !errors.Is(err, state.ErrBadSessionID) {
		t.Fatalf("--session ../x: %v", err)
	}
}

func TestParseHelp(t *testing.T) {
	for _, in := range []string{`--help`, `task -h`} {
		if _, err := parse(t, in, Options{}); !errors.Is(err, ErrHelp) {
			t.Errorf("Parse(%q) = %v, want ErrHelp", in, err)
		}
	}
}

func TestParseCheckFlags(t *testing.T) {
	p, err := parse(t, `t --check "make test" --check='go vet ./...' --check-timeout 90s --check-output-chars 500 --check-hint "read the log" --max-time 1h30m`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config
	if !reflect.DeepEqual(c.Checks, []string{"make test", "go vet ./..."}) || time.Duration(c.CheckTimeout) != 90*time.Second ||
		c.CheckOutputChars != 500 || c.CheckHint != "read the log" || time.Duration(c.MaxTime) != 90*time.Minute {
		t.Fatalf("%+v", c)
	}
	for in, want := range map[string]string{
		`t --check ""`:                  "may not be empty",
		`t --check-timeout 0s`:          "must be longer than 0",
		`t --check-timeout -5m`:         "must be longer than 0",
		`t --max-time tomorrow`:         "is not a duration",
		`t --check-output-chars 8001`:   "too large (at most 8000)",
		`t --check-output-chars 0`:      "must be at least 1",
		`t --max-time 1h --max-time 2h`: "given twice",
		`t --ulw`:                       "unknown flag --ulw",
	} {
		if _, err := parse(t, in, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
	if d, err := ParseDuration("2d12h"); err != nil || d != 60*time.Hour {
		t.Errorf("ParseDuration(2d12h) = %v, %v", d, err)
	}
	if p, err := parse(t, `--ulw --session s t`, Options{Session: true}); err != nil || p.Config.Mode != state.ModeULW {
		t.Errorf("--ulw with start: %+v, %v", p.Config, err)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
	os.WriteFile(filepath.Join(dir, ProjectSettings), []byte(`{"max-iterations": 30, "check": ["a", "b"], "check-hint": "h", "min-tool-calls": "02"}`), 0o644)
	os.WriteFile(filepath.Join(dir, LocalSettings), []byte(`{"max-iterations": 40, "check": "c"}`), 0o644)
	p, _ := parse(t, `task --min-tool-calls 5`, Options{})
	c, err := Resolve(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxIterations != 40 || !reflect.DeepEqual(c.Checks, []string{"c"}) || c.CheckHint != "h" || c.MinToolCalls != 5 || c.Task != "task" {
		t.Fatalf("%+v", c)
	}
	want := map[string]string{"max-iterations": LocalSettings, "check": LocalSettings, "check-hint": ProjectSettings,
		"min-tool-calls": "flag", "completion-promise": "default"}
	for k, v := range want {
		if c.Sources[k] != v {
			t.Errorf("source of %s = %q, want %q", k, c.Sources[k], v)
		}
	}
	// No settings at all: the defaults.
	c, err = Resolve(p, t.TempDir())
	if err != nil || c.MaxIterations != state.DefaultMaxIterations || c.Sources["max-iterations"] != "default" {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestMergeJSON(t *testing.T) {
	a := map[string]any{"x": map[string]any{"p": 1, "q": 2}, "l": []any{1, 2}, "s": "a"}
	b := map[string]any{"x": map[string]any{"q": 3, "r": 4}, "l": []any{9}}
	got := mergeJSON(a, b)
	want := map[string]any{"x": map[string]any{"p": 1, "q": 3, "r": 4}, "l": []any{9}, "s": "a"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merge = %v, want %v", got, want)
	}
}

// TestREADMEFlags keeps the flag table of docs/usage.md what the flag table makes of it.
func TestREADMEFlags(t *testing.T) {
	data, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "| flag | default | meaning |\n"
	s := string(data)
	i := strings.Index(s, head)
	if i < 0 {
		t.Fatal("docs/usage.md has no flag table")
	}
	end := strings.Index(s[i:], "\n\n")
	if end < 0 {
		end = len(s) - i
	}
	if got, want := s[i:i+end+1], Markdown(); got != want {
		t.Errorf("docs/usage.md's flag table is out of date (make generate rewrites it); it should read:\n%s", want)
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"--max-iter", "did you mean --max-iterations?"},
		{"--max-iteration", "did you mean --max-iterations?"},
		{"--completion-promsie", "did you mean --completion-promise?"},
		{"--check-timout", "did you mean --check-timeout?"},
		{"--zzzzzzzzzz", "quote task words that start with '-'"},
	} {
		_, err := parse(t, "task "+tt.in+" 3", Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestHelpWordAndResume(t *testing.T) {
	if _, err := parse(t, "help", Options{}); !errors.Is(err, ErrHelp) {
		t.Errorf(`Parse("help") = %v, want ErrHelp`, err)
	}
	if p, err := parse(t, `"help"`, Options{}); err != nil || p.Config.Task != "help" {
		t.Errorf(`a quoted "help" is a task: %+v %v`, p.Config, err)
	}
	if p, err := parse(t, "help me fix it", Options{}); err != nil || p.Config.Task != "help me fix it" {
		t.Errorf(`"help me fix it": %+v %v`, p.Config, err)
	}
	if p, err := parse(t, "--resume --max-iterations 9", Options{}); err != nil || !p.Resume || p.Config.MaxIterations != 9 {
		t.Errorf("--resume: %+v %v", p, err)
	}
	if _, err := parse(t, "--resume a task", Options{}); err == nil {
		t.Error("--resume with a task was accepted")
	}
	if p, err := parse(t, "t --promise-match line", Options{}); err != nil || p.Config.PromiseMatch != "line" {
		t.Errorf("--promise-match line: %+v %v", p.Config, err)
	}
	if _, err := parse(t, "t --promise-match everywhere", Options{}); err == nil {
		t.Error("--promise-match everywhere was accepted")
	}
}

// TestParseBudgetFlags: --max-tokens takes a whole number, --max-cost an amount in USD;
// anything else is refused with one line, nothing parsed.
func TestParseBudgetFlags(t *testing.T) {
	p, err := parse(t, `t --max-tokens 2000000 --max-cost 0.75`, Options{})
	if err != nil || p.Config.MaxTokens != 2_000_000 || p.Config.MaxCost != 0.75 {
		t.Fatalf("got %+v, %v", p.Config, err)
	}
	if p, err := parse(t, `t --max-cost 5 --max-tokens=08`, Options{}); err != nil || p.Config.MaxCost != 5 || p.Config.MaxTokens != 8 {
		t.Fatalf("got %+v, %v", p.Config, err)
	}
	for in, want := range map[string]string{
		`t --max-cost -3`:                     "not an amount in USD",
		`t --max-cost abc`:                    "not an amount in USD",
		`t --max-cost 0`:                      "more than 0",
		`t --max-cost 1e3`:                    "not an amount in USD",
		`t --max-cost NaN`:                    "not an amount in USD",
		`t --max-cost Inf`:                    "not an amount in USD",
		`t --max-cost .`:                      "not an amount in USD",
		`t --max-cost 1.2.3`:                  "not an amount in USD",
		`t --max-cost $5`:                     "not an amount in USD",
		`t --max-cost 2000000`:                "at most 1000000",
		`t --max-tokens 1.5`:                  "not a whole number of tokens",
		`t --max-tokens 0`:                    "not a whole number of tokens",
		`t --max-tokens -1`:                   "not a whole number of tokens",
		`t --max-tokens +5`:                   "not a whole number of tokens",
		`t --max-tokens 1e6`:                  "not a whole number of tokens",
		`t --max-tokens 99999999999999999999`: "not a whole number of tokens",
	} {
		if _, err := parse(t, in, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestResolvePrices: a project's "prices" (a file the agent can write) sets no price, and is
// named as not used; the user's own settings set them (UserSettings), with what an unpriced
// model does. A bad one names the file and the model, wherever it is.
func TestResolvePrices(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, ProjectSettings), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"max-cost": "2.5", "unpriced": "pause", "prices": {"my-model": {"input": 1, "cache_write": 1.25, "cache_read": 0.1, "output": 5}}}`)
	c, err := Resolve(Parsed{}, dir)
	if err != nil || c.MaxCost != 2.5 || len(c.Prices) != 0 || c.Unpriced != "" || c.Sources["prices"] != ProjectSettings || c.Sources["unpriced"] != ProjectSettings {
		t.Fatalf("got %+v, %v", c, err)
	}
	user := filepath.Join(dir, "settings.json")
	os.WriteFile(user, []byte(`{"version": 1, "unpriced": "pause", "prices": {"my-model": {"input": 1, "cache_write": 1.25, "cache_read": 0.1, "output": 5}}}`), 0o644)
	prices, unpriced, err := UserSettings(user)
	if err != nil || prices["my-model"].Output != 5 || prices["my-model"].CacheRead != 0.1 || unpriced != UnpricedPause {
		t.Fatalf("UserSettings: got %v %q %v", prices, unpriced, err)
	}
	if p, u, err := UserSettings(filepath.Join(dir, "none.json")); err != nil || p != nil || u != "" {
		t.Fatalf("no user settings: got %v %q %v", p, u, err)
	}
	for in, want := range map[string]string{
		`{"max-iterations": 3}`: `unknown setting "max-iterations"`,
		`{"unpriced": "free"}`:  `"unpriced" must be "bound" or "pause"`,
		`{"prices": 3}`:         `"prices" must be an object of models`,
	} {
		os.WriteFile(user, []byte(in), 0o644)
		if _, _, err := UserSettings(user); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), user) {
			t.Errorf("user settings %s: got %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]string{
		`{"prices": 3}`:                   `"prices" must be an object of models`,
		`{"prices": {"m": {"input": 1}}}`: `"m": "cache_write" must be a number`,
		`{"prices": {"m": {"input": -1, "cache_write": 1, "cache_read": 1, "output": 1}}}`: `"input" must be from 0`,
		`{"prices": {"m": {"inptu": 1}}}`:                                                  `unknown price "inptu"`,
		`{"max-tokens": 1.5}`:                                                              "not a whole number of tokens",
	} {
		write(in)
		if _, err := Resolve(Parsed{}, dir); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ProjectSettings) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}
