package gemini

import (
	"fmt"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Gemini CLI's payloads from the ones captured from Gemini CLI 0.61.0.
type fixture struct{ hosttest.Payloads }

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.Prompt: {File: "BeforeAgent.json", Field: "prompt"},
	// Stop puts last in prompt_response, which the host must not read: the transcript is what
	// counts.
	hook.Stop: {File: "AfterAgent.first-call.json", Field: "prompt_response"},
	// ToolUsed makes AfterTool, which has no id: id goes into the command, so that different
	// calls are different events.
	hook.ToolUsed:   {File: "AfterTool.run_shell_command.json", Field: "tool_input.command", Prefix: "echo "},
	hook.ToolCheck:  {File: "BeforeTool.run_shell_command.json", Field: "tool_input.command"},
	hook.SessionEnd: {File: "SessionEnd.json"},
}

// Said appends a gemini record as Gemini CLI writes it (synthetic, in the shape of
// chat.block-once.jsonl), with a lastUpdated line after it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	appendRecords(f.T, s.Transcript, geminiRecord(text, toolID, time.Now()))
}

func geminiRecord(text, toolID string, at time.Time) map[string]any {
	rec := map[string]any{"id": fmt.Sprintf("msg-%d", at.UnixNano()), "timestamp": at.UTC().Format(time.RFC3339Nano), "type": "gemini",
		"content": text, "thoughts": []any{}, "model": "gemini-2.5-flash"}
	if toolID != "" {
		rec["toolCalls"] = []any{map[string]any{"id": toolID, "name": ShellTool, "args": map[string]any{"command": "true"}, "status": "success"}}
	}
	return rec
}

func appendRecords(t testing.TB, path string, recs ...map[string]any) {
	t.Helper()
	var lines []any
	for _, r := range recs {
		lines = append(lines, r, map[string]any{"$set": map[string]any{"lastUpdated": time.Now().UTC().Format(time.RFC3339Nano)}})
	}
	hosttest.AppendJSONL(t, path, lines...)
}

func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	var r hosttest.Reply
	var out struct {
		Decision, Reason, SystemMessage string
		HookSpecificOutput              struct{ HookEventName, AdditionalContext string }
	}
	if ok, err := hosttest.ReadReply(stdout, code, &out); !ok {
		return r, err
	}
	r.Block, r.Deny = out.Decision == "block", out.Decision == "deny"
	r.Reason, r.Notice, r.Context = out.Reason, out.SystemMessage, out.HookSpecificOutput.AdditionalContext
	return r, nil
}

func newFixture(t testing.TB) fixture {
	return fixture{hosttest.Payloads{T: t, Adapter: Host{}, Environ: map[string]string{ProjectEnv: ""}, Dir: "gemini", Session: hosttest.ClaudeSession, Events: events}}
}

func TestConformance(t *testing.T) { hosttest.Run(t, newFixture(t)) }
