package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/state"
)

func TestDecodeCaptured(t *testing.T) {
	for _, c := range []struct {
		file string
		kind hook.Kind
		want string // Prompt, LastMessage, ToolUseID or Command
	}{
		{"UserPromptSubmit.json", hook.Prompt, "do the task"},
		// The sends after a tool result and after a Stop hook's block are not prompts.
		{"UserPromptSubmit.tool-result.json", hook.Ignored, ""},
		{"UserPromptSubmit.continuation.json", hook.Ignored, ""},
		{"UserPromptSubmit.slash-command.json", hook.Prompt, "/ralph-loop fix the bug --max-iterations 3 --completion-promise DONE"},
		// With a command file the prompt is the expanded text; the typed one is kept.
		{"UserPromptSubmit.custom-command.json", hook.Prompt, "/ralph-loop fix the bug --max-iterations 3 --completion-promise DONE"},
		// A command file's command expanded: its arguments as typed (a long paste's too).
		{"UserPromptExpansion.json", hook.Prompt, "/ralph-loop fix the bug --max-iterations 3 --completion-promise DONE"},
		{"PreToolUse.run_shell_command.json", hook.ToolCheck, "echo tool-ran > marker.txt; echo hi"},
		{"PostToolUse.run_shell_command.json", hook.ToolUsed, "call_fake_1"},
		{"PostToolUseFailure.run_shell_command.json", hook.ToolUsed, "call_fake_3"},
		{"Stop.first-call.json", hook.Stop, "First answer done."},
		{"Stop.after-block.json", hook.Stop, "Second answer after block."},
		{"SessionStart.json", hook.SessionStart, "startup"},
		{"SessionEnd.synthetic.json", hook.SessionEnd, "prompt_input_exit"},
		// The provider's message, not the error text the UI shows.
		{"StopFailure.synthetic.json", hook.Failed, "rate_limit: 429 Too Many Requests: rate limit exceeded, retry after 20 seconds"},
	} {
		data := hosttest.Load(t, filepath.Join("../../testdata/qwen", c.file))
		ev, err := Host{}.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		got := map[hook.Kind]string{hook.Prompt: ev.Prompt, hook.Stop: ev.LastMessage, hook.ToolUsed: ev.ToolUseID,
			hook.ToolCheck: ev.Command, hook.SessionStart: ev.Source, hook.SessionEnd: ev.Reason, hook.Failed: ev.Error + ": " + ev.LastMessage}[ev.Kind]
		if ev.Kind != c.kind || got != c.want || ev.SessionID == "" && ev.Kind != hook.Ignored {
			t.Errorf("%s: kind %v %q (session %q); want kind %v %q", c.file, ev.Kind, got, ev.SessionID, c.kind, c.want)
		}
	}
}

