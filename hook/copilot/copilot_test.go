package copilot

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// session is one Copilot CLI session of a test: its events, through the engine, and its
// events.jsonl, written as Copilot CLI writes it (late, when a test says so).
type session struct {
	*hosttest.Engine
	id    string
	path  string
	stamp int64
}

func newSession(t *testing.T) *session {
	e := hosttest.NewEngine(t, Host{})
	return &session{Engine: e, id: "b79b4ddd-e9b5-4160-abbb-8bca72d1f305",
		path: filepath.Join(e.Dir, "session-state", "events.jsonl"), stamp: 1795353315580}
}

// handle runs one event and returns stdout, stderr and the exit code.
func (s *session) handle(fields map[string]any) (string, string, int) {
	s.T.Helper()
	fields["sessionId"], fields["cwd"] = s.id, s.Dir
	in, _ := json.Marshal(fields)
	out, errs, code := s.Handle(in)
	return string(out), string(errs), code
}

func (s *session) prompt(text string) (string, string, int) {
	return s.handle(map[string]any{"prompt": text, "timestamp": 1})
}

// stop is the next agentStop; the transcript holds its hook.start only if wrote says so.
func (s *session) stop() (string, string, int) {
	s.stamp += 1000
	return s.handle(map[string]any{"transcriptPath": s.path, "stopReason": "end_turn", "stop_hook_active": false, "timestamp": s.stamp})
}

// write appends lines to events.jsonl.
func (s *session) write(lines ...map[string]any) {
	s.T.Helper()
	var out []any
	for _, l := range lines {
		l["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		out = append(out, l)
	}
	hosttest.AppendJSONL(s.T, s.path, out...)
}

func said(text string) map[string]any {
	return map[string]any{"type": "assistant.message", "data": map[string]any{"content": text}}
}

func ran(id string, success bool, errMsg string) map[string]any {
	d := map[string]any{"toolCallId": id, "success": success}
	if errMsg != "" {
		d["error"] = map[string]any{"message": errMsg}
	}
	return map[string]any{"type": "tool.execution_complete", "data": d}
}

// stopStarted is the stop hook's own hook.start line, for the stop with this timestamp.
func stopStarted(stamp int64) map[string]any {
	return map[string]any{"type": "hook.start", "data": map[string]any{"hookType": "agentStop", "input": map[string]any{"timestamp": stamp}}}
}

func (s *session) loop() *state.Loop { return s.Loop(s.id) }

// The transcript lags: at a stop it does not show the turn's text yet. The stop is blocked,
// and the agent told that only part of its output could be read. The turn's lines arrive
// late: a marker in them is the agent's own, never judged, and counts at the next stop;
// text without one is not taken for the next iteration's.
func TestLateTurnsPromise(t *testing.T) {
	for _, late := range []string{"<promise>DONE</promise>", "Thinking."} {
		s := newSession(t)
		if out, _, code := s.prompt(`/ralph-loop "Fix it" --max-iterations 5 --min-tool-calls 0`); code != 2 || !strings.Contains(out, "additionalContext") {
			t.Fatalf("arming: exit %d, %q", code, out)
		}
		// Iteration 1 ends; its text and its hook.start have not reached the file.
		s.write(said("Working on it."))
		if out, _, _ := s.stop(); !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "the part of your output ralph-loop could read") {
			t.Fatalf("first stop: %q; want blocked, saying that part of the output was read", out)
		}
		// Its lines arrive late; iteration 2's own text has not arrived when its stop starts.
		s.write(said(late), stopStarted(s.stamp))
		out, _, _ := s.stop()
		if late == "Thinking." {
			if !strings.Contains(out, `"decision":"block"`) {
				t.Fatalf("late text without a marker: %q; want blocked", out)
			}
			s.write(said("Still going."), stopStarted(s.stamp))
			s.write(said("Done now. <promise>DONE</promise>"), stopStarted(s.stamp+1000))
			out, _, _ = s.stop()
		}
		if strings.Contains(out, "block") {
			t.Fatalf("%q: the promise was blocked: %q", late, out)
		}
		want := 2
		if late == "Thinking." {
			want = 3
		}
		if l := s.loop(); l.Status != state.PromiseAccepted || l.Iteration != want {
			t.Fatalf("%q: loop %s at %d, want accepted at %d", late, l.Status, l.Iteration, want)
		}
	}
}

