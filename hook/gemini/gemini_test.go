package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// commandPrompt is the prompt of the command file install writes for cmd, as Gemini CLI
// reads it from the TOML file.
func commandPrompt(t *testing.T, cmd string) string {
	t.Helper()
	for _, c := range inject.TOMLCommands() {
		if c.Name == strings.TrimPrefix(cmd, "/")+".toml" {
			_, p, _ := strings.Cut(c.Content, "prompt = ")
			var s string
			if err := json.Unmarshal([]byte(strings.TrimSpace(p)), &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no command file for %s", cmd)
	return ""
}

func TestTyped(t *testing.T) {
	loop, cancel := commandPrompt(t, "/ralph-loop"), commandPrompt(t, "/cancel-ralph")
	for _, tc := range []struct{ prompt, want string }{
		{loop + "\n\n/ralph-loop \"Fix the parser\" --max-iterations 3", "/ralph-loop \"Fix the parser\" --max-iterations 3"},
		{loop + "\n\n/ralph-loop Fix it\n\nthen /ralph-loop again", "/ralph-loop Fix it\n\nthen /ralph-loop again"},
		{loop, "/ralph-loop"},
		{loop + "\n\n/ralph-loopy x", "/ralph-loop"},
		{commandPrompt(t, "/ulw-loop") + "\n\n/ulw-loop Do it", "/ulw-loop Do it"},
		{cancel, "/cancel-ralph"},
		{"/ralph-loop typed raw in -p mode", "/ralph-loop typed raw in -p mode"},
		{"do the task", "do the task"},
	} {
		if got := inject.TypedTOML(tc.prompt); got != tc.want {
			t.Errorf("Typed(%q) = %q, want %q", tc.prompt, got, tc.want)
		}
	}
	if strings.Contains(loop, "\n\n/") || strings.Contains(cancel, "\n\n/") {
		t.Errorf("a command's prompt holds a blank line before a slash, where the typed line would be looked for")
	}
}

func TestDecode(t *testing.T) {
	load := func(name string) []byte { return hosttest.Load(t, filepath.Join("../../testdata/gemini", name)) }
	for _, tc := range []struct {
		name string
		in   []byte
		kind hook.Kind
	}{
		{"BeforeAgent", load("BeforeAgent.json"), hook.Prompt},
		{"BeforeAgent for a continuation", hosttest.Patch(load("BeforeAgent.after-block.json"), map[string]any{"prompt": "ralph-loop: iteration 2/5. Your stop was blocked"}), hook.Continuation},
		{"BeforeAgent for an ultrawork continuation", hosttest.Patch(load("BeforeAgent.after-block.json"), map[string]any{"prompt": inject.ULW + "\n\nralph-loop: iteration 2/5. Your stop"}), hook.Continuation},
		{"AfterAgent", load("AfterAgent.after-block.json"), hook.Stop},
		{"AfterTool", load("AfterTool.run_shell_command.json"), hook.ToolUsed},
		{"BeforeTool", load("BeforeTool.run_shell_command.json"), hook.ToolCheck},
		{"SessionStart", load("SessionStart.json"), hook.SessionStart},
		{"SessionEnd", load("SessionEnd.json"), hook.SessionEnd},
		{"unknown event", []byte(`{"hook_event_name":"BeforeModel","session_id":"s"}`), hook.Ignored},
	} {
		ev, err := Host{}.Decode(bytes.NewReader(tc.in))
		if err != nil || ev.Kind != tc.kind {
			t.Errorf("%s: kind %v, error %v; want %v", tc.name, ev.Kind, err, tc.kind)
		}
	}
	for name, want := range map[string]string{"BeforeAgent.command-file.json": `/ralph-loop "Fix the parser" --max-iterations 3`,
		"BeforeAgent.command-file-cancel.json": "/cancel-ralph", "BeforeAgent.slash.json": "/ralph-loop fix the bug --max-iterations 3 --completion-promise DONE"} {
		if ev, err := (Host{}).Decode(bytes.NewReader(load(name))); err != nil || ev.Prompt != want {
			t.Errorf("%s: prompt %q (%v), want %q", name, ev.Prompt, err, want)
		}
	}
	ev, _ := Host{}.Decode(bytes.NewReader(load("AfterAgent.after-block.json")))
	if ev.HasText || ev.LastMessage != "" {
		t.Errorf("AfterAgent carried prompt_response into the event: %+v", ev)
	}
	a, _ := Host{}.Decode(bytes.NewReader(load("AfterTool.run_shell_command.json")))
	b, _ := Host{}.Decode(bytes.NewReader(hosttest.Patch(load("AfterTool.run_shell_command.json"), map[string]any{"timestamp": "2026-11-21T22:44:03.660Z"})))
	if a.ToolUseID == "" || a.ToolUseID == b.ToolUseID {
		t.Errorf("AfterTool ids %q and %q: want one per event", a.ToolUseID, b.ToolUseID)
	}
	w, _ := Host{}.Decode(bytes.NewReader(hosttest.Patch(load("BeforeTool.run_shell_command.json"), map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": "/x/y", "content": "z"}})))
	if w.ToolKind != hook.WriteTool || w.FilePath != "/x/y" {
		t.Errorf("write_file: %+v", w)
	}
}

func TestScanCaptured(t *testing.T) {
	res, err := Transcript.Scan("../../testdata/gemini/chat.block-once.jsonl", 0, transcript.Options{Token: "DONE"})
	if err != nil {
		t.Fatal(err)
	}
	// Four gemini lines: the tool-call record, the same record again with its tool call,
	// and two answers.
	if res.Replies != 4 || res.Found || res.Bad != 0 {
		t.Errorf("block-once: %+v", res)
	}
	// The loop-detected chat ends with the hook's continuation, the loop detector's user
	// message and $set lines holding the whole history: no reply after the last answer.
	path := "../../testdata/gemini/chat.loop-detected.jsonl"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndex(b, []byte(`"type":"gemini"`))
	off := int64(last + bytes.IndexByte(b[last:], '\n') + 1)
	res, err = Transcript.Scan(path, off, transcript.Options{Token: "Still working."})
	if err != nil || res.Replies != 0 || res.Offset != int64(len(b)) {
		t.Errorf("after the loop was detected: %+v %v; want no reply, read to the end (%d)", res, err, len(b))
	}
}

func TestScanSkipsHistoryRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	// Synthetic: a history rewrite holding an earlier answer with the marker.
	old := geminiRecord("done <promise>DONE</promise>", "", time.Now())
	if err := os.WriteFile(path, []byte(`{"$set":{"messages":[`+hosttest.JSON(old)+`]}}`+"\n"+`{"$rewindTo":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Transcript.Scan(path, 0, transcript.Options{Token: "DONE"})
	if err != nil || res.Found || res.Replies != 0 {
		t.Errorf("history rewrite counted: %+v %v", res, err)
	}
	appendRecords(t, path, map[string]any{"id": "u1", "type": "user", "content": []any{map[string]any{"text": "<promise>DONE</promise>"}}},
		map[string]any{"content": []any{map[string]any{"text": "ok <promise>DONE</promise>"}}, "type": "gemini", "id": "g1"})
	res, err = Transcript.Scan(path, 0, transcript.Options{Token: "DONE"})
	if err != nil || !res.Found || res.Replies != 1 {
		t.Errorf("a gemini record with its content before its type, after a user record with the marker: %+v %v; want found in one reply", res, err)
	}
}

// session drives the engine for one Gemini CLI session.
type session struct {
	*hosttest.Engine
	s hosttest.Session
	f fixture
}

func newSession(t *testing.T) *session {
	e := hosttest.NewEngine(t, Host{})
	return &session{Engine: e, s: hosttest.Session{ID: "g1", Cwd: e.Dir, Transcript: filepath.Join(e.Dir, "chats", "session-x.jsonl")}, f: newFixture(t)}
}

func (s *session) handle(in []byte) hosttest.Reply {
	s.T.Helper()
	out, errs, code := s.Handle(in)
	r, err := s.f.Reply(0, out, code)
	if err != nil {
		s.T.Fatalf("reply %q (exit %d, stderr %s): %v", out, code, errs, err)
	}
	return r
}

func (s *session) loop() *state.Loop { return s.Loop(s.s.ID) }

// turn ends a turn whose last message is text: Gemini CLI writes it to the chat, then runs
// AfterAgent.
func (s *session) turn(text string) hosttest.Reply {
	s.f.Said(s.s, text, "")
	return s.handle(s.f.Stop(s.s, text))
}

func TestNoModelReplyEndsTheLoop(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Fix it" --max-iterations 50`))
	if r := s.turn("Still working."); !r.Block {
		t.Fatalf("first stop not blocked: %+v", r)
	}
	// The loop detector aborts the next turn: the continuation and its message are written,
	// the history is rewritten, and AfterAgent fires with no model call.
	appendRecords(t, s.s.Transcript, map[string]any{"id": "u2", "type": "user", "content": []any{map[string]any{"text": "System: Potential loop detected."}}})
	r := s.handle(s.f.Stop(s.s, "Still working.\nStill working."))
	if r.Block || !strings.Contains(r.Notice, "without a reply from the model") {
		t.Fatalf("a stop with no model reply: %+v; want the loop ended, saying why", r)
	}
	if l := s.loop(); l.Status != state.NoProgress || l.Iteration != 2 {
		t.Errorf("loop %s at %d, want %s at 2", l.Status, l.Iteration, state.NoProgress)
	}
	if r := s.handle(s.f.Stop(s.s, "")); r.Block {
		t.Errorf("a later stop was blocked: %+v", r)
	}
}

func TestEarlierPromiseNotAcceptedLater(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Write x.txt" --max-iterations 5`))
	if r := s.turn("Done. <promise>DONE</promise>"); !r.Block || !strings.Contains(r.Reason, "only 0 tool calls") {
		t.Fatalf("a promise without work: %+v", r)
	}
	// The continuation comes back through BeforeAgent: not a prompt of the user's.
	cont := s.handle(s.f.Prompt(s.s, "ralph-loop: iteration 2/5. Your stop was blocked: ..."))
	if cont != (hosttest.Reply{}) {
		t.Errorf("the continuation's BeforeAgent answered %+v", cont)
	}
	s.handle(s.f.ToolUsed(s.s, "call_1"))
	s.f.Said(s.s, "I wrote x.txt; checking it next.", "call_1")
	// prompt_response still holds the first iteration's promise; it must not count.
	r := s.handle(s.f.Stop(s.s, "Done. <promise>DONE</promise>\nI wrote x.txt; checking it next."))
	if !r.Block {
		t.Fatalf("the earlier iteration's promise ended the loop: %+v", r)
	}
	if l := s.loop(); l.Status != state.Active || l.Iteration != 3 || l.ToolCalls != 1 {
		t.Errorf("loop %s at %d with %d tool calls, want ACTIVE at 3 with 1", l.Status, l.Iteration, l.ToolCalls)
	}
	for _, e := range mustEvents(t, s) {
		if e.Action == state.ActTurnEnded {
			t.Errorf("the continuation was logged as a new turn: %+v", e)
		}
	}
}

func mustEvents(t *testing.T, s *session) []state.Event {
	t.Helper()
	ev, err := s.Store.Events(s.s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestArmFromCommandFile(t *testing.T) {
	s := newSession(t)
	r := s.handle(s.f.Prompt(s.s, commandPrompt(t, "/ralph-loop")+"\n\n/ralph-loop \"Fix the parser\" --max-iterations 4"))
	if r.Block || !strings.Contains(r.Context, "Fix the parser") || !strings.Contains(r.Context, "escaped as HTML entities") {
		t.Fatalf("arming from the command file: %+v", r)
	}
	if l := s.loop(); l.MaxIterations != 4 || l.Task != "Fix the parser" {
		t.Errorf("loop %+v", l)
	}
	r = s.handle(s.f.Prompt(s.s, commandPrompt(t, "/cancel-ralph")))
	if !r.Block || !strings.Contains(r.Reason, "cancelled at iteration 1/4") {
		t.Errorf("/cancel-ralph from its command file: %+v", r)
	}
	if l := s.loop(); l.Status != state.Cancelled {
		t.Errorf("loop %s after /cancel-ralph", l.Status)
	}
}

func TestSettingsTimeout(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": filepath.Join(dir, "home")}[k] }
	if err := os.MkdirAll(filepath.Join(dir, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := stopTimeout(getenv, dir); got != DefaultTimeout {
		t.Errorf("no settings: %v", got)
	}
	settings := `{"hooks":{"AfterAgent":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/bin/ralph-loop hook --host gemini","timeout":900000}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := stopTimeout(getenv, dir); got != 900*time.Second {
		t.Errorf("timeout %v, want 15m (900000 ms)", got)
	}
}

// The first block's note on Gemini CLI's "This request failed" line follows the settings:
// there by default, gone when the user's or the project's settings make ui.errorVerbosity
// "full" (Gemini CLI then shows no such line), back when the project sets "low" over the
// user's "full"; a malformed settings file changes nothing.
func TestFailureNoteFollowsErrorVerbosity(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	for _, d := range []string{filepath.Join(home, ".gemini"), filepath.Join(project, ".gemini")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	label := func() string { return (Host{}).Facts(getenv, project).Words.BlockLabel }
	if got := label(); got != FailureNote {
		t.Errorf("no settings: label %q, want %q", got, FailureNote)
	}
	user, proj := filepath.Join(home, ".gemini", "settings.json"), filepath.Join(project, ".gemini", "settings.json")
	write(user, "{\n  // the user's choice\n  \"ui\": {\"errorVerbosity\": \"full\"}\n}\n")
	if got := label(); got != "" {
		t.Errorf("user settings full: label %q, want none", got)
	}
	write(proj, `{"ui": {"errorVerbosity": "low"}}`)
	if got := label(); got != FailureNote {
		t.Errorf("project low over user full: label %q, want %q", got, FailureNote)
	}
	write(proj, `{"ui": `)
	if got := label(); got != "" {
		t.Errorf("malformed project settings over user full: label %q, want none", got)
	}
	write(user, `{"ui": {"errorVerbosity": 3}}`)
	if got := label(); got != FailureNote {
		t.Errorf("a number for the setting: label %q, want %q", got, FailureNote)
	}
}

func TestTrusted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	if err := os.WriteFile(path, []byte(`{"/a/b":"TRUST_FOLDER","/c/d/e":"TRUST_PARENT","/a/b/no":"DO_NOT_TRUST"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"/a/b": true, "/a/b/x": true, "/a/b/no/x": false, "/a": false, "/c/d": true, "/c/d/f": true, "/c": false, "/a/bc": false} {
		if got := Trusted(path, dir); got != want {
			t.Errorf("Trusted(%s) = %v, want %v", dir, got, want)
		}
	}
}

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   hook.Event
		rep  hook.Reply
		want string
	}{
		{"nothing", hook.Event{Kind: hook.Stop}, hook.Reply{}, ""},
		{"blocked stop", hook.Event{Kind: hook.Stop, Name: "AfterAgent"}, hook.Reply{Block: true, Reason: "go on <promise>X</promise>", Notice: "n"},
			`{"decision":"block","reason":"go on <promise>X</promise>","systemMessage":"n"}`},
		// Gemini CLI shows a refused prompt's systemMessage instead of its reason.
		{"refused prompt", hook.Event{Kind: hook.Prompt, Name: "BeforeAgent"}, hook.Reply{Block: true, Reason: "cancelled", Notice: "n"},
			`{"decision":"block","reason":"cancelled"}`},
		{"contract", hook.Event{Kind: hook.Prompt, Name: "BeforeAgent"}, hook.Reply{Context: "c", Notice: "armed"},
			`{"systemMessage":"armed","hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"c"}}`},
		{"denied tool", hook.Event{Kind: hook.ToolCheck, Name: "BeforeTool"}, hook.Reply{Deny: true, DenyReason: "no"}, `{"decision":"deny","reason":"no"}`},
		{"failure", hook.Event{Kind: hook.Stop, Name: "AfterAgent"}, hook.Reply{Notice: "ralph-loop: error: x", Failed: true}, `{"systemMessage":"ralph-loop: error: x"}`},
	} {
		var b bytes.Buffer
		code, err := Host{}.Encode(&b, io.Discard, tc.ev, tc.rep)
		if got := strings.TrimSuffix(b.String(), "\n"); err != nil || code != 0 || got != tc.want {
			t.Errorf("%s: %q (exit %d, %v), want %q", tc.name, got, code, err, tc.want)
		}
	}
}

// A continuation that comes back through BeforeAgent after its loop ended (Esc ends it
// NO_PROGRESS while the host still holds the block's reason) is refused: nothing runs on the
// loop's account once it is over.
func TestContinuationAfterTheLoopEndedRefused(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Write x.txt" --max-iterations 5 --min-tool-calls 0`))
	r := s.turn("Working on it.")
	if !r.Block {
		t.Fatalf("first stop: %+v", r)
	}
	if cont := s.handle(s.f.Prompt(s.s, r.Reason)); cont != (hosttest.Reply{}) {
		t.Fatalf("the current continuation was answered %+v", cont)
	}
	s.handle(s.f.Prompt(s.s, "/cancel-ralph"))
	if cont := s.handle(s.f.Prompt(s.s, r.Reason)); !cont.Block || !strings.Contains(cont.Reason, "the loop is over") {
		t.Fatalf("a continuation after the loop ended: %+v", cont)
	}
}

// TestDecodeShellDir: run_shell_command's dir_path is where the command runs (a synthetic
// payload in the shape of BeforeTool.run_shell_command.json).
func TestDecodeShellDir(t *testing.T) {
	in := `{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf ralph-loop","dir_path":"../state"}}`
	ev, err := Host{}.Decode(strings.NewReader(in))
	if err != nil || ev.ToolKind != hook.ShellTool || ev.Command != "rm -rf ralph-loop" || ev.ToolDir != "../state" {
		t.Errorf("got %+v, %v", ev, err)
	}
}

// TestFirstBlockSaysEsc: Gemini CLI refuses a slash command typed while the agent works
// ("Slash commands cannot be queued"), so the first block's notice says that Esc is how a
// loop ends there; later blocks do not repeat it.
func TestFirstBlockSaysEsc(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Fix it" --max-iterations 5`))
	r := s.turn("Still working.")
	if !r.Block || !strings.Contains(r.Notice, "press Esc") || !strings.Contains(r.Notice, "cannot be queued") {
		t.Fatalf("first block: %+v; want its notice to say Esc ends the loop while the agent works", r)
	}
	if r := s.turn("Still working, again."); !r.Block || strings.Contains(r.Notice, "press Esc") {
		t.Errorf("second block: %+v; want no Esc hint", r)
	}
}

// aftertool is an AfterTool event of tool with its tool_response, in the shape of
// AfterTool.run_shell_command.json.
func aftertool(t *testing.T, s hosttest.Session, tool, llmContent, display any) []byte {
	t.Helper()
	f := newFixture(t)
	return hosttest.Patch(f.ToolUsed(s, "call_1"), map[string]any{"tool_name": tool,
		"tool_response": map[string]any{"llmContent": llmContent, "returnDisplay": display}})
}

// TestCancelledByUser: Gemini CLI 0.61.0's answers for a command the user stopped with Esc
// (its shell tool's execute) end the loop; a command's output, whatever it says, does not.
func TestCancelledByUser(t *testing.T) {
	const (
		complete = "Command was cancelled by user before it could complete."
		start    = "Command was cancelled by user before it could start."
		shown    = "Command cancelled by user."
	)
	wrap := func(s string) string { return "<untrusted_context>\n" + s + "\n</untrusted_context>" }
	s := hosttest.Session{ID: "g1", Cwd: "/w", Transcript: "/t.jsonl"}
	for _, tc := range []struct {
		name         string
		tool         string
		llm, display any
		want         bool
	}{
		{"stopped while it ran", ShellTool, wrap(complete + " There was no output before it was cancelled."), shown, true},
		{"stopped after some output", ShellTool, wrap(complete + " Below is the output before it was cancelled:\nhi\n"), shown + "\n\nOutput before cancellation:\nhi\n", true},
		{"stopped before it started", ShellTool, start, shown, true},
		{"stopped, with --debug", ShellTool, wrap(complete + " There was no output before it was cancelled."), complete + " There was no output before it was cancelled.", true},
		// A command's output is its display, and follows "Output: " in llmContent.
		{"a command printing the display", ShellTool, wrap("Output: " + shown + "\nProcess Group PGID: 7"), shown, false},
		{"a command printing the answer", ShellTool, wrap("Output: " + complete + "\nProcess Group PGID: 7"), complete, false},
		{"a command printing the wrapped answer", ShellTool, wrap("Output: <untrusted_context>\n" + complete + "\nProcess Group PGID: 7"), shown, false},
		{"a command that ran", ShellTool, wrap("Output: hi\nProcess Group PGID: 7"), "hi", false},
		{"a command that timed out", ShellTool, wrap("Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled."), "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.", false},
		{"the answer without the display", ShellTool, wrap(complete), "", false},
		{"another tool", "read_file", complete, shown, false},
		{"llmContent as parts", ShellTool, []any{map[string]any{"text": complete}}, shown, false},
		{"no tool_response", ShellTool, nil, nil, false},
	} {
		in, err := DecodeInput(bytes.NewReader(aftertool(t, s, tc.tool, tc.llm, tc.display)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := CancelledByUser(in); got != tc.want {
			t.Errorf("%s: CancelledByUser = %v, want %v", tc.name, got, tc.want)
		}
		ev, err := Host{}.Decode(bytes.NewReader(aftertool(t, s, tc.tool, tc.llm, tc.display)))
		if err != nil || ev.Kind != hook.ToolUsed || ev.Interrupted != tc.want {
			t.Errorf("%s: event %v interrupted %v (%v), want ToolUsed interrupted %v", tc.name, ev.Kind, ev.Interrupted, err, tc.want)
		}
	}
}

// TestEscDuringCommandEndsTheLoop: Esc while a command of the loop runs ends the turn with
// no AfterAgent, only the stopped call's AfterTool: the loop ends there, cancelled by the
// user, who is told, and the stop after the user's next message is not blocked.
func TestEscDuringCommandEndsTheLoop(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Fix it" --max-iterations 5`))
	if r := s.turn("Let me think."); !r.Block {
		t.Fatalf("first stop: %+v", r)
	}
	r := s.handle(aftertool(t, s.s, ShellTool, "<untrusted_context>\nCommand was cancelled by user before it could complete. There was no output before it was cancelled.\n</untrusted_context>", "Command cancelled by user."))
	if r.Block || !strings.Contains(r.Notice, "loop cancelled at iteration 2/5") || !strings.Contains(r.Notice, "you pressed Esc") {
		t.Errorf("the stopped command's AfterTool: %+v; want the loop ended, saying so", r)
	}
	l := s.loop()
	if l.Status != state.Cancelled || l.EndedBy != state.ByUser || l.Iteration != 2 || l.ToolCalls != 0 {
		t.Errorf("loop %s by %q at %d with %d tool calls; want CANCELLED by the user at 2 with none", l.Status, l.EndedBy, l.Iteration, l.ToolCalls)
	}
	s.handle(s.f.Prompt(s.s, "Stop there, please."))
	if r := s.turn("Stopped, as you asked."); r.Block {
		t.Errorf("the stop after the user's message was blocked: %+v", r)
	}
	if again := s.handle(aftertool(t, s.s, ShellTool, "Command was cancelled by user before it could start.", "Command cancelled by user.")); again != (hosttest.Reply{}) {
		t.Errorf("a stopped command with no loop: %+v, want nothing", again)
	}
}

// TestCommandOutputDoesNotEndTheLoop: a command that prints Gemini CLI's words for a stopped
// command is work of the loop, not the user's Esc.
func TestCommandOutputDoesNotEndTheLoop(t *testing.T) {
	s := newSession(t)
	s.handle(s.f.Prompt(s.s, `/ralph-loop "Fix it" --max-iterations 5`))
	r := s.handle(aftertool(t, s.s, ShellTool, "<untrusted_context>\nOutput: Command cancelled by user.\nCommand was cancelled by user before it could complete.\nProcess Group PGID: 7\n</untrusted_context>", "Command cancelled by user.\nCommand was cancelled by user before it could complete."))
	if r != (hosttest.Reply{}) {
		t.Errorf("AfterTool answered %+v", r)
	}
	if l := s.loop(); l.Status != state.Active {
		t.Fatalf("loop %s after the command; want ACTIVE", l.Status)
	}
	if r := s.turn("Done. <promise>DONE</promise>"); r.Block {
		t.Errorf("the promise after the command's work was blocked: %+v", r)
	}
	if l := s.loop(); l.Status != state.PromiseAccepted || l.ToolCalls != 1 {
		t.Errorf("loop %s with %d tool calls; want %s with 1", l.Status, l.ToolCalls, state.PromiseAccepted)
	}
}
