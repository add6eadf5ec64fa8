package copilot

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Copilot CLI's payloads from the ones captured from Copilot CLI 1.0.102.
type fixture struct {
	hosttest.Payloads
	stops map[string]int64 // the timestamp of each session's next agentStop
}

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.Prompt: {File: "userPromptSubmitted.json", Field: "prompt"},
	// ToolUsed is nil: postToolUse has no tool-call id and is not used; Said writes the call
	// into the transcript, where it is counted.
	hook.ToolCheck:  {File: "preToolUse.json", Field: "toolArgs.command"},
	hook.SessionEnd: {File: "sessionEnd.json"},
}

func (f fixture) stamp(s hosttest.Session) int64 {
	if _, ok := f.stops[s.ID]; !ok {
		f.stops[s.ID] = 1795353315580
	}
	return f.stops[s.ID]
}

// Stop has no last message: the text is in the transcript, up to the stop's own hook.start.
func (f fixture) Stop(s hosttest.Session, _ string) []byte {
	return f.Base("agentStop.first.json", s, map[string]any{"transcriptPath": s.Transcript, "timestamp": f.stamp(s)})
}

// Said appends what Copilot CLI writes for a turn: the assistant.message, the tool call's
// tool.execution_complete, and the stop hook's hook.start with the next stop's timestamp.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	f.stops[s.ID] = f.stamp(s) + 1000
	now := time.Now().UTC().Format(time.RFC3339Nano)
	lines := []any{map[string]any{"type": "assistant.message", "timestamp": now, "id": "m",
		"data": map[string]any{"content": text, "toolRequests": []any{}}}}
	if toolID != "" {
		lines = append(lines, map[string]any{"type": "tool.execution_complete", "timestamp": now, "id": "t",
			"data": map[string]any{"toolCallId": toolID, "success": true}})
	}
	lines = append(lines, map[string]any{"type": "hook.start", "timestamp": now, "id": "h",
		"data": map[string]any{"hookType": "agentStop", "input": map[string]any{"sessionId": s.ID, "timestamp": f.stops[s.ID]}}})
	hosttest.AppendJSONL(f.T, s.Transcript, lines...)
}

// Reply reads stdout; exit 2 is a notice on stderr (which the suite does not see).
func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	var r hosttest.Reply
	if code != 0 && code != 2 {
		return r, fmt.Errorf("exit code %d", code)
	}
	if code == 2 && len(stdout) != 0 && kind != hook.Prompt {
		return r, fmt.Errorf("exit 2 with %q on stdout: Copilot CLI would ignore it", stdout)
	}
	if len(stdout) == 0 {
		return r, nil
	}
	var out struct {
		Decision, Reason, AdditionalContext, PermissionDecision string
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return r, err
	}
	r.Block, r.Reason, r.Context = out.Decision == "block", out.Reason, out.AdditionalContext
	r.Deny = out.PermissionDecision == "deny"
	return r, nil
}

func TestConformance(t *testing.T) {
	p := hosttest.Payloads{T: t, Adapter: Host{}, Dir: "copilot", Session: [3]string{"sessionId", "cwd", ""}, Events: events}
	hosttest.Run(t, fixture{p, map[string]int64{}})
}
