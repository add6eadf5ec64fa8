package droid

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/inject"
)

// fixture makes Factory Droid's payloads from the ones captured from Factory Droid 0.215.0.
type fixture struct{ hosttest.Claude }

// expand is what Factory Droid hands the prompt hook for text typed at its prompt: a loop
// command expanded from the command file install writes (as in
// UserPromptSubmit.ralph-loop-command.json), any other text as it is.
func expand(text string) string {
	for _, cf := range inject.EchoedCommands("droid") {
		cmd := "/" + strings.TrimSuffix(cf.Name, ".md")
		args, ok := strings.CutPrefix(text, cmd)
		if !ok || (args != "" && args[0] != ' ') {
			continue
		}
		body := cf.Content[strings.Index(cf.Content, "\n---\n")+len("\n---\n"):]
		return "<system-notification>\n" + strings.ReplaceAll(body, "$ARGUMENTS", strings.TrimPrefix(args, " ")) + "\n</system-notification>"
	}
	return text
}

// Prompt is the user's prompt as the prompt hook gets it (under --input-format
// stream-jsonrpc, or in the TUI).
func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.Base("UserPromptSubmit.json", s, map[string]any{"prompt": expand(text)})
}

// Said appends an assistant message line as Factory Droid writes it (see
// testdata/droid/transcript.jsonl).
func (f fixture) Said(s hosttest.Session, text, toolID string) {
	hosttest.AppendJSONL(f.T, s.Transcript, map[string]any{"type": "message", "id": fmt.Sprintf("m-%d", time.Now().UnixNano()),
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message":   map[string]any{"role": "assistant", "content": hosttest.ClaudeBlocks(text, toolID, "Execute"), "modelId": "custom:fake-model"}})
}

// ReplyStderr reads a refused prompt from stderr (exit code 2), anything else as Reply does.
func (f fixture) ReplyStderr(kind hook.Kind, stdout, stderr []byte, code int) (hosttest.Reply, error) {
	if kind == hook.Prompt && code == 2 {
		if len(stdout) != 0 {
			return hosttest.Reply{}, fmt.Errorf("stdout %q beside exit code 2", stdout)
		}
		return hosttest.Reply{Block: true, Reason: string(stderr)}, nil
	}
	return f.Reply(kind, stdout, code)
}

func TestConformance(t *testing.T) {
	f := fixture{hosttest.NewClaude(t, Host{}, "Execute", map[string]string{"FACTORY_PROJECT_DIR": ""})}
	// Stop has no last message: the text is in the transcript (Said).
	f.Events[hook.Stop] = hosttest.Event{File: "Stop.first-call.json"}
	// ToolUsed has no tool-call id: the call's input stands for it.
	f.Events[hook.ToolUsed] = hosttest.Event{File: "PostToolUse.Execute.json", Field: "tool_input.command", Prefix: "echo "}
	hosttest.Run(t, f)
}

// TestExpandAsCaptured checks the fixture's expansion against Factory Droid's own.
func TestExpandAsCaptured(t *testing.T) {
	for file, typed := range map[string]string{
		"UserPromptSubmit.ralph-loop-command.json":   `/ralph-loop "Fix the parser" --max-iterations 3`,
		"UserPromptSubmit.cancel-ralph-command.json": `/cancel-ralph`,
	} {
		var in struct{ Prompt string }
		if err := json.Unmarshal(hosttest.Load(t, filepath.Join("../../testdata/droid", file)), &in); err != nil {
			t.Fatal(err)
		}
		if got := expand(typed); got != in.Prompt {
			t.Errorf("%s: expand(%q) = %q, want %q", file, typed, got, in.Prompt)
		}
	}
}
