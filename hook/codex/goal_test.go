package codex

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// The captured rollout of a thread whose model created a goal: active. A later goal tool
// output with another status (synthetic, the shape create_goal's output has) ends it.
func TestActiveGoal(t *testing.T) {
	done := `{"timestamp":"2026-11-27T19:30:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_2","output":"{\"goal\":{\"objective\":\"Make x.txt hold hi\",\"status\":\"complete\"}}"}}` + "\n"
	hosttest.ActiveGoals(t, "../../testdata/codex/rollout.goal.jsonl", Transcript{}.ActiveGoal, []hosttest.Goal{
		{Name: "created", Want: "Make x.txt hold hi", Active: true},
		{Name: "completed", More: done},
		{Name: "a new one after it", More: done + `{"timestamp":"2026-11-27T19:31:00.000Z","type":"response_item","payload":{"type":"function_call_output","name":"goal_objective","namespace":"agent","output":"Ship it"}}` + "\n", Want: "Ship it", Active: true},
	})
	if _, active := (Transcript{}).ActiveGoal("../../testdata/codex/rollout.loop3.jsonl"); active {
		t.Error("a rollout without a goal: a goal")
	}
}
