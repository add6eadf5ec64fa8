// Package hosttest is the conformance suite every host package runs over its own captured
// payloads: named behaviours, the same for all hosts (a session without a loop, blocked
// then accepted, a no-work promise rejected, the iteration limit, cancel, the guard's deny,
// session end, a duplicate delivery, bad input), so that a host package only has to
// translate, in a Fixture, and call Run. A host package's own tests of the engine run on the
// suite's Engine, and build their payloads and replies with its helpers.
package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/state"
)

// Fixture builds one host's hook inputs from its captured payloads and reads its replies.
// Builders return nil when the host has no such event.
type Fixture interface {
	Host() hook.Host
	// Env is the hook's environment beyond HOME and XDG_STATE_HOME (which Run sets).
	Env() map[string]string
	// Prompt is the user submitting text; Stop the agent ending its turn, with last as its
	// final message when the host reports one; ToolUsed a finished tool call; ToolCheck a
	// shell command about to run; SessionEnd the session ending.
	Prompt(s Session, text string) []byte
	Stop(s Session, last string) []byte
	ToolUsed(s Session, id string) []byte
	ToolCheck(s Session, command string) []byte
	SessionEnd(s Session) []byte
	// Said appends the agent's text (and a tool call, when id is not "") to the session's
	// transcript in the host's format, for hosts whose stop reads it; others ignore it.
	Said(s Session, text, toolID string)
	// Reply reads what the host's stdout and exit code mean.
	Reply(kind hook.Kind, stdout []byte, code int) (Reply, error)
}

// SaidEventer is a Fixture whose host hands the agent's text to a hook event of its own
// (Cursor's afterAgentResponse) instead of a transcript the stop reads: each Said is also
// sent through the engine as the event SaidEvent makes (nil: none).
type SaidEventer interface {
	SaidEvent(s Session, text string) []byte
}

// StderrReplier is a Fixture whose host takes some answers from the hook's stderr (Factory
// Droid drops a prompt on exit code 2 and shows its stderr): its replies are read by
// ReplyStderr, with the hook's stderr, instead of Reply.
type StderrReplier interface {
	ReplyStderr(kind hook.Kind, stdout, stderr []byte, code int) (Reply, error)
}

// Waiter is a Fixture whose host reports at a stop the work it runs in the background
// (Claude Code's and Qwen Code's background_tasks): Busy is a stop with such work in flight,
// from a payload of the host's with it, last its final message.
type Waiter interface {
	Busy(s Session, last string) []byte
}

// Session is one session of a test.
type Session struct {
	ID         string
	Cwd        string
	Transcript string // where the host's transcript of the session is
}

// Reply is a host's answer as the engine meant it.
type Reply struct {
	Block   bool   // a stop blocked (the agent goes on) or a prompt refused
	Reason  string // the block's reason, or the continuation the agent gets
	Context string // context added to the prompt for the model
	Deny    bool
	Notice  string // what the user is shown
}

// Behaviour is one thing every host does, checked through a host's Fixture. A failure
// names the host, the behaviour and the case: TestConformance/claude/cancel, or
// TestConformance/claude/bad_input/not_json.
type Behaviour struct {
	Name string
	Test func(t *testing.T, f Fixture)
}

// Behaviours are the suite, in the order Run runs them.
var Behaviours = []Behaviour{
	{"no loop", noLoop},
	{"blocked then accepted", blockedThenAccepted},
	{"no-work promise rejected", noWorkPromiseRejected},
	{"iteration limit", iterationLimit},
	{"cancel", cancel},
	{"guard", guard},
	{"session end", sessionEnd},
	{"duplicate delivery", duplicateDelivery},
	{"bad input", badInput},
	{"bounded read", boundedRead},
	{"transcript hole", transcriptHole},
	{"waits with the host", waitsWithHost},
}