func TestDecodeToolKinds(t *testing.T) {
	for _, c := range []struct {
		name, input string
		kind        hook.ToolKind
		path        string
	}{
		{"write_file", `{"file_path":"/p/x.txt","content":"x"}`, hook.WriteTool, "/p/x.txt"},
		{"edit", `{"file_path":"/p/y.go","old_string":"a","new_string":"b"}`, hook.WriteTool, "/p/y.go"},
		{"notebook_edit", `{"notebook_path":"/p/n.ipynb"}`, hook.WriteTool, "/p/n.ipynb"},
		{"read_file", `{"file_path":"/p/x.txt"}`, hook.OtherTool, ""},
	} {
		in := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"` + c.name + `","tool_input":` + c.input + `,"tool_use_id":"toolu_1"}`
		ev, err := Host{}.Decode(strings.NewReader(in))
		if err != nil || ev.ToolKind != c.kind || ev.FilePath != c.path || ev.ToolUseID != "toolu_1" {
			t.Errorf("%s: %+v %v; want kind %v path %q id toolu_1 (no tool_call_id)", c.name, ev, err, c.kind, c.path)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, src := range []string{"", "null", "[]", `{"session_id":"s"}`, `{"hook_event_name":"UserPromptSubmit","submitted_prompt":1}`,
		`{"hook_event_name":"PostToolUse","tool_call_id":{}}`, `{"hook_event_name":"Stop"} {}`} {
		if _, err := (Host{}).Decode(strings.NewReader(src)); !errors.Is(err, hook.ErrInput) || strings.Count(err.Error(), "malformed") != 1 {
			t.Errorf("Decode(%q) = %v, want one ErrInput", src, err)
		}
	}
}

// FuzzDecode checks that any input decodes or fails with ErrInput, without panicking.
func FuzzDecode(f *testing.F) {
	hosttest.Seed(f, "../../testdata/qwen/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Host{}.Decode(bytes.NewReader(data))
		if err != nil && !errors.Is(err, hook.ErrInput) {
			t.Fatalf("error %v does not wrap ErrInput", err)
		}
		if err == nil && ev.Kind == hook.Prompt && ev.Prompt == "" {
			t.Fatal("a prompt event without the submitted prompt")
		}
	})
}

func TestBlockCap(t *testing.T) {
	dir := t.TempDir()
	home, project, etc := filepath.Join(dir, "home"), filepath.Join(dir, "project"), filepath.Join(dir, "etc")
	user, ws := filepath.Join(home, ".qwen", "settings.json"), filepath.Join(project, ".qwen", "settings.json")
	for _, c := range []struct {
		name, env, user, ws string
		want                int
		from                string
	}{
		{"default", "", "", "", 8, BlockCapSetting},
		{"user setting", "", `{"stopHookBlockingCap": 100}`, "", 100, BlockCapSetting},
		{"with comments", "", "{\n// raised by ralph-loop\n\"a\": \"//x\", /* cap */ \"stopHookBlockingCap\": 40}", "", 40, BlockCapSetting},
		{"with a byte order mark", "", "\ufeff{\r\n  \"stopHookBlockingCap\": 100 // raised\r\n}\r\n", "", 100, BlockCapSetting},
		{"project wins over user", "", `{"stopHookBlockingCap": 100}`, `{"stopHookBlockingCap": 20}`, 20, BlockCapSetting},
		{"clamped to 100", "", `{"stopHookBlockingCap": 500}`, "", 100, BlockCapSetting},
		{"zero is the default", "", `{"stopHookBlockingCap": 0}`, "", 8, BlockCapSetting},
		{"fraction floored", "", `{"stopHookBlockingCap": 12.7}`, "", 12, BlockCapSetting},
		{"not a number", "", `{"stopHookBlockingCap": "50"}`, "", 8, BlockCapSetting},
		{"variable wins", "30", `{"stopHookBlockingCap": 100}`, "", 30, BlockCapEnv},
		{"variable not an integer", "2.5", `{"stopHookBlockingCap": 100}`, "", 8, BlockCapEnv},
		{"variable clamped", "1000", "", "", 100, BlockCapEnv},
		{"blank variable ignored", "  ", `{"stopHookBlockingCap": 50}`, "", 50, BlockCapSetting},
	} {
		os.RemoveAll(dir)
		if c.user != "" {
			hosttest.WriteFile(t, user, c.user)
		}
		if c.ws != "" {
			hosttest.WriteFile(t, ws, c.ws)
		}
		env := map[string]string{"HOME": home, BlockCapEnv: c.env, "QWEN_CODE_SYSTEM_SETTINGS_PATH": filepath.Join(etc, "settings.json")}
		got, from := blockCap(func(k string) string { return env[k] }, project)
		if got != c.want || from != c.from {
			t.Errorf("%s: cap %d from %s; want %d from %s", c.name, got, from, c.want, c.from)
		}
	}
	// The system file wins over all.
	hosttest.WriteFile(t, filepath.Join(etc, "settings.json"), `{"stopHookBlockingCap": 3}`)
	hosttest.WriteFile(t, ws, `{"stopHookBlockingCap": 20}`)
	env := map[string]string{"HOME": home, "QWEN_CODE_SYSTEM_SETTINGS_PATH": filepath.Join(etc, "settings.json")}
	if got, _ := blockCap(func(k string) string { return env[k] }, project); got != 3 {
		t.Errorf("system settings: cap %d, want 3", got)
	}
	f := Host{}.Facts(func(k string) string { return env[k] }, project)
	if f.BlockCap != 2 || !f.Words.Cap.CountsTools {
		t.Errorf("facts under a cap of 3: BlockCap %d Cap.CountsTools %v; want 2 blocks let through, counted across tools", f.BlockCap, f.Words.Cap.CountsTools)
	}
}

func TestStopTimeout(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	env := map[string]string{"HOME": home, "QWEN_CODE_SYSTEM_SETTINGS_PATH": filepath.Join(dir, "none.json")}
	getenv := func(k string) string { return env[k] }
	if d := stopTimeout(getenv, ""); d != 60*time.Second {
		t.Errorf("no settings: %v, want Qwen Code's default 60s", d)
	}
	for _, c := range []struct {
		timeout string
		want    time.Duration
	}{
		{"900", 900 * time.Second},
		{"1000", time.Second}, // 1000 and up are milliseconds
		{"1800000", 30 * time.Minute},
		{`"30s"`, 60 * time.Second}, // ignored: the default applies
		{"-5", 60 * time.Second},
	} {
		s := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"other-tool","timeout":5000000},` +
			`{"type":"command","command":"/usr/local/bin/ralph-loop hook --host qwen","timeout":` + c.timeout + `}]}]}}`
		if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if d := stopTimeout(getenv, ""); d != c.want {
			t.Errorf("timeout %s: %v, want %v", c.timeout, d, c.want)
		}
	}
	s := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/ralph-loop hook --host claude","timeout":5000000}]}]}}`
	if err := os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := stopTimeout(getenv, ""); d != 60*time.Second {
		t.Errorf("the timeout of Claude Code's hook was taken for Qwen Code's: %v", d)
	}
}

