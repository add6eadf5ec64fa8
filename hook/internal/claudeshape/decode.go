package claudeshape

import (
	"io"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/state"
)

// DecodeInput reads one event object from r. Fields it does not use (tool inputs and
// responses, which can be huge) are skipped without being held in memory. Known fields of
// the wrong type, a missing hook_event_name, or anything but one JSON object are errors
// wrapping hook.ErrInput.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	err := DecodeWith(r, &in, nil)
	return in, err
}

// Event is the event in as every host of this shape sends it: its name, session, directory,
// transcript and key, and the kinds they send alike: SessionStart, SessionEnd, and
// StopFailure, which comes instead of Stop when the model's API (or the host's loop
// detector) ended the turn, and whose output is ignored. The host reads the other events.
func Event(in *Input) hook.Event {
	ev := hook.Event{Name: in.Event, SessionID: in.SessionID, Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, Key: in.Key}
	switch in.Event {
	case "SessionStart":
		ev.Kind, ev.Source = hook.SessionStart, in.Source
	case "SessionEnd":
		ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
	case "StopFailure":
		ev.Kind, ev.Error, ev.LastMessage = hook.Failed, in.Error, in.FailureMessage()
	}
	return ev
}

// Background is the work in the background and the wake-ups scheduled that a Stop event of
// this shape reports (background_tasks, session_crons), as the engine's tasks: the tasks
// whose status inFlight takes (a host may list finished ones too), and every cron.
func Background(in *Input, inFlight func(status string) bool) []state.Task {
	var out []state.Task
	for _, t := range in.Tasks {
		if !inFlight(t.Status) {
			continue
		}
		kind := t.Type
		if kind == "" && t.AgentType != "" {
			kind = "subagent"
		}
		name := t.Description
		if name == "" {
			name = t.AgentType
		}
		out = append(out, state.Task{ID: t.ID, Kind: kind, Name: name, Command: t.Command})
	}
	for _, c := range in.Crons {
		out = append(out, state.Task{ID: c.ID, Kind: state.KindCron, Name: c.Prompt, Command: c.Schedule})
	}
	return out
}
