package qwen

import (
	"encoding/json"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

var _ hook.GoalReader = Transcript

// ActiveGoal returns the objective of the session's /goal when its chat recording shows one
// active, read as Qwen Code 0.24.4 reads it back when a session resumes: the last
// goal_state record ({"type": "system", "subtype": "goal_state", "systemPayload": {"v": 2,
// "snapshot": {"goal": {"objective", "status"} or null}}}), whose goal's status is active
// (paused, complete and a cleared goal, null, are not).
func (chat) ActiveGoal(path string) (string, bool) {
	type goal struct {
		Objective string `json:"objective"`
		Status    string `json:"status"`
	}
	var last *goal
	seen := false
	_ = transcript.Grep(path, []byte(`"goal_state"`), func(line []byte) {
		var l struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Payload struct {
				Snapshot struct {
					Goal *goal `json:"goal"`
				} `json:"snapshot"`
			} `json:"systemPayload"`
		}
		if json.Unmarshal(line, &l) == nil && l.Type == "system" && l.Subtype == "goal_state" {
			seen, last = true, l.Payload.Snapshot.Goal
		}
	})
	if !seen || last == nil || last.Status != "active" {
		return "", false
	}
	return last.Objective, true
}
