package gemini

import (
	"fmt"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Gemini CLI's payloads from the ones captured from Gemini CLI 0.61.0.
type fixture struct{ t *testing.T }

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{ProjectEnv: ""} }
func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	return hosttest.ClaudePayload(f.t, "gemini", name, s, fields)
}

func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("BeforeAgent.json", s, map[string]any{"prompt": text})
}

// Stop puts last in prompt_response, which the host must not read: the transcript is what
// counts.
func (f fixture) Stop(s hosttest.Session, last string) []byte {
	return f.base("AfterAgent.first-call.json", s, map[string]any{"prompt_response": last})
}

// ToolUsed makes AfterTool, which has no id: id goes into the command, so that different
// calls are different events.
func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("AfterTool.run_shell_command.json", s, map[string]any{"tool_input.command": "echo " + id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("BeforeTool.run_shell_command.json", s, map[string]any{"tool_input.command": command})
}

func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("SessionEnd.json", s, map[string]any{})
}

// Said appends a gemini record as Gemini CLI writes it (synthetic, in the shape of
// chat.block-once.jsonl), with a lastUpdated line after it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	appendRecords(f.t, s.Transcript, geminiRecord(text, toolID, time.Now()))
}

func geminiRecord(text, toolID string, at time.Time) map[string]any {
	rec := map[string]any{"id": fmt.Sprintf("msg-%d", at.UnixNano()), "timestamp": at.UTC().Format(time.RFC3339Nano), "type": "gemini",
		"content": text, "thoughts": []any{}, "model": "gemini-2.5-flash"}
	if toolID != "" {
		rec["toolCalls"] = []any{map[string]any{"id": toolID, "name": ShellTool, "args": map[string]any{"command": "true"}, "status": "success"}}
	}
	return rec
}

func appendRecords(t *testing.T, path string, recs ...map[string]any) {
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

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t}) }
