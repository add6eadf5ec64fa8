package claude

import (
	"os"
	"path/filepath"
	"testing"
)

// The captured transcript of a /goal: active. A later goal_status that says it was met
// (synthetic, the shape /goal clear writes), or failed, ends it; one in a subagent's
// lines does not count.
func TestActiveGoal(t *testing.T) {
	captured, err := os.ReadFile("../../testdata/claude/transcript.goal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, more string
		want       string
		active     bool
	}{
		{"set", "", "x.txt exists", true},
		{"cleared", `{"type":"attachment","attachment":{"type":"goal_status","met":true,"sentinel":true,"condition":"x.txt exists"}}` + "\n", "", false},
		{"failed", `{"type":"attachment","attachment":{"type":"goal_status","met":false,"failed":true,"condition":"x.txt exists"}}` + "\n", "", false},
		{"a subagent's", `{"type":"attachment","isSidechain":true,"attachment":{"type":"goal_status","met":true,"condition":"x.txt exists"}}` + "\n", "x.txt exists", true},
		{"set again", `{"type":"attachment","attachment":{"type":"goal_status","met":true,"sentinel":true,"condition":"a"}}` + "\n" +
			`{"type":"attachment","attachment":{"type":"goal_status","met":false,"sentinel":true,"condition":"b"}}` + "\n", "b", true},
	} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		os.WriteFile(path, append(append([]byte(nil), captured...), tt.more...), 0o600)
		if got, active := (Transcript{}).ActiveGoal(path); got != tt.want || active != tt.active {
			t.Errorf("%s: ActiveGoal = %q, %v; want %q, %v", tt.name, got, active, tt.want, tt.active)
		}
	}
	if _, active := (Transcript{}).ActiveGoal(filepath.Join(t.TempDir(), "none")); active {
		t.Error("no transcript: a goal")
	}
}
