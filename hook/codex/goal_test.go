package codex

import (
	"os"
	"path/filepath"
	"testing"
)

// The captured rollout of a thread whose model created a goal: active. A later goal tool
// output with another status (synthetic, the shape create_goal's output has) ends it.
func TestActiveGoal(t *testing.T) {
	captured, err := os.ReadFile("../../testdata/codex/rollout.goal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	done := `{"timestamp":"2026-11-27T19:30:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_2","output":"{\"goal\":{\"objective\":\"Make x.txt hold hi\",\"status\":\"complete\"}}"}}` + "\n"
	for _, tt := range []struct {
		name, more string
		want       string
		active     bool
	}{
		{"created", "", "Make x.txt hold hi", true},
		{"completed", done, "", false},
		{"a new one after it", done + `{"timestamp":"2026-11-27T19:31:00.000Z","type":"response_item","payload":{"type":"function_call_output","name":"goal_objective","namespace":"agent","output":"Ship it"}}` + "\n", "Ship it", true},
	} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		os.WriteFile(path, append(append([]byte(nil), captured...), tt.more...), 0o600)
		if got, active := (Transcript{}).ActiveGoal(path); got != tt.want || active != tt.active {
			t.Errorf("%s: ActiveGoal = %q, %v; want %q, %v", tt.name, got, active, tt.want, tt.active)
		}
	}
	if _, active := (Transcript{}).ActiveGoal("../../testdata/codex/rollout.loop3.jsonl"); active {
		t.Error("a rollout without a goal: a goal")
	}
}
