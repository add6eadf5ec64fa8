package droid

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
)

// TestDecodeCaptured decodes every payload captured from Factory Droid 0.215.0.
func TestDecodeCaptured(t *testing.T) {
	cases := []struct {
		file   string
		kind   hook.Kind
		prompt string
		tool   hook.ToolKind
		target string // the command or file the guard judges
	}{
		{"SessionStart.json", hook.SessionStart, "", hook.OtherTool, ""},
		{"UserPromptSubmit.json", hook.Prompt, "Fix the parser", hook.OtherTool, ""},
		{"UserPromptSubmit.ralph-loop-command.json", hook.Prompt, `/ralph-loop "Fix the parser" --max-iterations 3`, hook.OtherTool, ""},
		{"UserPromptSubmit.cancel-ralph-command.json", hook.Prompt, "/cancel-ralph", hook.OtherTool, ""},
		{"PreToolUse.Execute.json", hook.ToolCheck, "", hook.ShellTool, "echo hi > hi.txt"},
		{"PreToolUse.Create.json", hook.ToolCheck, "", hook.WriteTool, "/WORK/project/b.txt"},
		{"PreToolUse.Edit.json", hook.ToolCheck, "", hook.WriteTool, "/WORK/project/b.txt"},
		{"PreToolUse.ApplyPatch.json", hook.ToolCheck, "", hook.PatchTool, "*** Begin Patch\n*** Add File: /WORK/project/y.txt\n+hi\n*** End Patch\n"},
		{"PostToolUse.Execute.json", hook.ToolUsed, "", hook.OtherTool, ""},
		{"PostToolUse.Create.json", hook.ToolUsed, "", hook.WriteTool, ""}, // it completed: progress for the stall breaker
		{"PostToolUse.Edit.json", hook.ToolUsed, "", hook.WriteTool, ""},
		{"Stop.first-call.json", hook.Stop, "", hook.OtherTool, ""},
		{"Stop.after-block.json", hook.Stop, "", hook.OtherTool, ""},
		{"SessionEnd.json", hook.SessionEnd, "", hook.OtherTool, ""},
	}
	ids := map[string]bool{}
	for _, c := range cases {
		ev, err := Host{}.Decode(bytes.NewReader(hosttest.Load(t, filepath.Join("../../testdata/droid", c.file))))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		target := ev.Command + ev.FilePath + ev.Patch
		if ev.Kind != c.kind || ev.Prompt != c.prompt || ev.ToolKind != c.tool || target != c.target {
			t.Errorf("%s: kind %v prompt %q tool %v target %q; want %v %q %v %q", c.file, ev.Kind, ev.Prompt, ev.ToolKind, target, c.kind, c.prompt, c.tool, c.target)
		}
		if ev.SessionID == "" || ev.TranscriptPath == "" || ev.LastMessage != "" {
			t.Errorf("%s: session %q transcript %q last message %q", c.file, ev.SessionID, ev.TranscriptPath, ev.LastMessage)
		}
		if ev.Kind == hook.ToolUsed {
			if ev.ToolUseID == "" || ids[ev.ToolUseID] {
				t.Errorf("%s: tool call id %q empty or not distinct", c.file, ev.ToolUseID)
			}
			ids[ev.ToolUseID] = true
		}
	}
}