// Run runs every behaviour against one host, as subtests named host/behaviour.
func Run(t *testing.T, f Fixture) {
	t.Run(f.Host().Name(), func(t *testing.T) {
		for _, b := range Behaviours {
			t.Run(b.Name, func(t *testing.T) { b.Test(t, f) })
		}
	})
}

// noLoop: in a session without a loop every event is answered with nothing, and no state
// is written; one case per event kind.
func noLoop(t *testing.T, f Fixture) {
	events := []struct {
		name string
		make func(s Session) []byte
	}{
		{"prompt", func(s Session) []byte { return f.Prompt(s, "hello") }},
		{"stop", func(s Session) []byte { return f.Stop(s, "done <promise>DONE</promise>") }},
		{"tool used", func(s Session) []byte { return f.ToolUsed(s, "call_1") }},
		{"tool check", func(s Session) []byte { return f.ToolCheck(s, "rm -rf /tmp/x") }},
		{"session end", func(s Session) []byte { return f.SessionEnd(s) }},
		{"said", func(s Session) []byte {
			if se, ok := f.(SaidEventer); ok {
				return se.SaidEvent(s, "done <promise>DONE</promise>")
			}
			return nil
		}},
	}
	for _, e := range events {
		t.Run(e.name, func(t *testing.T) {
			w := newWorld(t, f)
			s := w.session("plain")
			in := e.make(s)
			if in == nil {
				t.Skipf("%s has no such event", f.Host().Name())
			}
			if out, code := w.handle(in); code != 0 || len(out) != 0 {
				t.Errorf("%s without a loop: exit %d, stdout %q; want nothing", e.name, code, out)
			}
			if ids, _ := w.Store.Sessions(); len(ids) != 0 {
				t.Errorf("state written for a session without a loop: %v", ids)
			}
		})
	}
}

// blockedThenAccepted: an armed loop blocks a stop without the promise, with the task, and
// accepts the promise after a tool call.
func blockedThenAccepted(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s1")
	r := w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Fix the parser" --max-iterations 3`))
	if r.Block {
		t.Fatalf("arming was refused: %q", r.Reason)
	}
	if r.Context != "" && (!strings.Contains(r.Context, "Fix the parser") || !strings.Contains(r.Context, "<promise>DONE</promise>")) {
		t.Errorf("the contract lacks the task or the marker: %q", r.Context)
	}
	w.expect(s, state.Active, 1, 0)
	w.said(s, "Working on it.", "")
	r = w.reply(hook.Stop, f.Stop(s, "Working on it."))
	if !r.Block || !strings.Contains(r.Reason, "Fix the parser") || !strings.Contains(r.Reason, "iteration 2/3") {
		t.Fatalf("stop without the promise: %+v; want a block with the task", r)
	}
	w.expect(s, state.Active, 2, 0)
	if in := f.ToolUsed(s, "call_a1"); in != nil {
		w.reply(hook.ToolUsed, in)
	}
	w.said(s, "Fixed. <promise>DONE</promise>", "call_a1")
	r = w.reply(hook.Stop, f.Stop(s, "Fixed. <promise>DONE</promise>"))
	if r.Block {
		t.Fatalf("the promise after work was blocked: %q", r.Reason)
	}
	w.expect(s, state.PromiseAccepted, 2, 1)
}

// noWorkPromiseRejected: a promise before any tool call is blocked, saying no work was done.
func noWorkPromiseRejected(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s2")
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Write x.txt" --max-iterations 3`))
	w.said(s, "<promise>DONE</promise>", "")
	r := w.reply(hook.Stop, f.Stop(s, "<promise>DONE</promise>"))
	if !r.Block || !strings.Contains(r.Reason, "only 0 tool calls") {
		t.Fatalf("a promise without work: %+v; want a block saying no work was done", r)
	}
	w.expect(s, state.Active, 2, 0)
}

