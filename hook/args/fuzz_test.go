package args

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzParse checks that any prompt text splits and parses without panicking, that a parsed
// task is never empty, and that a task quoted with Quote comes back intact.
func FuzzParse(f *testing.F) {
	var captured struct{ Prompt string }
	data, err := os.ReadFile("../../testdata/claude/UserPromptSubmit.slash-command.json")
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(data, &captured); err != nil {
		f.Fatal(err)
	}
	f.Add(strings.TrimPrefix(captured.Prompt, "/ralph-loop"))
	f.Add(`fix the parser --max-iterations=08 --completion-promise "A  B" --min-tool-calls 0 --on-promise-no-work warn`)
	f.Add("\"Fix `x` in $HOME's \\\"dir\\\"\nthen\" -- --x")
	f.Add(`it's`)
	f.Add(`t --max-tokens 2000000 --max-cost 0.75`)
	f.Add(`t --max-cost=-3 --max-tokens 1.5`)
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err == nil {
			p, err := Parse(words, Options{})
			if err == nil && strings.TrimSpace(p.Config.Task) == "" {
				t.Fatalf("Parse(%q) gave an empty task", s)
			}
			if c := p.Config; err == nil && (c.MaxTokens < 0 || c.MaxTokens > MaxTokens || !(c.MaxCost >= 0 && c.MaxCost <= MaxCost)) {
				t.Fatalf("Parse(%q) gave budgets %d tokens, %v USD", s, c.MaxTokens, c.MaxCost)
			}
		}
		if strings.TrimSpace(s) == "" {
			return
		}
		words, err = Split("--max-iterations 3 -- " + Quote(s))
		if err != nil {
			t.Fatalf("Split of quoted %q: %v", s, err)
		}
		p, err := Parse(words, Options{})
		if err != nil || p.Config.Task != s || p.Config.MaxIterations != 3 {
			t.Fatalf("quoted task %q came back as %q, %v", s, p.Config.Task, err)
		}
	})
}