// A call the preToolUse hook denied is in the transcript (tool.execution_start, then a
// failed tool.execution_complete) but did not run: it is no work. A call that ran and
// failed is work, counted once however many scans see it.
func TestToolCallsFromTheTranscript(t *testing.T) {
	s := newSession(t)
	s.prompt(`/ralph-loop "Fix it" --max-iterations 5`)
	s.write(said("ending it"), ran("call_1", false, "Denied by preToolUse hook: ralph-loop: no"), said("<promise>DONE</promise>"), stopStarted(s.stamp+1000))
	if out, _, _ := s.stop(); !strings.Contains(out, "only 0 tool calls") {
		t.Fatalf("a denied call counted as work: %q", out)
	}
	s.write(said("working"), ran("call_2", false, "exit code 3"), said("<promise>DONE</promise>"), stopStarted(s.stamp+1000))
	if out, _, _ := s.stop(); strings.Contains(out, "block") {
		t.Fatalf("blocked after work: %q", out)
	}
	if l := s.loop(); l.Status != state.PromiseAccepted || l.ToolCalls != 1 {
		t.Fatalf("loop %s with %d tool calls; want accepted with 1", l.Status, l.ToolCalls)
	}
}

// A blocked stop's reason comes back as userPromptSubmitted: it is not the user's prompt,
// and Copilot CLI's count of blocks goes on through it. The 9th stop of a 12-iteration
// loop ends it CUT_BY_HOST, telling the user on stderr (exit 2), never blocking a 9th time.
func TestCapCountsThroughContinuations(t *testing.T) {
	s := newSession(t)
	_, notice, _ := s.prompt(`/ralph-loop "Count" --max-iterations 12 --min-tool-calls 0 --max-stalls 0`)
	if !strings.Contains(notice, "at most 9 iterations") {
		t.Errorf("the arming notice does not state the effective limit: %q", notice)
	}
	for i := 1; i <= 8; i++ {
		s.write(said("step"), stopStarted(s.stamp+1000))
		out, _, _ := s.stop()
		var r struct{ Decision, Reason string }
		if json.Unmarshal([]byte(out), &r); r.Decision != "block" {
			t.Fatalf("stop %d not blocked: %q", i, out)
		}
		if out, _, code := s.prompt(r.Reason); out != "" || code != 0 {
			t.Fatalf("the continuation as a prompt answered %q (exit %d)", out, code)
		}
	}
	s.write(said("step"), stopStarted(s.stamp+1000))
	out, notice, code := s.stop()
	if out != "" || code != 2 || !strings.Contains(notice, "loop ended at iteration 9/12") {
		t.Fatalf("9th stop: stdout %q, exit %d, stderr %q", out, code, notice)
	}
	if l := s.loop(); l.Status != state.CutByHost || !strings.Contains(l.EndReason, "8 stop blocks in a row") {
		t.Fatalf("loop %s (%s)", l.Status, l.EndReason)
	}
}

// Each captured payload decodes to its event, told by its fields alone.
func TestDecodeCaptures(t *testing.T) {
	for name, want := range map[string]hook.Kind{
		"sessionStart.json": hook.SessionStart, "userPromptSubmitted.json": hook.Prompt,
		"userPromptSubmitted.continuation.json": hook.Prompt, // the harness's reason, not ralph-loop's
		"preToolUse.json":                       hook.ToolCheck, "postToolUse.json": hook.Ignored, "agentStop.first.json": hook.Stop,
		"agentStop.after-block.json": hook.Stop, "sessionEnd.json": hook.SessionEnd,
	} {
		ev, err := decodeCaptured(t, name)
		if err != nil || ev.Kind != want {
			t.Errorf("%s: kind %v, %v; want %v", name, ev.Kind, err, want)
		}
		switch want {
		case hook.Stop:
			if ev.TurnMark == "" || ev.TranscriptPath == "" || ev.LastMessage != "" {
				t.Errorf("%s: %+v", name, ev)
			}
		case hook.ToolCheck:
			if ev.ToolKind != hook.ShellTool || !strings.HasPrefix(ev.Command, "echo hi-from-tool") {
				t.Errorf("%s: %+v", name, ev)
			}
		}
	}
	for _, prompt := range []string{"ralph-loop: iteration 2/5. Your stop was blocked",
		inject.ULW + "\n\nralph-loop: iteration 2/5. Your stop was blocked"} { // /ulw-loop's
		in, _ := json.Marshal(map[string]string{"sessionId": "s", "prompt": prompt})
		ev, err := Host{}.Decode(bytes.NewReader(in))
		if err != nil || ev.Kind != hook.Continuation {
			t.Errorf("a continuation coming back as a prompt (%.30q): %v, %v; want Continuation", prompt, ev.Kind, err)
		}
	}
}