// iterationLimit: the loop ends at exactly --max-iterations stops.
func iterationLimit(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s3")
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Think" --max-iterations 2 --min-tool-calls 0`))
	for i := 1; i <= 2; i++ {
		w.said(s, "Still thinking.", "")
		r := w.reply(hook.Stop, f.Stop(s, "Still thinking."))
		if r.Block != (i < 2) {
			t.Fatalf("stop %d: blocked %v", i, r.Block)
		}
	}
	w.expect(s, state.MaxIterationsReached, 2, 0)
}

// waitsWithHost: a stop while the host runs work in the background is let through,
// using no iteration, and the loop waits; the promise while the work runs is not taken;
// the stop after the work ends is decided as any other.
func waitsWithHost(t *testing.T, f Fixture) {
	wf, ok := f.(Waiter)
	if !ok {
		t.Skipf("%s reports no background work at a stop", f.Host().Name())
	}
	w := newWorld(t, f)
	s := w.session("s10")
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Build it" --max-iterations 3`))
	if in := f.ToolUsed(s, "call_b1"); in != nil {
		w.reply(hook.ToolUsed, in)
	}
	w.said(s, "The build runs in the background.", "call_b1")
	r := w.reply(hook.Stop, wf.Busy(s, "The build runs in the background."))
	if r.Block || !strings.Contains(r.Notice, "iteration 1/3 waits with") {
		t.Fatalf("a stop while the build runs: %+v; want it let through, saying the loop waits", r)
	}
	w.expect(s, state.Active, 1, 1)
	if l := w.Loop(s.ID); !l.Waiting() || len(l.Background) == 0 {
		t.Errorf("the loop does not wait: %s, background %+v", l.LastAction, l.Background)
	}
	w.said(s, "Done. <promise>DONE</promise>", "")
	r = w.reply(hook.Stop, wf.Busy(s, "Done. <promise>DONE</promise>"))
	if !r.Block || !strings.Contains(r.Reason, "while work still runs in the background") {
		t.Fatalf("the promise while the build runs: %+v; want a block saying why", r)
	}
	w.expect(s, state.Active, 2, 1)
	w.said(s, "Built. <promise>DONE</promise>", "")
	if r := w.reply(hook.Stop, f.Stop(s, "Built. <promise>DONE</promise>")); r.Block {
		t.Fatalf("the promise once the build ended was blocked: %q", r.Reason)
	}
	w.expect(s, state.PromiseAccepted, 2, 1)
}

// cancel: /cancel-ralph ends the loop and says so; the next stop goes through.
func cancel(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s4")
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Keep going" --max-iterations 5`))
	r := w.reply(hook.Prompt, f.Prompt(s, "/cancel-ralph"))
	if !strings.Contains(r.Reason+r.Notice+r.Context, "cancelled at iteration 1/5") {
		t.Errorf("cancel reply %+v does not say the loop was cancelled", r)
	}
	if !r.Block {
		t.Errorf("the /cancel-ralph prompt was not refused (it would reach the model): %+v", r)
	}
	w.expect(s, state.Cancelled, 1, 0)
	w.said(s, "ok", "")
	if r := w.reply(hook.Stop, f.Stop(s, "ok")); r.Block {
		t.Errorf("a stop after the cancel was blocked: %q", r.Reason)
	}
}

// guard: the agent's own "ralph-loop cancel" is denied, an ordinary command is not.
func guard(t *testing.T, f Fixture) {
	if f.ToolCheck(Session{}, "") == nil {
		t.Skipf("%s has no tool check event", f.Host().Name())
	}
	w := newWorld(t, f)
	s := w.session("s5")
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Keep going" --max-iterations 5`))
	if r := w.reply(hook.ToolCheck, f.ToolCheck(s, "ralph-loop cancel --all")); !r.Deny {
		t.Errorf("the agent's ralph-loop cancel was not denied: %+v", r)
	}
	if r := w.reply(hook.ToolCheck, f.ToolCheck(s, "go test ./...")); r.Deny || r.Block {
		t.Errorf("an ordinary command was refused: %+v", r)
	}
	w.expect(s, state.Active, 1, 0)
}

