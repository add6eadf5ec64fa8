package claude

import (
	"encoding/json"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

var _ hook.GoalReader = Transcript{}

// ActiveGoal returns the condition of the session's /goal when its transcript shows one
// active, read as Claude Code 2.1.330 reads it back when a session resumes: the last
// goal_status attachment of the main conversation, unless it says the goal was met or
// failed (/goal writes one with met false when it is set, and one with met true when it is
// cleared).
func (Transcript) ActiveGoal(path string) (string, bool) {
	type status struct {
		Type      string `json:"type"`
		Met       bool   `json:"met"`
		Failed    bool   `json:"failed"`
		Condition string `json:"condition"`
	}
	var last *status
	_ = transcript.Grep(path, []byte(`"goal_status"`), func(line []byte) {
		var l struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Attachment  status `json:"attachment"`
		}
		if json.Unmarshal(line, &l) == nil && l.Type == "attachment" && !l.IsSidechain && l.Attachment.Type == "goal_status" {
			s := l.Attachment
			last = &s
		}
	})
	if last == nil || last.Met || last.Failed || last.Condition == "" {
		return "", false
	}
	return last.Condition, true
}