// TestTyped reads the typed command back from an expansion, and leaves other text alone.
func TestTyped(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"/ralph-loop x", "/ralph-loop x"},
		{"<system-notification>\nsomething else\n</system-notification>", "<system-notification>\nsomething else\n</system-notification>"},
		{expand("/ulw-loop \"a\n\n/b\" --max-iterations 2"), "/ulw-loop \"a\n\n/b\" --max-iterations 2"},
		{expand("/ralph-loop"), "/ralph-loop"},
		{"<system-notification>\n[ralph-loop command /ralph-loop]\ntext", "<system-notification>\n[ralph-loop command /ralph-loop]\ntext"},
	} {
		if got := inject.TypedEchoed(c.in); got != c.want {
			t.Errorf("Typed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTranscriptCaptured reads the transcript of a captured session (a plain turn with a tool
// call, a block, three more calls, then a loop armed and cancelled): the agent's
// text and tool calls are found, the user's and the hooks' lines are not the agent's.
func TestTranscriptCaptured(t *testing.T) {
	res, err := transcript.ScanWith("../../testdata/droid/transcript.jsonl", 0, transcript.Options{Token: "DONE"}, claudeshape.Scan)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.ToolIDs) != 4 || res.Bad != 0 {
		t.Errorf("found %v, tool ids %q, bad lines %d; want the promise, 4 calls, none bad", res.Found, res.ToolIDs, res.Bad)
	}
	res, err = transcript.ScanWith("../../testdata/droid/transcript.jsonl", 0, transcript.Options{Token: "Fix the parser"}, claudeshape.Scan)
	if err != nil || res.Found {
		t.Errorf("the user's prompt was read as the agent's: %v %v", res.Found, err)
	}
}

// TestBudgetRefused: Factory Droid's transcript records no usage per reply, so a loop with
// a token or cost budget is refused at arming, saying why, and nothing is armed.
func TestBudgetRefused(t *testing.T) {
	for _, flag := range []string{"--max-tokens 5000", "--max-cost 1"} {
		e := hosttest.NewEngine(t, Host{})
		e.Env["HOME"] = e.Dir
		in := hosttest.Patch(hosttest.Load(t, "../../testdata/droid/UserPromptSubmit.json"), map[string]any{
			"prompt": expand(`/ralph-loop "Fix it" ` + flag), "cwd": e.Dir})
		out, errs, code := e.Handle(in)
		if code != 2 || len(out) != 0 || !strings.Contains(string(errs), NoUsage) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", flag, code, out, errs, NoUsage)
		}
		if ids, _ := e.Store.Sessions(); len(ids) != 0 {
			t.Errorf("%s: a loop was armed: %v", flag, ids)
		}
	}
}

// TestGuardApplyPatch: while a loop runs, an ApplyPatch that changes the hooks file is
// denied, whether its input is the patch or the raw arguments Factory Droid passes on for a
// model it offered no ApplyPatch; a patch of a project file is not.
func TestGuardApplyPatch(t *testing.T) {
	e := hosttest.NewEngine(t, Host{})
	dir := e.Dir
	e.Env["HOME"] = dir
	handle := func(in []byte) (string, int) {
		out, _, code := e.Handle(in)
		return string(out), code
	}
	session := map[string]any{"session_id": "9691259d-5c72-465d-b001-78884641fe5e", "cwd": dir}
	arm := hosttest.Patch(hosttest.Load(t, "../../testdata/droid/UserPromptSubmit.json"), session)
	arm = hosttest.Patch(arm, map[string]any{"prompt": expand(`/ralph-loop "Fix it"`)})
	if out, code := handle(arm); code != 0 || !strings.Contains(out, "a loop is now active") {
		t.Fatalf("arming: exit %d, %q", code, out)
	}
	hooks := filepath.Join(dir, ".factory", "hooks.json")
	patch := func(file string) string {
		return "*** Begin Patch\n*** Update File: " + file + "\n@@\n-a\n+b\n*** End Patch\n"
	}
	for _, c := range []struct {
		input string
		deny  bool
	}{
		{patch(hooks), true},
		{`{"input":` + hosttest.JSON(patch(hooks)) + `}`, true},
		{patch(filepath.Join(dir, "main.go")), false},
	} {
		in := hosttest.Patch(hosttest.Load(t, "../../testdata/droid/PreToolUse.ApplyPatch.json"), session)
		in = hosttest.Patch(in, map[string]any{"tool_input.input": c.input})
		out, code := handle(in)
		if denied := strings.Contains(out, `"permissionDecision":"deny"`); code != 0 || denied != c.deny {
			t.Errorf("ApplyPatch %q: exit %d, %q; want denied %v", c.input, code, out, c.deny)
		}
	}
}

// TestSteeredCancel: a /cancel-ralph typed while the agent worked (captured: Factory Droid
// handed it to the agent after a tool result, with no prompt hook) is reported as queued,
// once, by the scan that reads its line, and not by a scan that starts after it.
func TestSteeredCancel(t *testing.T) {
	const path = "../../testdata/droid/transcript.steered-cancel.jsonl"
	res, err := Transcript.Scan(path, 0, transcript.Options{Token: "DONE"})
	if err != nil {
		t.Fatal(err)
	}
	if q := res.Queued(); len(q) != 1 || q[0] != "/cancel-ralph" {
		t.Fatalf("queued %q, want the one cancel", q)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, steeredCancel.Get())
	after := int64(i + bytes.IndexByte(data[i:], '\n') + 1)
	if res, err := Transcript.Scan(path, after, transcript.Options{Token: "DONE"}); err != nil || len(res.Queued()) != 0 {
		t.Errorf("from after the cancel: queued %q, %v; want none", res.Queued(), err)
	}
	// A line longer than a piece, the cancel across two pieces of it: it counts; the line
	// counts once, and only once its newline comes.
	line := append(append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), 1000)...), data[i:after]...)
	for _, at := range []int{8 + 1000 + 5, 8 + 1000 + len(steeredCancel.Get()) - 1} {
		var c steered
		c.Write(line[:at])
		c.Write(line[at : len(line)-1])
		if c.n != 0 {
			t.Errorf("counted before the newline")
		}
		c.Write(line[len(line)-1:])
		c.Write(line)
		if c.n != 2 {
			t.Errorf("a cancel across two pieces of a line (cut at %d): %d counted, want 2", at, c.n)
		}
	}
}