// sessionEnd: the session ending ends its loop.
func sessionEnd(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s6")
	in := f.SessionEnd(s)
	if in == nil {
		t.Skipf("%s has no session end event", f.Host().Name())
	}
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Keep going"`))
	w.reply(hook.SessionEnd, in)
	w.expect(s, state.SessionEnded, 1, 0)
}

// duplicateDelivery: ralph-loop installed twice runs every hook twice, at once: the same
// event delivered to two hook processes counts once. The second process starts before the
// first has decided; an identical event after that answer is a new one.
func duplicateDelivery(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s7")
	arm := f.Prompt(s, `/ralph-loop "Fix it" --max-iterations 6`)
	t0 := w.Now.Add(time.Minute)
	w.handleFrom(arm, t0)
	if out, _ := w.handleFrom(arm, t0.Add(500*time.Microsecond)); len(out) != 0 {
		t.Errorf("the duplicate arm answered %q; want nothing", out)
	}
	w.expect(s, state.Active, 1, 0)
	if l, _ := w.Store.Loops(s.ID); len(l) != 1 {
		t.Errorf("%d loops after a duplicated arm, want 1 (the first superseded by its own duplicate?)", len(l))
	}
	w.said(s, "Working.", "")
	stop := f.Stop(s, "Working.")
	t1 := t0.Add(time.Minute)
	out, _ := w.handleFrom(stop, t1)
	if r, err := f.Reply(hook.Stop, out, 0); err != nil || !r.Block {
		t.Fatalf("the first stop was not blocked: %+v %v", r, err)
	}
	if out, _ := w.handleFrom(stop, t1.Add(500*time.Microsecond)); len(out) != 0 {
		t.Errorf("the duplicate stop answered %q; want nothing (the first one's block stands)", out)
	}
	w.expect(s, state.Active, 2, 0)
	// The same payload again, after the answer: a new stop.
	w.said(s, "Working.", "")
	out, _ = w.handleFrom(stop, t1.Add(time.Minute))
	if r, err := f.Reply(hook.Stop, out, 0); err != nil || !r.Block {
		t.Fatalf("an identical later stop was not blocked: %+v %v", r, err)
	}
	w.expect(s, state.Active, 3, 0)
}

// badInput: input that is not an event exits non-zero with nothing on stdout; one case
// per input.
func badInput(t *testing.T, f Fixture) {
	for _, c := range []struct{ name, in string }{
		{"empty", ""}, {"not json", "not json"}, {"array", "[]"}, {"cut short", `{"x":`}, {"two objects", "{} {}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, f)
			if out, code := w.handle([]byte(c.in)); code == 0 || len(out) != 0 {
				t.Errorf("input %q: exit %d, stdout %q; want a non-zero exit and nothing on stdout", c.in, code, out)
			}
		})
	}
}

// boundedRead: a stop reads at most Env.MaxRead bytes of the transcript. Past it the stop is
// blocked, saying why, even with the promise; the next stops read on, and a promise once
// the transcript is read to its end ends the loop.
func boundedRead(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s8")
	path := w.transcript(s)
	if path == "" {
		t.Skipf("%s hands the iteration's text over with the stop: no transcript is read", f.Host().Name())
	}
	w.MaxRead = 16 << 10
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Fix it" --max-iterations 10 --min-tool-calls 0`))
	w.said(s, "Working.", "")
	w.filler(path, 3*w.MaxRead)
	const done = "Done. <promise>DONE</promise>"
	w.said(s, done, "")
	r := w.reply(hook.Stop, f.Stop(s, done))
	if !r.Block || !strings.Contains(r.Reason, "could not be checked") || !strings.Contains(r.Notice+r.Reason, "grew by more than one stop reads") {
		t.Fatalf("a stop past the read bound, with the promise: %+v; want a block saying the output could not be checked", r)
	}
	w.expect(s, state.Active, 2, 0)
	for i := 3; ; i++ {
		w.said(s, done, "")
		r = w.reply(hook.Stop, f.Stop(s, done))
		if !r.Block {
			break
		}
		if !strings.Contains(r.Reason, "could not be checked") {
			t.Fatalf("stop %d was blocked for another reason: %q", i-1, r.Reason)
		}
		if i > 8 {
			t.Fatalf("still blocked at iteration %d: the stops do not read on", i)
		}
	}
	l, err := w.Store.Peek(s.ID)
	if err != nil || l == nil || l.Status != state.PromiseAccepted || l.Iteration < 3 {
		t.Fatalf("after reading on: %+v, %v; want the promise accepted at iteration 3 or later", l, err)
	}
}