// skillPrompt is what Copilot CLI 1.0.102's TUI hands userPromptSubmitted for a skill the
// user invoked by name (seen): the skill's directory, body and the text typed after it.
func skillPrompt(name, args string) string {
	p := "The user explicitly invoked the \"/" + name + "\" skill. Follow its instructions now.\n\n<skill-context name=\"" + name +
		"\">\nBase directory for this skill: /home/u/.copilot/skills/" + name + "\n\nThe ralph-loop hook reads this command.\n\n"
	if args != "" {
		p += "\nARGUMENTS: " + args + "\n"
	}
	return p + "</skill-context>"
}

// A loop command typed in the TUI reaches the hook as the skill's invocation: it is read back
// into the command as typed, arguments and newlines included; anything else is left alone.
func TestSkillCommand(t *testing.T) {
	for _, c := range []struct{ prompt, want string }{
		{skillPrompt("ralph-loop", `"Fix it" --max-iterations 3`), `/ralph-loop "Fix it" --max-iterations 3`},
		{skillPrompt("ralph-loop", "--resume"), "/ralph-loop --resume"},
		{skillPrompt("ulw-loop", "\"a\nARGUMENTS: b\""), "/ulw-loop \"a\nARGUMENTS: b\""},
		{skillPrompt("cancel-ralph", ""), "/cancel-ralph"},
		{skillPrompt("other-skill", "x"), ""},
		{strings.TrimSuffix(skillPrompt("ralph-loop", "x"), "</skill-context>"), ""},
		{"The user explicitly invoked the \"/ralph-loop\" skill.", ""},
		{`/ralph-loop "Fix it"`, ""},
	} {
		got, ok := skillCommand(c.prompt)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("skillCommand(%q) = %q, %v; want %q", c.prompt, got, ok, c.want)
		}
	}
	s := newSession(t)
	s.prompt(skillPrompt("ralph-loop", `"Fix it" --max-iterations 3`))
	if l := s.loop(); l.Task != "Fix it" || l.MaxIterations != 3 {
		t.Fatalf("armed with %q, %d", l.Task, l.MaxIterations)
	}
	if out, _, _ := s.prompt(skillPrompt("cancel-ralph", "")); !strings.Contains(out, "ralph loop cancelled") {
		t.Fatalf("the cancel skill did not cancel: %q", out)
	}
}

// /cancel-ralph typed while the agent works goes to the agent within the turn ("steering"):
// the stop is let through and the loop pauses for the user to type it again. A stop with no
// prompt of the user's in between (Copilot CLI's notification that a background command
// ended) leaves it paused; the cancel then typed ends it; any other prompt resumes it.
func TestSteeredCancel(t *testing.T) {
	steered := func(text string) map[string]any {
		return map[string]any{"type": "user.message", "data": map[string]any{"content": text, "delivery": "steering"}}
	}
	for _, next := range []string{"cancel", "other"} {
		s := newSession(t)
		s.prompt(`/ralph-loop "Fix it" --max-iterations 5 --min-tool-calls 0`)
		s.write(said("working"), stopStarted(s.stamp+1000))
		if out, _, _ := s.stop(); !strings.Contains(out, "block") {
			t.Fatalf("first stop not blocked: %q", out)
		}
		s.write(steered("What now?"), said("working"), steered("/cancel-ralph"), stopStarted(s.stamp+1000))
		out, notice, code := s.stop()
		if strings.Contains(out, "block") || code != 2 || !strings.Contains(notice, "type /cancel-ralph now to end the loop") {
			t.Fatalf("the stop after a steered cancel: %q, %q, %d", out, notice, code)
		}
		s.prompt("<system_notification>\nShell command \"p\" (shellId: 1) has completed successfully.\n</system_notification>")
		s.write(said("done with the shell"), stopStarted(s.stamp+1000))
		if out, _, _ := s.stop(); strings.Contains(out, "block") {
			t.Fatalf("a stop while paused was blocked: %q", out)
		}
		if l := s.loop(); l.Status != state.Active || !l.AwaitCancel {
			t.Fatalf("loop %s, awaiting the cancel %v; want paused", l.Status, l.AwaitCancel)
		}
		if next == "cancel" {
			s.prompt(skillPrompt("cancel-ralph", ""))
			if l := s.loop(); l.Status != state.Cancelled {
				t.Fatalf("loop %s after the cancel", l.Status)
			}
			continue
		}
		if _, notice, _ := s.prompt("Go on please"); !strings.Contains(notice, "the loop goes on") {
			t.Fatalf("resumed without a word: %q", notice)
		}
		s.write(said("working"), stopStarted(s.stamp+1000))
		if out, _, _ := s.stop(); !strings.Contains(out, "block") {
			t.Fatalf("the loop did not go on: %q", out)
		}
	}
}

