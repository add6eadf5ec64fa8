package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func load(t *testing.T, name string) []byte {
	t.Helper()
	return hosttest.Load(t, filepath.Join("../../testdata/cursor", name))
}

// Every payload built from the documentation decodes to its event.
func TestDecodeDocumented(t *testing.T) {
	const conv = "cdefee2d-2727-4b73-bf77-d9d830f31d2a"
	for _, tt := range []struct {
		file  string
		check func(hook.Event) bool
	}{
		{"beforeSubmitPrompt.json", func(e hook.Event) bool {
			return e.Kind == hook.Prompt && e.Prompt == `/ralph-loop "Fix the parser" --max-iterations 3` && e.Cwd == "/WORK/project"
		}},
		{"beforeSubmitPrompt.attachments.json", func(e hook.Event) bool { return e.Kind == hook.Prompt && e.Prompt == "Fix the bug in main.ts" }},
		{"afterAgentResponse.json", func(e hook.Event) bool {
			return e.Kind == hook.Said && strings.HasSuffix(e.Text, "<promise>DONE</promise>") && e.TurnMark == "26b45fb6-bdea-439c-b2dc-5e97ee00ecea"
		}},
		{"afterAgentThought.json", func(e hook.Event) bool { return e.Kind == hook.Ignored }},
		{"stop.json", func(e hook.Event) bool {
			return e.Kind == hook.Stop && e.TurnMark == "26b45fb6-bdea-439c-b2dc-5e97ee00ecea" && e.HostBlocks == 0 && e.LastMessage == "" && e.TranscriptPath == ""
		}},
		{"stop.after-followup.json", func(e hook.Event) bool { return e.Kind == hook.Stop && e.HostBlocks == 2 }},
		{"stop.aborted.json", func(e hook.Event) bool { return e.Kind == hook.Ignored }},
		// A turn that failed pauses the loop.
		{"stop.error.json", func(e hook.Event) bool { return e.Kind == hook.Failed && e.SessionID != "" }},
		{"preToolUse.json", func(e hook.Event) bool {
			return e.Kind == hook.ToolCheck && e.ToolKind == hook.ShellTool && e.Command == "npm install" && e.ToolUseID == "abc123" && e.Cwd == "/WORK/project"
		}},
		{"postToolUse.json", func(e hook.Event) bool { return e.Kind == hook.ToolUsed && e.ToolUseID == "abc123" && !e.Rejected }},
		{"postToolUseFailure.json", func(e hook.Event) bool { return e.Kind == hook.ToolUsed && e.ToolUseID == "abc124" && !e.Rejected }},
		{"postToolUseFailure.denied.json", func(e hook.Event) bool { return e.Kind == hook.ToolUsed && e.ToolUseID == "abc125" && e.Rejected }},
		{"subagentStop.json", func(e hook.Event) bool { return e.Kind == hook.Ignored }},
		{"sessionStart.json", func(e hook.Event) bool { return e.Kind == hook.Ignored }},
		{"sessionEnd.json", func(e hook.Event) bool { return e.Kind == hook.SessionEnd && e.Reason == "user_close" }},
		{"sessionEnd.completed.json", func(e hook.Event) bool { return e.Kind == hook.Ignored }},
	} {
		raw := load(t, tt.file)
		for _, in := range [][]byte{raw, append([]byte("\xef\xbb\xbf"), raw...)} { // with Windows' byte-order mark too
			ev, err := Host{}.Decode(bytes.NewReader(in))
			if err != nil || !tt.check(ev) || ev.Kind != hook.Ignored && ev.SessionID != conv {
				t.Errorf("%s: %+v, %v", tt.file, ev, err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		`{"hook_event_name":"stop","status":"completed"}`, // no conversation
		`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c","prompt":5}`,
		`{"hook_event_name":7}`,
		`[]`,
	} {
		if _, err := (Host{}).Decode(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	// An event the engine does not use needs no conversation.
	if ev, err := (Host{}).Decode(strings.NewReader(`{"hook_event_name":"afterFileEdit"}`)); err != nil || ev.Kind != hook.Ignored {
		t.Errorf("afterFileEdit: %+v, %v", ev, err)
	}
	// loop_count that is not a whole number counts as 0.
	for _, lc := range []string{`-1`, `2.5`, `"3"`, `null`} {
		ev, err := Host{}.Decode(strings.NewReader(`{"hook_event_name":"stop","conversation_id":"c","status":"completed","loop_count":` + lc + `}`))
		if err != nil || ev.Kind != hook.Stop || ev.HostBlocks != 0 {
			t.Errorf("loop_count %s: %+v, %v", lc, ev, err)
		}
	}
}

func TestEncode(t *testing.T) {
	for _, tt := range []struct {
		name        string
		kind        hook.Kind
		rep         hook.Reply
		out, stderr string
		code        int
	}{
		{"nothing to say", hook.Stop, hook.Reply{}, "", "", 0},
		{"a blocked stop is a follow-up", hook.Stop, hook.Reply{Block: true, Reason: "go on <promise>DONE</promise>", Notice: "n"},
			`{"followup_message":"go on <promise>DONE</promise>"}` + "\n", "n\n", 0},
		{"a stop let through", hook.Stop, hook.Reply{Notice: "accepted"}, "{}\n", "accepted\n", 0},
		{"a refused prompt", hook.Prompt, hook.Reply{Block: true, Reason: "bad flag"}, `{"continue":false,"user_message":"bad flag"}` + "\n", "", 0},
		{"context cannot be added to a prompt", hook.Prompt, hook.Reply{Context: "contract", Notice: "armed"}, "", "armed\n", 0},
		{"a denied tool call", hook.ToolCheck, hook.Reply{Deny: true, DenyReason: "no"},
			`{"permission":"deny","user_message":"no","agent_message":"no"}` + "\n", "", 0},
		{"a failure lets the action proceed", hook.Stop, hook.Reply{Notice: "ralph-loop: error: x", Failed: true}, "", "ralph-loop: error: x\n", 1},
	} {
		var out, errs bytes.Buffer
		code, err := Host{}.Encode(&out, &errs, hook.Event{Kind: tt.kind}, tt.rep)
		if err != nil || code != tt.code || out.String() != tt.out || errs.String() != tt.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, %v; want %d, %q, %q", tt.name, code, out.String(), errs.String(), err, tt.code, tt.out, tt.stderr)
		}
	}
}

// A command file's text in the prompt, before or after what was typed, is taken out: the
// rest is the command as typed. (Synthetic: what Cursor hands the hook for a command file is
// not documented.)
func TestUnwrap(t *testing.T) {
	file := func(name string) string {
		for _, f := range Files() {
			if f.Name == name {
				return f.Content
			}
		}
		t.Fatalf("no %s", name)
		return ""
	}
	loop, cancel := file("ralph-loop.md"), file("cancel-ralph.md")
	for _, tt := range []struct{ name, prompt, want string }{
		{"typed", `/ralph-loop "Fix it" --max-iterations 3`, `/ralph-loop "Fix it" --max-iterations 3`},
		{"plain prompt", "Fix the bug", "Fix the bug"},
		{"arguments after the file", loop + "\n\"Fix it\" --max-iterations 3", `/ralph-loop "Fix it" --max-iterations 3`},
		{"arguments before the file", "\"Fix it\" --max-iterations 3\n\n" + loop, `/ralph-loop "Fix it" --max-iterations 3`},
		{"the typed line before the file", "/ralph-loop \"Fix it\"\n\n" + loop, `/ralph-loop "Fix it"`},
		{"the typed line after the file", loop + "\n/ralph-loop \"Fix it\"", `/ralph-loop "Fix it"`},
		{"no arguments", loop, "/ralph-loop"},
		{"ultrawork", file("ulw-loop.md") + "\nShip it", "/ulw-loop Ship it"},
		{"cancel", cancel, "/cancel-ralph"},
		{"a tag without its end is not a file", "[ralph-loop command /ralph-loop] x", "[ralph-loop command /ralph-loop] x"},
	} {
		if got := Unwrap(tt.prompt); got != tt.want {
			t.Errorf("%s: Unwrap = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// session is one Cursor conversation of a test, through the engine.
type session struct {
	*hosttest.Engine
	gen int
}

func newSession(t *testing.T) *session {
	s := &session{Engine: hosttest.NewEngine(t, Host{})}
	os.MkdirAll(filepath.Join(s.Dir, "project"), 0o755)
	return s
}

func (s *session) handle(event string, fields map[string]any) (string, string, int) {
	s.T.Helper()
	fields["hook_event_name"], fields["conversation_id"] = event, "conv-1"
	fields["generation_id"], fields["workspace_roots"] = "gen-"+string(rune('a'+s.gen)), []string{filepath.Join(s.Dir, "project")}
	in, _ := json.Marshal(fields)
	out, errs, code := s.Handle(in)
	return string(out), string(errs), code
}

func (s *session) prompt(text string) (string, string) {
	out, notice, _ := s.handle("beforeSubmitPrompt", map[string]any{"prompt": text})
	return out, notice
}

func (s *session) said(text string) { s.handle("afterAgentResponse", map[string]any{"text": text}) }

// stop ends the turn; loopCount is Cursor's count of follow-ups so far. The next turn is a
// new generation.
func (s *session) stop(loopCount int) (string, string) {
	out, notice, code := s.handle("stop", map[string]any{"status": "completed", "loop_count": loopCount})
	if code != 0 {
		s.T.Fatalf("stop: exit %d", code)
	}
	s.gen++
	return out, notice
}

func (s *session) loop() *state.Loop { return s.Loop("conv-1") }

// Without install's loop_limit, Cursor sends at most 5 follow-ups in a row: the loop says so
// when it is armed, and its 6th stop ends it CUT_BY_HOST with the reason, instead of sending
// a follow-up Cursor would drop. A follow-up coming back as a prompt restarts nothing.
func TestDefaultLoopLimit(t *testing.T) {
	s := newSession(t)
	if out, notice := s.prompt(`/ralph-loop "Count" --max-iterations 10 --min-tool-calls 0 --max-stalls 0`); out != "" ||
		!strings.Contains(notice, "Cursor ends a turn after 5 stop blocks in a row (loop_limit)") {
		t.Fatalf("arming: stdout %q, notice %q", out, notice)
	}
	for i := 0; i < 5; i++ {
		s.said("step")
		out, _ := s.stop(i)
		var r struct {
			Followup string `json:"followup_message"`
		}
		if json.Unmarshal([]byte(out), &r); !strings.Contains(r.Followup, "iteration") {
			t.Fatalf("stop %d not continued: %q", i+1, out)
		}
		if out, _ := s.prompt(r.Followup); out != "" {
			t.Fatalf("the follow-up as a prompt answered %q", out)
		}
	}
	s.said("step")
	out, notice := s.stop(5)
	if out != "{}\n" || !strings.Contains(notice, "loop ended at iteration 6/10") || !strings.Contains(notice, "loop_limit=5") {
		t.Fatalf("6th stop: stdout %q, notice %q", out, notice)
	}
	if l := s.loop(); l.Status != state.CutByHost {
		t.Fatalf("loop %s (%s)", l.Status, l.EndReason)
	}
}

// Cursor's own count decides when it is further on than the loop's: a loop_count that a new
// prompt did not reset still ends the loop at the cap.
func TestLoopCountFromCursor(t *testing.T) {
	s := newSession(t)
	s.prompt(`/ralph-loop "Count" --max-iterations 10 --min-tool-calls 0`)
	s.said("step")
	if out, _ := s.stop(5); out != "{}\n" {
		t.Fatalf("a stop at loop_count 5 of 5: %q", out)
	}
	if l := s.loop(); l.Status != state.CutByHost || l.Iteration != 1 {
		t.Fatalf("loop %s at %d", l.Status, l.Iteration)
	}
}

// With install's hooks, the loop_limit they set is the cap; null is none.
func TestLoopLimitFromHooks(t *testing.T) {
	s := newSession(t)
	project := filepath.Join(s.Dir, "project")
	getenv := func(k string) string { return s.Env[k] }
	if n := LoopLimit(getenv, project); n != DefaultLoopLimit {
		t.Fatalf("no hooks: %d", n)
	}
	write := func(path, stop string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(`{"version":1,"hooks":{"stop":[{"command":"./other.sh","loop_limit":2},`+stop+`]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user, proj := filepath.Join(s.Dir, "home", ".cursor", "hooks.json"), filepath.Join(project, ".cursor", "hooks.json")
	ours := `{"command":"/opt/bin/ralph-loop hook --host cursor","timeout":900`
	for _, tt := range []struct {
		name, user, project string
		want                int
	}{
		{"another hook's limit is not ours", "", "", DefaultLoopLimit},
		{"install's", ours + `,"loop_limit":1000000}`, "", 1_000_000},
		{"ours without one", ours + `}`, "", DefaultLoopLimit},
		{"null: none", ours + `,"loop_limit":null}`, "", 0},
		{"zero", ours + `,"loop_limit":0}`, "", 1},
		{"the project's", "", ours + `,"loop_limit":12}`, 12},
		{"the user's answers when both are there", ours + `,"loop_limit":7}`, ours + `,"loop_limit":12}`, 7},
	} {
		os.Remove(user)
		os.Remove(proj)
		if tt.user != "" {
			write(user, tt.user)
		}
		if tt.project != "" {
			write(proj, tt.project)
		}
		if tt.user == "" && tt.project == "" {
			write(user, `{"command":"./x.sh"}`)
		}
		if n := (Host{}).Facts(getenv, project).BlockCap; n != tt.want {
			t.Errorf("%s: BlockCap %d, want %d", tt.name, n, tt.want)
		}
	}
}

// The promise counts only in the turn's own messages: a message of a turn already decided
// that is handled after its stop never ends the loop, and a promise in the turn's last
// message is found.
func TestPromiseOfThisTurnOnly(t *testing.T) {
	s := newSession(t)
	s.prompt(`/ralph-loop "Fix it" --max-iterations 5`)
	s.handle("postToolUse", map[string]any{"tool_name": "Shell", "tool_use_id": "t1"})
	s.handle("postToolUse", map[string]any{"tool_name": "Shell", "tool_use_id": "t1"}) // delivered twice: one call
	s.said("Working.")
	if out, _ := s.stop(0); !strings.Contains(out, "followup_message") {
		t.Fatalf("first stop: %q", out)
	}
	// The first turn's last message arrives late, with the promise.
	s.gen--
	s.said("<promise>DONE</promise>")
	s.gen++
	s.said("Still going.")
	if out, _ := s.stop(1); !strings.Contains(out, "followup_message") {
		t.Fatalf("an earlier turn's promise ended the loop: %q", out)
	}
	s.said("I ran the tests.")
	s.said("All done.\n<promise>DONE</promise>")
	if out, notice := s.stop(2); out != "{}\n" || !strings.Contains(notice, "promise accepted at iteration 3/5 after 1 tool call") {
		t.Fatalf("third stop: %q, %q", out, notice)
	}
}

// A typed cancel is refused as a prompt with the reason shown to the user; the command
// files' text in a prompt arms and cancels too.
func TestCommandFiles(t *testing.T) {
	s := newSession(t)
	var loop, cancel string
	for _, f := range Files() {
		switch f.Name {
		case "ralph-loop.md":
			loop = f.Content
		case "cancel-ralph.md":
			cancel = f.Content
		}
		if !strings.HasPrefix(f.Content, f.Mark) || strings.Contains(f.Content, "<promise>DONE") {
			t.Errorf("%s: %q", f.Name, f.Content)
		}
	}
	if out, _ := s.prompt(loop + "\n\"Fix it\" --max-iterations 4"); out != "" {
		t.Fatalf("arming through the command file: %q", out)
	}
	if l := s.loop(); l.Status != state.Active || l.Task != "Fix it" || l.MaxIterations != 4 {
		t.Fatalf("loop %+v", l)
	}
	out, _ := s.prompt(cancel)
	var r struct {
		Continue *bool  `json:"continue"`
		Message  string `json:"user_message"`
	}
	if json.Unmarshal([]byte(out), &r); r.Continue == nil || *r.Continue || !strings.Contains(r.Message, "cancelled") {
		t.Fatalf("cancel: %q", out)
	}
	if l := s.loop(); l.Status != state.Cancelled {
		t.Fatalf("loop %s", l.Status)
	}
}

// The guard denies the agent's tool calls that would end the loop, in Cursor's form.
func TestGuard(t *testing.T) {
	s := newSession(t)
	s.prompt(`/ralph-loop "Fix it"`)
	out, _, code := s.handle("preToolUse", map[string]any{"tool_name": "Shell", "tool_input": map[string]any{"command": "ralph-loop cancel --all"}, "tool_use_id": "t9"})
	var r struct{ Permission, Agent_message string }
	if json.Unmarshal([]byte(out), &r); code != 0 || r.Permission != "deny" || r.Agent_message == "" {
		t.Fatalf("guard: exit %d, %q", code, out)
	}
	state := filepath.Join(s.Dir, "state", "ralph-loop", "sessions", "conv-1", "loop.json")
	out, _, _ = s.handle("preToolUse", map[string]any{"tool_name": "Delete", "tool_input": map[string]any{"file_path": state}, "tool_use_id": "t10"})
	if !strings.Contains(out, `"permission":"deny"`) {
		t.Errorf("deleting the loop's state: %q", out)
	}
	// Issue 16: the command runs in tool_input.working_directory, not the event's cwd; Delete
	// of a directory above the state deletes the state.
	out, _, _ = s.handle("preToolUse", map[string]any{"tool_name": "Shell", "cwd": filepath.Join(s.Dir, "project"),
		"tool_input": map[string]any{"command": "rm -rf ralph-loop", "working_directory": filepath.Join(s.Dir, "state")}, "tool_use_id": "t11"})
	if !strings.Contains(out, `"permission":"deny"`) {
		t.Errorf("a command in the state's parent (working_directory): %q", out)
	}
	out, _, _ = s.handle("preToolUse", map[string]any{"tool_name": "Delete", "tool_input": map[string]any{"file_path": filepath.Join(s.Dir, "state")}, "tool_use_id": "t12"})
	if !strings.Contains(out, `"permission":"deny"`) || !strings.Contains(out, "Delete of a file") {
		t.Errorf("deleting the directory above the state: %q", out)
	}
	// Issue 16: Cursor has no ConfigChange: its hooks file (user and project) and ralph-loop's
	// keep are kept from the agent too, through the engine's facts.
	for i, path := range []string{filepath.Join(s.Dir, "home", ".cursor", "hooks.json"), filepath.Join(s.Dir, "project", ".cursor", "hooks.json")} {
		out, _, _ = s.handle("preToolUse", map[string]any{"tool_name": "Write", "cwd": filepath.Join(s.Dir, "project"),
			"tool_input": map[string]any{"file_path": path}, "tool_use_id": fmt.Sprint("t2", i)})
		if !strings.Contains(out, `"permission":"deny"`) || !strings.Contains(out, "keeps this loop going") {
			t.Errorf("writing %s: %q", path, out)
		}
	}
	keep := filepath.Join(s.Dir, "keep")
	s.Store.SetKeepDir(keep)
	os.MkdirAll(keep, 0o700)
	out, _, _ = s.handle("preToolUse", map[string]any{"tool_name": "Shell", "cwd": filepath.Join(s.Dir, "project"),
		"tool_input": map[string]any{"command": "rm -rf " + keep}, "tool_use_id": "t30"})
	if !strings.Contains(out, `"permission":"deny"`) {
		t.Errorf("removing the keep: %q", out)
	}
	s.Store.SetKeepDir("")
	// The denied call is no work when Cursor reports it failed.
	s.handle("postToolUseFailure", map[string]any{"tool_name": "Shell", "tool_use_id": "t9", "failure_type": "permission_denied"})
	s.said("<promise>DONE</promise>")
	if out, _ := s.stop(0); !strings.Contains(out, "only 0 tool calls") {
		t.Fatalf("a denied call counted as work: %q", out)
	}
}

func TestContinuationIsNoPrompt(t *testing.T) {
	for _, prompt := range []string{"ralph-loop: iteration 2/5. Your stop was blocked", inject.ULW + "\n\nralph-loop: iteration 2/5. Your stop was blocked"} {
		in, _ := json.Marshal(map[string]string{"hook_event_name": "beforeSubmitPrompt", "conversation_id": "c", "prompt": prompt})
		if ev, err := (Host{}).Decode(bytes.NewReader(in)); err != nil || ev.Kind != hook.Ignored {
			t.Errorf("%.30q: %v, %v", prompt, ev.Kind, err)
		}
	}
}