// session drives one Qwen Code session through the engine with captured payloads.
type session struct {
	*hosttest.Engine
	id string
}

func newSession(t *testing.T) *session {
	e := hosttest.NewEngine(t, Host{})
	e.Env["QWEN_CODE_SYSTEM_SETTINGS_PATH"] = filepath.Join(e.Dir, "none.json")
	return &session{Engine: e, id: "qwen-s1"}
}

func (s *session) send(file string, fields map[string]any) (out map[string]any) {
	s.T.Helper()
	fields["session_id"], fields["cwd"] = s.id, s.T.TempDir()
	stdout, stderr, code := s.Handle(hosttest.Patch(hosttest.Load(s.T, filepath.Join("../../testdata/qwen", file)), fields))
	if code != 0 {
		s.T.Fatalf("%s: exit %d: %s", file, code, stderr)
	}
	if len(stdout) == 0 {
		return nil
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		s.T.Fatalf("%s: %v", file, err)
	}
	return out
}

// iteration is one stop of the loop the way Qwen Code delivers it: a tool call (its
// PreToolUse, PostToolUse and the UserPromptSubmit of the tool result's send), then the
// Stop, then, when blocked, the UserPromptSubmit of the continuation's send.
func (s *session) iteration(n int) map[string]any {
	id := "call_fake_" + string(rune('a'+n))
	s.send("PreToolUse.run_shell_command.json", map[string]any{"tool_call_id": id})
	s.send("PostToolUse.run_shell_command.json", map[string]any{"tool_call_id": id})
	s.send("UserPromptSubmit.tool-result.json", map[string]any{})
	out := s.send("Stop.first-call.json", map[string]any{"last_assistant_message": "Still working."})
	if out["decision"] == "block" {
		s.send("UserPromptSubmit.continuation.json", map[string]any{"prompt": out["reason"]})
	}
	return out
}

func (s *session) loop() *state.Loop { return s.Loop(s.id) }