// A blocked stop's reason comes back as the next prompt; Copilot CLI can queue one and send
// it after a later stop ended the loop. A continuation of the loop's current iteration goes
// through; one whose loop has ended, or gone past it, is refused, so that the agent is never
// told to go on after its loop is over.
func TestStaleContinuationRefused(t *testing.T) {
	s := newSession(t)
	s.prompt(`/ralph-loop "Fix it" --max-iterations 5 --min-tool-calls 0`)
	s.write(said("working"), stopStarted(s.stamp+1000))
	out, _, _ := s.stop()
	var blocked struct{ Decision, Reason string }
	if json.Unmarshal([]byte(out), &blocked) != nil || blocked.Decision != "block" {
		t.Fatalf("first stop: %q", out)
	}
	if out, _, code := s.prompt(blocked.Reason); out != "" || code != 0 {
		t.Fatalf("the current continuation was refused: %q, %d", out, code)
	}
	s.write(said("working"), stopStarted(s.stamp+1000))
	s.stop() // iteration 3
	if out, _, _ := s.prompt(blocked.Reason); !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "the loop is at iteration 3/5") {
		t.Fatalf("a continuation the loop went past: %q", out)
	}
	s.prompt("/cancel-ralph")
	out, _, _ = s.prompt(blocked.Reason)
	if !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "the loop is over") {
		t.Fatalf("a continuation after the loop ended: %q", out)
	}
}

// TestDecodeToolKinds: what Copilot CLI's tools do (synthetic payloads in the shape of
// preToolUse.json): apply_patch's toolArgs is the patch itself, a string;
// str_replace_editor writes its path unless it views.
func TestDecodeToolKinds(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"
	for _, c := range []struct {
		tool string
		args any
		want hook.Event
	}{
		{"apply_patch", patch, hook.Event{ToolKind: hook.PatchTool, Patch: patch}},
		{"apply_patch", map[string]any{"input": patch}, hook.Event{ToolKind: hook.PatchTool, Patch: patch}},
		{"apply_patch", `{"input":` + hosttest.JSON(patch) + `}`, hook.Event{ToolKind: hook.PatchTool, Patch: patch}},
		{"str_replace_editor", map[string]any{"command": "create", "path": "/w/x", "file_text": "x"}, hook.Event{ToolKind: hook.WriteTool, FilePath: "/w/x"}},
		{"str_replace_editor", map[string]any{"command": "str_replace", "path": "/w/x"}, hook.Event{ToolKind: hook.WriteTool, FilePath: "/w/x"}},
		{"str_replace_editor", map[string]any{"command": "view", "path": "/w/x"}, hook.Event{}},
		{"bash", map[string]any{"command": "ls"}, hook.Event{ToolKind: hook.ShellTool, Command: "ls"}},
	} {
		in, _ := json.Marshal(map[string]any{"sessionId": "s1", "timestamp": 1, "cwd": "/w", "toolName": c.tool, "toolArgs": c.args})
		ev, err := Host{}.Decode(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != hook.ToolCheck || ev.ToolKind != c.want.ToolKind || ev.Patch != c.want.Patch || ev.Command != c.want.Command ||
			ev.FilePath != c.want.FilePath {
			t.Errorf("%s %v: got %+v", c.tool, c.args, ev)
		}
	}
}

// decodeCaptured decodes the payload captured from Copilot CLI in file.
func decodeCaptured(t *testing.T, file string) (hook.Event, error) {
	t.Helper()
	return Host{}.Decode(bytes.NewReader(hosttest.Load(t, filepath.Join("../../testdata/copilot", file))))
}

// TestDecodeCapturedTools: the real payloads of Copilot CLI 1.0.102's apply_patch (toolArgs a
// string) and str_replace_editor.
func TestDecodeCapturedTools(t *testing.T) {
	for file, want := range map[string]hook.Event{
		"preToolUse.apply_patch.json":        {ToolKind: hook.PatchTool, Patch: "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** End Patch\n"},
		"preToolUse.str_replace_editor.json": {ToolKind: hook.WriteTool, FilePath: "/WORK/ws/y.txt"},
	} {
		ev, err := decodeCaptured(t, file)
		if err != nil || ev.Kind != hook.ToolCheck || ev.ToolKind != want.ToolKind || ev.Patch != want.Patch || ev.FilePath != want.FilePath {
			t.Errorf("%s: %+v, %v", file, ev, err)
		}
	}
}