// transcriptHole: a hole in the transcript (the agent ran "truncate -s +1T" on it) is
// skipped unread: the stop is decided on what the host wrote after it, and says so in the
// event log.
func transcriptHole(t *testing.T, f Fixture) {
	w := newWorld(t, f)
	s := w.session("s9")
	path := w.transcript(s)
	if path == "" {
		t.Skipf("%s hands the iteration's text over with the stop: no transcript is read", f.Host().Name())
	}
	w.reply(hook.Prompt, f.Prompt(s, `/ralph-loop "Fix it" --max-iterations 5 --min-tool-calls 0`))
	w.said(s, "Working.", "")
	w.filler(path, 100)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()+1<<40); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	const done = "Done. <promise>DONE</promise>"
	w.said(s, done, "")
	if r := w.reply(hook.Stop, f.Stop(s, done)); r.Block {
		t.Fatalf("the promise after a hole in the transcript was blocked: %q", r.Reason)
	}
	w.expect(s, state.PromiseAccepted, 1, 0)
	if evs, err := w.Store.Events(s.ID); err != nil || !strings.Contains(fmt.Sprint(evs), "skipped a hole of 1024.0 GiB") {
		t.Errorf("the event log does not say the hole was skipped: %v %v", evs, err)
	}
}

// transcript is the file the host's stops read for session s: its transcript, or the said
// log the engine keeps for it ("" when the stop hands the text over).
func (w *world) transcript(s Session) string {
	facts := w.f.Host().Facts(func(k string) string { return w.Env[k] }, s.Cwd)
	switch {
	case facts.Transcript == nil:
	case facts.Transcript.SaidLog:
		return w.Store.SaidPath(s.ID)
	case facts.Transcript.Read != nil:
		return s.Transcript
	}
	return ""
}

// filler appends n bytes of lines that no host's reader counts (a type none has) to path.
func (w *world) filler(path string, n int64) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		w.t.Fatal(err)
	}
	tf, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer tf.Close()
	line := `{"type":"filler","pad":"` + strings.Repeat("x", 1000) + `"}` + "\n"
	for written := int64(0); written < n; written += int64(len(line)) {
		if _, err := tf.WriteString(line); err != nil {
			w.t.Fatal(err)
		}
	}
}

// world is one test's machine, the host's Fixture on an Engine.
type world struct {
	*Engine
	t *testing.T
	f Fixture
}