// Qwen Code's default cap of 8 lets 7 blocks through and counts them across tool calls and
// the UserPromptSubmit events of the same turn: a loop of 10 iterations ends, with the
// reason, at the 8th stop instead of being overridden silently.
func TestLoopBeyondTheDefaultCap(t *testing.T) {
	s := newSession(t)
	arm := s.send("UserPromptSubmit.json", map[string]any{"prompt": "/ralph-loop Think hard --max-iterations 10", "submitted_prompt": "/ralph-loop Think hard --max-iterations 10"})
	ctx, _ := arm["hookSpecificOutput"].(map[string]any)["additionalContext"].(string)
	if !strings.Contains(ctx, "Think hard") || !strings.Contains(ctx, "escaped as HTML entities") {
		t.Errorf("contract %q", ctx)
	}
	var out map[string]any
	for i := 1; i <= 8; i++ {
		out = s.iteration(i)
		if blocked := out["decision"] == "block"; blocked != (i < 8) {
			t.Fatalf("stop %d: blocked %v (%v)", i, blocked, out)
		}
		if i == 1 {
			n, _ := out["systemMessage"].(string)
			if !strings.Contains(n, "(stopHookBlockingCap=8), so this loop can run at most 8 iterations in one turn") {
				t.Errorf("the first block's notice does not give the effective limit: %q", n)
			}
		}
	}
	l := s.loop()
	if l.Status != state.CutByHost || l.Iteration != 8 || !strings.Contains(l.EndReason, "Qwen Code ends a turn after 7 stop blocks in a row (stopHookBlockingCap=8)") {
		t.Errorf("loop %s at %d: %q; want %s at 8 with the reason", l.Status, l.Iteration, l.EndReason, state.CutByHost)
	}
	if n, _ := out["systemMessage"].(string); !strings.Contains(n, "loop ended at iteration 8/10") || !strings.Contains(n, "stopHookBlockingCap=8") {
		t.Errorf("the last stop's notice does not say why the loop ended: %q", n)
	}
}

// With the cap raised in the user's settings (as install does), the loop runs to its own
// limit.
func TestLoopWithTheRaisedCap(t *testing.T) {
	s := newSession(t)
	if err := os.MkdirAll(filepath.Join(s.Env["HOME"], ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Env["HOME"], ".qwen", "settings.json"), []byte(`{"stopHookBlockingCap": 100}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.send("UserPromptSubmit.json", map[string]any{"submitted_prompt": "/ralph-loop Think hard --max-iterations 10"})
	for i := 1; i <= 10; i++ {
		out := s.iteration(i)
		if blocked := out["decision"] == "block"; blocked != (i < 10) {
			t.Fatalf("stop %d: blocked %v (%v)", i, blocked, out)
		}
		if n, _ := out["systemMessage"].(string); i == 1 && strings.Contains(n, "Note:") {
			t.Errorf("a cap warning under a cap of 100: %q", n)
		}
	}
	if l := s.loop(); l.Status != state.MaxIterationsReached || l.Iteration != 10 || l.ToolCalls != 10 {
		t.Errorf("loop %s at %d with %d tool calls; want %s at 10 with 10", l.Status, l.Iteration, l.ToolCalls, state.MaxIterationsReached)
	}
}

// A new prompt the user submits starts Qwen Code's count again, and the engine's.
func TestUserPromptRestartsTheCount(t *testing.T) {
	s := newSession(t)
	s.Env[BlockCapEnv] = "3"
	s.send("UserPromptSubmit.json", map[string]any{"submitted_prompt": "/ralph-loop Think hard --max-iterations 10"})
	for i := 1; i <= 2; i++ {
		s.iteration(i)
	}
	if l := s.loop(); l.BlocksInTurn != 2 {
		t.Fatalf("%d blocks counted, want 2", l.BlocksInTurn)
	}
	s.send("UserPromptSubmit.json", map[string]any{"submitted_prompt": "also check the docs"})
	if l := s.loop(); l.Status != state.Active || l.BlocksInTurn != 0 {
		t.Errorf("after the user's prompt: %s with %d blocks counted; want active with 0", l.Status, l.BlocksInTurn)
	}
}
