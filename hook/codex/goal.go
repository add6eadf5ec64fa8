package codex

import (
	"encoding/json"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

var _ hook.GoalReader = Transcript{}

// ActiveGoal returns the objective of the thread's goal when its rollout shows one active.
// Codex 0.169.0 keeps its goals in a database of its own (goals_1.sqlite), which ralph-loop
// does not read; its rollout records what the model and Codex did with one: the goal tools'
// outputs ({"goal": {"objective", "status"}}), the objective Codex puts in the model's
// context (a goal_objective output), and the turns it starts for an active goal
// (task_started with turn_trigger "goal"). The last of these tells. A goal changed in the
// TUI after that without the rollout recording it is not seen.
func (Transcript) ActiveGoal(path string) (string, bool) {
	active, objective := false, ""
	_ = transcript.Grep(path, []byte("goal"), func(line []byte) {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Type            string `json:"type"`
				Name            string `json:"name"`
				Output          any    `json:"output"`
				TurnAttribution struct {
					Trigger string `json:"turn_trigger"`
				} `json:"turn_attribution"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &l) != nil {
			return
		}
		p := l.Payload
		switch {
		case l.Type == "event_msg" && p.Type == "task_started" && p.TurnAttribution.Trigger == "goal":
			active = true
		case l.Type == "response_item" && p.Type == "function_call_output" && p.Name == "goal_objective":
			if s, ok := p.Output.(string); ok && s != "" {
				active, objective = true, s
			}
		case l.Type == "response_item" && p.Type == "function_call_output":
			s, ok := p.Output.(string)
			var out struct {
				Goal *struct {
					Objective string `json:"objective"`
					Status    string `json:"status"`
				} `json:"goal"`
			}
			if ok && json.Unmarshal([]byte(s), &out) == nil && out.Goal != nil && out.Goal.Status != "" {
				active = out.Goal.Status == "active"
				if out.Goal.Objective != "" {
					objective = out.Goal.Objective
				}
			}
		}
	})
	if !active {
		return "", false
	}
	return objective, true
}
