package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// wireFields are the output fields Codex 0.169.0 accepts for each event: it refuses any other
// (serde deny_unknown_fields), which fails the hook.
var wireFields = map[hook.Kind]struct{ top, specific []string }{
	hook.Stop:         {top: []string{"decision", "reason"}},
	hook.Prompt:       {top: []string{"decision", "reason", "hookSpecificOutput"}, specific: []string{"hookEventName", "additionalContext"}},
	hook.ToolCheck:    {top: []string{"decision", "reason", "hookSpecificOutput"}, specific: []string{"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"}},
	hook.ToolUsed:     {top: []string{"decision", "reason", "hookSpecificOutput"}, specific: []string{"hookEventName", "additionalContext", "updatedMCPToolOutput"}},
	hook.SessionStart: {top: []string{"hookSpecificOutput"}, specific: []string{"hookEventName", "additionalContext"}},
}

var universal = []string{"continue", "stopReason", "suppressOutput", "systemMessage"}

// checkWire checks a reply against Codex's output schema for the event.
func checkWire(kind hook.Kind, stdout []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &m); err != nil {
		return err
	}
	allowed := wireFields[kind]
	for k := range m {
		if !contains(universal, k) && !contains(allowed.top, k) {
			return fmt.Errorf("field %q is not in Codex's output for event kind %d: %s", k, kind, stdout)
		}
	}
	if raw, ok := m["hookSpecificOutput"]; ok {
		var s map[string]json.RawMessage
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		for k := range s {
			if !contains(allowed.specific, k) {
				return fmt.Errorf("hookSpecificOutput.%s is not in Codex's output for event kind %d", k, kind)
			}
		}
		if _, ok := s["hookEventName"]; !ok {
			return fmt.Errorf("hookSpecificOutput without hookEventName: %s", stdout)
		}
	}
	var d struct{ Decision, Reason string }
	_ = json.Unmarshal(stdout, &d)
	if d.Decision != "" && (d.Decision != "block" || strings.TrimSpace(d.Reason) == "") {
		return fmt.Errorf("decision %q with reason %q", d.Decision, d.Reason)
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestDecodeCaptured(t *testing.T) {
	for _, c := range hosttest.LoadAll(t, "../../testdata/codex/*.json", 10) {
		name, data := c.Path, c.Data
		ev, err := Host{}.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ev.SessionID == "" || ev.Kind == hook.Ignored || !strings.HasPrefix(filepath.Base(name), ev.Name) {
			t.Errorf("%s: %+v", name, ev)
		}
	}
}

func TestDecodeEvents(t *testing.T) {
	for _, c := range []struct {
		file string
		want hook.Event
	}{
		{"UserPromptSubmit.tui.skill-ralph-loop.json", hook.Event{Kind: hook.Prompt, Prompt: `/ralph-loop "fix the bug" --max-iterations 3`}},
		{"UserPromptSubmit.slash-command.json", hook.Event{Kind: hook.Prompt, Prompt: "/ralph-loop fix the bug --max-iterations 3"}},
		{"Stop.after-block.json", hook.Event{Kind: hook.Stop, LastMessage: "Iteration 3 finished. <promise>DONE</promise>"}},
		{"PostToolUse.Bash.json", hook.Event{Kind: hook.ToolUsed, ToolName: "Bash", ToolUseID: "call_fake_1"}},
		{"PreToolUse.Bash.json", hook.Event{Kind: hook.ToolCheck, ToolName: "Bash", ToolUseID: "call_fake_1", ToolKind: hook.ShellTool, Command: "echo 1 >> progress.txt"}},
		{"SessionStart.json", hook.Event{Kind: hook.SessionStart, Source: "startup"}},
		// Codex 0.169.0 offering apply_patch (model gpt-5.5): the tool, and the shell running it.
		{"PreToolUse.apply_patch.json", hook.Event{Kind: hook.ToolCheck, ToolName: "apply_patch", ToolUseID: "call_fake_1", ToolKind: hook.PatchTool,
			Patch: "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: /WORK/probe/state/ralph-loop/sessions/planted/loop.json\n+{}\n*** End Patch\n"}},
		{"PreToolUse.Bash.apply_patch.json", hook.Event{Kind: hook.ToolCheck, ToolName: "Bash", ToolUseID: "call_fake_2", ToolKind: hook.ShellTool,
			Command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: /WORK/probe/state/ralph-loop/sessions/planted/loop.json\n+{}\n*** End Patch\nEOF"}},
	} {
		data, err := os.ReadFile(filepath.Join("../../testdata/codex", c.file))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Host{}.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got := ev
		model := "fake-model"
		if strings.Contains(c.file, "apply_patch") {
			model = "gpt-5.5" // captured with Codex's own model name, for its apply_patch tool
		}
		if got.Model != model {
			t.Errorf("%s: model %q, want the captured run's %s", c.file, got.Model, model)
		}
		got.Name, got.SessionID, got.Cwd, got.TranscriptPath, got.Key, got.Model = "", "", "", "", "", ""
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v\nwant %+v", c.file, got, c.want)
		}
	}
}

func TestDecodeNullLastMessage(t *testing.T) {
	ev, err := Host{}.Decode(strings.NewReader(`{"hook_event_name":"Stop","session_id":"s","transcript_path":null,"last_assistant_message":null,"stop_hook_active":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != hook.Stop || ev.LastMessage != "" || ev.TranscriptPath != "" {
		t.Errorf("got %+v", ev)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, src := range []string{"", "null", "[]", `{`, `{"hook_event_name":1}`, `{"session_id":"s"}`,
		`{"hook_event_name":"Stop","stop_hook_active":"yes"}`, `{"hook_event_name":"Stop","last_assistant_message":3}`, `{"hook_event_name":"Stop"}x`} {
		if _, err := (Host{}).Decode(strings.NewReader(src)); !errors.Is(err, hook.ErrInput) {
			t.Errorf("Decode(%q) = %v, want ErrInput", src, err)
		}
	}
}

func TestUnsigil(t *testing.T) {
	for in, want := range map[string]string{
		`$ralph-loop "x" --max-iterations 3`: `/ralph-loop "x" --max-iterations 3`,
		"  $ulw-loop x":                      "/ulw-loop x",
		"$cancel-ralph":                      "/cancel-ralph",
		"$cancel-ralph\n":                    "/cancel-ralph\n",
		"$ralph-loopy x":                     "$ralph-loopy x",
		"use $ralph-loop x":                  "use $ralph-loop x",
		"/ralph-loop x":                      "/ralph-loop x",
		"$ralph":                             "$ralph",
	} {
		if got := Unsigil(in); got != want {
			t.Errorf("Unsigil(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToolKindPatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: dir/b.go\n*** Move to: dir/c.go\n@@\n-a\n+b\n*** Delete File: d\n*** End Patch"
	kind, cmd, p := toolKind("apply_patch", patch)
	if kind != hook.PatchTool || cmd != "" || p != patch {
		t.Errorf("apply_patch: %v %q %q", kind, cmd, p)
	}
}

// TestEncodeWire checks every reply the engine can give against Codex's output schema.
func TestEncodeWire(t *testing.T) {
	replies := []hook.Reply{
		{Block: true, Reason: "go on", Notice: "n"},
		{Context: "ctx", Notice: "armed"},
		{Deny: true, DenyReason: "no"},
		{Notice: "warn", Failed: true},
		{Block: true, Reason: "refused"},
	}
	for _, kind := range []hook.Kind{hook.Stop, hook.Prompt, hook.ToolCheck, hook.ToolUsed, hook.SessionStart} {
		for _, rep := range replies {
			var buf bytes.Buffer
			code, err := Host{}.Encode(&buf, io.Discard, hook.Event{Kind: kind, Name: "X"}, rep)
			if err != nil || code != 0 {
				t.Fatalf("%d %+v: %d %v", kind, rep, code, err)
			}
			if buf.Len() == 0 {
				continue
			}
			if err := checkWire(kind, buf.Bytes()); err != nil {
				t.Errorf("%d %+v: %v", kind, rep, err)
			}
		}
	}
	var buf bytes.Buffer
	if _, err := (Host{}).Encode(&buf, io.Discard, hook.Event{Kind: hook.Stop, Name: "Stop"}, hook.Reply{}); err != nil || buf.Len() != 0 {
		t.Errorf("an empty reply wrote %q", buf.String())
	}
	buf.Reset()
	if _, err := (Host{}).Encode(&buf, io.Discard, hook.Event{Kind: hook.Stop, Name: "Stop"}, hook.Reply{Block: true, Reason: "<promise>A&B</promise>"}); err != nil ||
		!strings.Contains(buf.String(), "<promise>A&B</promise>") {
		t.Errorf("the reason is escaped by ralph-loop (Codex escapes it itself): %q", buf.String())
	}
}

func TestProjectDir(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ProjectDir(sub); got != sub {
		t.Errorf("without a repository: %q, want the session's directory", got)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ProjectDir(sub); got != root {
		t.Errorf("in a repository: %q, want its root %q", got, root)
	}
}
