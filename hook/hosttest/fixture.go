package hosttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
)

// The helpers a host's Fixture is made of: its captured payloads, its transcript lines,
// its replies.

// Payloads makes a Fixture's events from the payloads captured from its host, in
// testdata/<Dir> (from the host package's directory), and states the host and its hook's
// environment: a host package embeds it in its fixture with the events its host has, and
// writes only the builders it makes otherwise, Said and Reply.
type Payloads struct {
	T       testing.TB
	Adapter hook.Host
	Environ map[string]string // the hook's environment beyond HOME and XDG_STATE_HOME
	Dir     string
	// Session names the fields of a payload that say its session: its id, its directory
	// and its transcript's path ("": the host's payloads have no such field).
	Session [3]string
	// Events are the events the host has, by kind (Prompt, Stop, ToolUsed, ToolCheck,
	// SessionEnd); a kind it has not makes nil.
	Events map[hook.Kind]Event
}

// ClaudeSession are the session fields of the hosts of Claude Code's shape.
var ClaudeSession = [3]string{"session_id", "cwd", "transcript_path"}

// Claude is the Fixture of a host of Claude Code's shape but its Said: its payloads,
// captured under Claude Code's event names, and its replies, in Claude Code's hook output
// (ClaudeReply).
type Claude struct{ Payloads }

// NewClaude is the Claude of host, its captures in testdata/<host name>: UserPromptSubmit.json
// (prompt), Stop.first-call.json (last_assistant_message), PostToolUse.<tool>.json
// (tool_use_id), PreToolUse.<tool>.json (tool_input.command) and SessionEnd.json, with tool
// its shell tool's name. A host whose captures differ changes its Events.
func NewClaude(t testing.TB, host hook.Host, tool string, env map[string]string) Claude {
	return Claude{Payloads{T: t, Adapter: host, Environ: env, Dir: host.Name(), Session: ClaudeSession, Events: map[hook.Kind]Event{
		hook.Prompt:     {File: "UserPromptSubmit.json", Field: "prompt"},
		hook.Stop:       {File: "Stop.first-call.json", Field: "last_assistant_message"},
		hook.ToolUsed:   {File: "PostToolUse." + tool + ".json", Field: "tool_use_id"},
		hook.ToolCheck:  {File: "PreToolUse." + tool + ".json", Field: "tool_input.command"},
		hook.SessionEnd: {File: "SessionEnd.json"},
	}}}
}

// Reply reads a reply in Claude Code's hook output (ClaudeReply).
func (Claude) Reply(_ hook.Kind, stdout []byte, code int) (Reply, error) {
	return ClaudeReply(stdout, code)
}

// ClaudeBlocks are an assistant message's content blocks as Claude Code writes them in its
// transcript: the text, and a call of tool running "true" when toolID is not "".
func ClaudeBlocks(text, toolID, tool string) []map[string]any {
	blocks := []map[string]any{{"type": "text", "text": text}}
	if toolID != "" {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolID, "name": tool, "input": map[string]any{"command": "true"}})
	}
	return blocks
}

// Host is the host the payloads are from.
func (p Payloads) Host() hook.Host { return p.Adapter }

// Env is the hook's environment beyond HOME and XDG_STATE_HOME.
func (p Payloads) Env() map[string]string { return p.Environ }

// An Event is the captured payload (a file in the host's testdata) a hook event is made
// from, and the field (a dotted path, see Patch) its argument goes in, after Prefix (a
// tool-call id the host does not report goes into the command: "echo ID"); with no field,
// the argument is dropped.
type Event struct {
	File, Field, Prefix string
}

func (p Payloads) Prompt(s Session, text string) []byte { return p.Make(hook.Prompt, s, text) }
func (p Payloads) Stop(s Session, last string) []byte   { return p.Make(hook.Stop, s, last) }
func (p Payloads) ToolUsed(s Session, id string) []byte { return p.Make(hook.ToolUsed, s, id) }
func (p Payloads) ToolCheck(s Session, command string) []byte {
	return p.Make(hook.ToolCheck, s, command)
}
func (p Payloads) SessionEnd(s Session) []byte { return p.Make(hook.SessionEnd, s, "") }

// Make is the event of a kind for session s, with its argument arg; nil for a kind the
// host has not.
func (p Payloads) Make(kind hook.Kind, s Session, arg string) []byte {
	e, ok := p.Events[kind]
	if !ok {
		return nil
	}
	fields := map[string]any{}
	if e.Field != "" {
		fields[e.Field] = e.Prefix + arg
	}
	return p.Base(e.File, s, fields)
}