func newWorld(t *testing.T, f Fixture) *world {
	w := &world{Engine: NewEngine(t, f.Host()), t: t, f: f}
	for k, v := range f.Env() {
		w.Env[k] = v
	}
	for _, d := range []string{"home", "project"} {
		if err := os.MkdirAll(filepath.Join(w.Dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) session(id string) Session {
	return Session{ID: id, Cwd: filepath.Join(w.Dir, "project"), Transcript: filepath.Join(w.Dir, "transcripts", id+".jsonl")}
}

// said records the agent's text (and a tool call) for the next stop: in the host's
// transcript, or as the host's own event for it.
func (w *world) said(s Session, text, toolID string) {
	w.f.Said(s, text, toolID)
	if se, ok := w.f.(SaidEventer); ok {
		if in := se.SaidEvent(s, text); in != nil {
			if out, code := w.handle(in); code != 0 || len(out) != 0 {
				w.t.Errorf("the agent's message: exit %d, stdout %q; want nothing", code, out)
			}
		}
	}
}

// handle runs one hook event through the engine as "ralph-loop hook" would.
func (w *world) handle(in []byte) ([]byte, int) {
	out, _, code := w.handleErr(in)
	return out, code
}

// handleErr runs one hook event and returns its stdout, its stderr and its exit code.
func (w *world) handleErr(in []byte) ([]byte, []byte, int) {
	out, errs, code := w.Handle(in)
	if len(errs) > 0 {
		w.t.Logf("stderr: %s", errs)
	}
	return out, errs, code
}

// handleFrom runs one hook event whose process starts at from, its clock advancing a
// millisecond at each reading.
func (w *world) handleFrom(in []byte, from time.Time) ([]byte, int) {
	now := from
	out, errs, code := w.HandleAt(in, func() time.Time { t := now; now = now.Add(time.Millisecond); return t })
	if len(errs) > 0 {
		w.t.Logf("stderr: %s", errs)
	}
	if now.After(w.Now) {
		w.Now = now
	}
	return out, code
}

func (w *world) reply(kind hook.Kind, in []byte) Reply {
	w.t.Helper()
	if in == nil {
		w.t.Fatalf("%s has no payload for event kind %d", w.f.Host().Name(), kind)
	}
	out, errs, code := w.handleErr(in)
	var r Reply
	var err error
	if sr, ok := w.f.(StderrReplier); ok {
		r, err = sr.ReplyStderr(kind, out, errs, code)
	} else {
		r, err = w.f.Reply(kind, out, code)
	}
	if err != nil {
		w.t.Fatalf("reading the reply %q (exit %d): %v", out, code, err)
	}
	return r
}

func (w *world) expect(s Session, status state.Status, iteration, tools int) {
	w.t.Helper()
	l := w.Loop(s.ID)
	got := l.ToolCalls
	if l.Status == state.Active {
		got += w.Store.PendingToolCalls(l)
	}
	if l.Status != status || l.Iteration != iteration || got != tools {
		w.t.Errorf("loop %s at %d with %d tool calls (%s); want %s at %d with %d", l.Status, l.Iteration, got, l.EndReason, status, iteration, tools)
	}
	if l.Host != w.f.Host().Name() {
		w.t.Errorf("loop host %q, want %q", l.Host, w.f.Host().Name())
	}
}

// Patch returns the JSON object template with fields set: keys are dotted paths into
// nested objects ("tool_input.command"); a nil value deletes the field. It is how fixtures
// make payloads from captured ones.
func Patch(template []byte, fields map[string]any) []byte {
	var m map[string]any
	if err := json.Unmarshal(template, &m); err != nil {
		panic(fmt.Sprintf("hosttest: template is not a JSON object: %v", err))
	}
	for k, v := range fields {
		obj := m
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			sub, ok := obj[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				obj[p] = sub
			}
			obj = sub
		}
		if v == nil {
			delete(obj, parts[len(parts)-1])
		} else {
			obj[parts[len(parts)-1]] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Load reads a captured payload, failing the test if it is missing.
func Load(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("captured payload: %v", err)
	}
	return b
}

// ClaudeReply reads a reply in Claude Code's hook output JSON (decision and reason,
// systemMessage, hookSpecificOutput's additionalContext and permissionDecision), exit code
// 0, which the hosts of Claude Code's shape answer in.
func ClaudeReply(stdout []byte, code int) (Reply, error) {
	var r Reply
	var out struct {
		Decision, Reason, SystemMessage string
		HookSpecificOutput              struct {
			AdditionalContext, PermissionDecision string
		}
	}
	if ok, err := ReadReply(stdout, code, &out); !ok {
		return r, err
	}
	r.Block, r.Reason, r.Notice = out.Decision == "block", out.Reason, out.SystemMessage
	r.Context, r.Deny = out.HookSpecificOutput.AdditionalContext, out.HookSpecificOutput.PermissionDecision == "deny"
	return r, nil
}
