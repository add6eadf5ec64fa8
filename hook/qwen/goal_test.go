package qwen

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// pausedGoal is the goal_state record Qwen Code 0.24.4 wrote after three goal turns that
// did nothing, in the session chat.goal.jsonl was captured from.
const pausedGoal = `{"uuid":"be77481f-4f9a-4bfa-8045-2ef0a2f716fa","parentUuid":"dcc0d3d8-493e-4d3f-a3ec-697548d1e564","sessionId":"7cf8e8f1-79b8-4215-b055-dba7d6b2cd97","timestamp":"2026-12-06T02:16:24.609Z","type":"system","provenance":"goal_control","cwd":"/WORK/project","version":"0.24.4","subtype":"goal_state","systemPayload":{"v":2,"cause":"pause","snapshot":{"v":2,"goal":{"goalId":"630df941-0ec0-4daf-b038-8501cca4e65d","revision":1,"objective":"Create x.txt containing hi","status":"paused","evidenceCursor":{"recordId":"9c149ce2-dca8-4db0-b08d-dc5fe7150bab"},"turnCount":4,"activeTimeMs":3235,"tokensUsed":75,"tokenBudget":30000000,"createdAt":1796523381374,"updatedAt":1796523384609,"noProgressTurns":3,"lastReason":"Three Goal turns in a row recorded nothing to judge and no proposal. Resume the Goal to try again, or edit its objective into one the model can act on and then resume it."},"activity":"idle"}}}` + "\n"

// The captured chat of a /goal, through its first turn: active. The pause Qwen Code wrote
// later ends it; a goal cleared (synthetic, the snapshot's shape for it in Qwen Code's
// source) or resumed is read as the last record says; a user's line that quotes the record
// is not one.
func TestActiveGoal(t *testing.T) {
	hosttest.ActiveGoals(t, "../../testdata/qwen/chat.goal.jsonl", Transcript.ActiveGoal, []hosttest.Goal{
		{Name: "set", Want: "Create x.txt containing hi", Active: true},
		{Name: "paused", More: pausedGoal},
		{Name: "cleared", More: `{"type":"system","subtype":"goal_state","systemPayload":{"v":2,"cause":"clear","snapshot":{"v":2,"goal":null,"activity":"idle"}}}` + "\n"},
		{Name: "resumed", More: pausedGoal + `{"type":"system","subtype":"goal_state","systemPayload":{"v":2,"cause":"resume","snapshot":{"v":2,"goal":{"objective":"Create x.txt containing hi","status":"active"},"activity":"idle"}}}` + "\n",
			Want: "Create x.txt containing hi", Active: true},
		{Name: "a user's line", More: pausedGoal + `{"type":"user","message":{"parts":[{"text":"{\"type\":\"system\",\"subtype\":\"goal_state\"}"}]}}` + "\n"},
	})
	if _, active := Transcript.ActiveGoal(filepath.Join(t.TempDir(), "none")); active {
		t.Error("no chat: a goal")
	}
}