// Base is the captured payload in file for session s, with fields set (see Patch).
func (p Payloads) Base(file string, s Session, fields map[string]any) []byte {
	for i, v := range []string{s.ID, s.Cwd, s.Transcript} {
		if p.Session[i] != "" {
			fields[p.Session[i]] = v
		}
	}
	return Patch(Load(p.T, filepath.Join("../../testdata", p.Dir, file)), fields)
}

// AppendJSONL appends each value as a JSON line to the file at path, making its directory
// and the file when they are not there (a transcript as its host writes it).
func AppendJSONL(t testing.TB, path string, lines ...any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// JSON is v encoded as JSON, for a payload a test writes by hand (a string quoted as
// JSON quotes it).
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// WriteFile writes content to the file at path, making its directory when it is not
// there (a settings file where the host reads it).
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadReply decodes a hook's JSON stdout into out, for a host whose hooks answer with exit
// code 0: ok is false for no reply (empty stdout) and for an error (another exit code,
// stdout that is not JSON).
func ReadReply(stdout []byte, code int, out any) (ok bool, err error) {
	if code != 0 {
		return false, fmt.Errorf("exit code %d", code)
	}
	if len(stdout) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		return false, err
	}
	return true, nil
}

// ReplyFrom reads a hook's JSON stdout into a T (see ReadReply) and what it means by read;
// no reply is the zero Reply.
func ReplyFrom[T any](stdout []byte, code int, read func(T) Reply) (Reply, error) {
	var out T
	if ok, err := ReadReply(stdout, code, &out); !ok {
		return Reply{}, err
	}
	return read(out), nil
}

// ShimReply is a Reply of the plugin or extension install writes for a host that runs
// ralph-loop from its own JavaScript (opencode's and Kilo's plugin, pi's extension): the
// notice shown, the context added, a continuation that makes the agent go on, a refused
// prompt's reason, and a tool call denied.
func ShimReply(notice, context, continuation, refused string, deny bool) Reply {
	r := Reply{Notice: notice, Context: context}
	switch {
	case continuation != "":
		r.Block, r.Reason = true, continuation
	case refused != "":
		r.Block, r.Reason = true, refused
	case deny:
		r.Deny = true
	}
	return r
}

// Captured is one captured file: its path and its content.
type Captured struct {
	Path string
	Data []byte
}

// LoadAll reads the captured files that match pattern (as filepath.Glob, from the host
// package's directory), failing the test when there are fewer than least.
func LoadAll(t testing.TB, pattern string, least int) []Captured {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) < least {
		t.Fatalf("captured files missing: %d match %s (%v), want %d or more", len(paths), pattern, err, least)
	}
	var out []Captured
	for _, p := range paths {
		out = append(out, Captured{p, Load(t, p)})
	}
	return out
}

// Seed adds every captured file that matches pattern to a fuzz target's corpus (one
// argument: the file's content), failing when none does.
func Seed(f *testing.F, pattern string) {
	f.Helper()
	for _, c := range LoadAll(f, pattern, 1) {
		f.Add(c.Data)
	}
}

// SameEvents checks that the events a plugin or extension passes on, each named by the
// first group of a match of pattern in its source, are those its host lists (Events, as
// "ralph-loop hook --help" shows them).
func SameEvents(t testing.TB, source, pattern string, listed []string) {
	t.Helper()
	var passed []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(source, -1) {
		if !slices.Contains(passed, m[1]) {
			passed = append(passed, m[1])
		}
	}
	listed = slices.Clone(listed)
	slices.Sort(passed)
	slices.Sort(listed)
	if len(passed) == 0 || !slices.Equal(passed, listed) {
		t.Errorf("the source passes on %q; the host lists %q", passed, listed)
	}
}

// Goal is a case of a host's ActiveGoal: a captured transcript with more appended, and the
// goal it must then read (active, or ended).
type Goal struct {
	Name, More string
	Want       string
	Active     bool
}

// ActiveGoals checks activeGoal on the transcript captured (a file) with each case's lines
// appended.
func ActiveGoals(t testing.TB, captured string, activeGoal func(path string) (string, bool), cases []Goal) {
	t.Helper()
	data, err := os.ReadFile(captured)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		path := filepath.Join(t.TempDir(), filepath.Base(captured))
		if err := os.WriteFile(path, append(append([]byte(nil), data...), tt.More...), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, active := activeGoal(path); got != tt.Want || active != tt.Active {
			t.Errorf("%s: ActiveGoal = %q, %v; want %q, %v", tt.Name, got, active, tt.Want, tt.Active)
		}
	}
}
