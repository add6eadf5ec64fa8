package claude

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// The captured transcript of a /goal: active. A later goal_status that says it was met
// (synthetic, the shape /goal clear writes), or failed, ends it; one in a subagent's
// lines does not count.
func TestActiveGoal(t *testing.T) {
	hosttest.ActiveGoals(t, "../../testdata/claude/transcript.goal.jsonl", Transcript{}.ActiveGoal, []hosttest.Goal{
		{Name: "set", Want: "x.txt exists", Active: true},
		{Name: "cleared", More: `{"type":"attachment","attachment":{"type":"goal_status","met":true,"sentinel":true,"condition":"x.txt exists"}}` + "\n"},
		{Name: "failed", More: `{"type":"attachment","attachment":{"type":"goal_status","met":false,"failed":true,"condition":"x.txt exists"}}` + "\n"},
		{Name: "a subagent's", More: `{"type":"attachment","isSidechain":true,"attachment":{"type":"goal_status","met":true,"condition":"x.txt exists"}}` + "\n", Want: "x.txt exists", Active: true},
		{Name: "set again", More: `{"type":"attachment","attachment":{"type":"goal_status","met":true,"sentinel":true,"condition":"a"}}` + "\n" +
			`{"type":"attachment","attachment":{"type":"goal_status","met":false,"sentinel":true,"condition":"b"}}` + "\n", Want: "b", Active: true},
	})
	if _, active := (Transcript{}).ActiveGoal(filepath.Join(t.TempDir(), "none")); active {
		t.Error("no transcript: a goal")
	}
}
