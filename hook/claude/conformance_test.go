package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Claude Code's payloads from the ones captured from Claude Code 2.1.330.
type fixture struct{ t *testing.T }

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{"CLAUDE_PROJECT_DIR": ""} }
func (f fixture) load(name string) []byte {
	return hosttest.Load(f.t, filepath.Join("../../testdata/claude", name))
}

func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	fields["session_id"], fields["cwd"], fields["transcript_path"] = s.ID, s.Cwd, s.Transcript
	return hosttest.Patch(f.load(name), fields)
}

func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("UserPromptSubmit.json", s, map[string]any{"prompt": text})
}

func (f fixture) Stop(s hosttest.Session, last string) []byte {
	return f.base("Stop.first-call.json", s, map[string]any{"last_assistant_message": last})
}

func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("PostToolUse.Bash.json", s, map[string]any{"tool_use_id": id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("PreToolUse.Bash.json", s, map[string]any{"tool_input.command": command})
}

func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("SessionEnd.json", s, map[string]any{})
}

// Said appends an assistant line as Claude Code writes it.
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	blocks := []map[string]any{{"type": "text", "text": text}}
	if toolID != "" {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": "true"}})
	}
	line, _ := json.Marshal(map[string]any{"type": "assistant", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": blocks}})
	if err := os.MkdirAll(filepath.Dir(s.Transcript), 0o755); err != nil {
		f.t.Fatal(err)
	}
	tf, err := os.OpenFile(s.Transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	defer tf.Close()
	if _, err := tf.Write(append(line, '\n')); err != nil {
		f.t.Fatal(err)
	}
}

func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	var r hosttest.Reply
	if code != 0 {
		return r, fmt.Errorf("exit code %d", code)
	}
	if len(stdout) == 0 {
		return r, nil
	}
	var out struct {
		Decision, Reason, SystemMessage string
		HookSpecificOutput              struct {
			AdditionalContext, PermissionDecision string
		}
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return r, err
	}
	r.Block, r.Reason, r.Notice = out.Decision == "block", out.Reason, out.SystemMessage
	r.Context, r.Deny = out.HookSpecificOutput.AdditionalContext, out.HookSpecificOutput.PermissionDecision == "deny"
	return r, nil
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t}) }
