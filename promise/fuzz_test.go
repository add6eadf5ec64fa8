package promise

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMatcher checks that the streaming matcher agrees with Contains for any text, token
// and split of the text into three pieces.
func FuzzMatcher(f *testing.F) {
	// The agent's last messages from Claude Code's captured Stop payloads.
	files, _ := filepath.Glob("../testdata/claude/Stop.*.json")
	for _, name := range files {
		var in struct {
			Last string `json:"last_assistant_message"`
		}
		data, err := os.ReadFile(name)
		if err != nil || json.Unmarshal(data, &in) != nil {
			f.Fatalf("read %s: %v", name, err)
		}
		f.Add(in.Last, "DONE", len(in.Last)/3, len(in.Last)/2)
	}
	f.Add("All work is complete. <promise>DONE</promise>", "DONE", 3, 20)
	f.Add("I created x.txt.", "DONE", 0, 0)
	f.Add("<promise>TWO  SPACES</promise>", "TWO  SPACES", 9, 10)
	f.Add("<promise>完了</promise>", "完了", 10, 11)
	f.Add("<promise>a.c</promise><promise>abc</promise>", "a.c", 5, 30)
	f.Add("I will NOT output <promise>DONE</promise> yet\n<promise>DONE</promise>\n", "DONE", 7, 40)
	f.Add("<promise>ALPHA</promise>", "BETA", 3, 12)
	f.Fuzz(func(t *testing.T, text, token string, i, j int) {
		if Validate(token) != nil {
			return
		}
		n := len(text)
		i, j = clamp(i, n), clamp(j, n)
		if i > j {
			i, j = j, i
		}
		for _, mode := range []Mode{Anywhere, OwnLine, AtEnd} {
			m := NewMatcherMode(token, mode)
			m.Write([]byte(text[:i]))
			m.Write([]byte(text[i:j]))
			m.Write([]byte(text[j:]))
			if got, want := m.Found(), ContainsMode(text, token, mode); got != want {
				t.Fatalf("%s Matcher over %q split at %d,%d for %q = %v, want %v", mode, text, i, j, token, got, want)
			}
			gotO, gotOK := m.Other()
			if wantO, wantOK := Other(text, token); gotO != wantO || gotOK != wantOK {
				t.Fatalf("Matcher over %q split at %d,%d: Other() = %q, %v; want %q, %v", text, i, j, gotO, gotOK, wantO, wantOK)
			}
		}
	})
}

func clamp(i, n int) int {
	if i < 0 {
		i = -(i + 1)
	}
	if n == 0 {
		return 0
	}
	return i % (n + 1)
}
