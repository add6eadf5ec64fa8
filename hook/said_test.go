package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// saidHost is a synthetic host that hands the agent's messages to a hook of their own
// (Transcript.SaidLog), as Cursor's afterAgentResponse does: {"kind", "session", "turn", "text",
// "tool"} in, the Reply as JSON out.
type saidHost struct{}

func (saidHost) Name() string { return "said" }

func (saidHost) Decode(r io.Reader) (Event, error) {
	var in struct{ Kind, Session, Turn, Text, Tool, Cwd string }
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrInput, err)
	}
	ev := Event{SessionID: in.Session, Cwd: in.Cwd, Key: in.Kind + in.Turn + in.Text + in.Tool}
	switch in.Kind {
	case "prompt":
		ev.Kind, ev.Prompt = Prompt, in.Text
	case "said":
		ev.Kind, ev.Text, ev.TurnMark = Said, in.Text, in.Turn
	case "stop":
		ev.Kind, ev.TurnMark = Stop, in.Turn
	case "tool":
		ev.Kind, ev.ToolUseID = ToolUsed, in.Tool
	case "check": // a shell command about to run
		ev.Kind, ev.ToolUseID, ev.ToolKind, ev.Command = ToolCheck, in.Tool, ShellTool, in.Text
	}
	return ev, nil
}

func (saidHost) Encode(w, _ io.Writer, _ Event, rep Reply) (int, error) {
	if rep.Empty() {
		return 0, nil
	}
	return 0, json.NewEncoder(w).Encode(rep)
}

func (saidHost) Facts(_ func(string) string, cwd string) Facts {
	return Facts{Words: inject.Words{Name: "said"}, ProjectDir: cwd, Transcript: &Transcript{SaidLog: true, Lags: true}}
}

type saidWorld struct {
	t     *testing.T
	store *state.Store
	now   time.Time
	sleep time.Duration
}

func (w *saidWorld) send(fields map[string]string) Reply {
	w.t.Helper()
	fields["session"] = "s1"
	in, _ := json.Marshal(fields)
	w.now = w.now.Add(time.Second)
	now := w.now
	var errs bytes.Buffer
	env := Env{Store: w.store, Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Stderr: &errs,
		CatchUp: 500 * time.Millisecond, Sleep: func(d time.Duration) { w.sleep += d; now = now.Add(d) }}
	return handleSaid(w.t, env, in)
}

// handleSaid runs the engine on in for saidHost and reads its reply; an exit other than 0
// fails the test with what the engine wrote to env.Stderr.
func handleSaid(t testing.TB, env Env, in []byte) Reply {
	t.Helper()
	var out bytes.Buffer
	if code := Handle(context.Background(), env, saidHost{}, bytes.NewReader(in), &out); code != 0 {
		t.Fatalf("exit %d: %s", code, env.Stderr)
	}
	return replyOf(t, out.Bytes())
}

// replyOf reads a hook's stdout as saidHost's reply (none: the zero Reply).
func replyOf(t testing.TB, stdout []byte) Reply {
	t.Helper()
	var rep Reply
	if len(stdout) > 0 {
		if err := json.Unmarshal(stdout, &rep); err != nil {
			t.Fatal(err)
		}
	}
	return rep
}

// A host's messages are kept only while a loop is active, and a stop counts only the
// messages of its own turn: a promise of an iteration already decided that reaches the log
// late never ends the loop.
func TestSaidLog(t *testing.T) {
	w := &saidWorld{t: t, store: state.NewStore(filepath.Join(t.TempDir(), "state")), now: time.Now().Add(-time.Hour)}
	w.send(map[string]string{"kind": "said", "turn": "g0", "text": "<promise>DONE</promise> before any loop"})
	if _, err := os.Stat(w.store.SaidPath("s1")); !os.IsNotExist(err) {
		t.Fatalf("said log written without a loop: %v", err)
	}
	w.send(map[string]string{"kind": "prompt", "text": `/ralph-loop "Fix it" --max-iterations 5`})
	w.send(map[string]string{"kind": "tool", "tool": "t1"})
	w.send(map[string]string{"kind": "said", "turn": "g1", "text": "Working."})
	if rep := w.send(map[string]string{"kind": "stop", "turn": "g1"}); !rep.Block {
		t.Fatalf("stop without the promise: %+v", rep)
	}
	if w.sleep != 0 {
		t.Errorf("waited %s though the turn's message was there", w.sleep)
	}
	// Iteration 1's last message arrives after its stop was decided, with the promise.
	w.send(map[string]string{"kind": "said", "turn": "g1", "text": "<promise>DONE</promise>"})
	w.send(map[string]string{"kind": "said", "turn": "g2", "text": "Still going."})
	if rep := w.send(map[string]string{"kind": "stop", "turn": "g2"}); !rep.Block {
		t.Fatalf("an earlier iteration's promise ended the loop: %+v", rep)
	}
	// A stop whose turn has no message yet waits for it (bounded), then goes on without.
	w.sleep = 0
	if rep := w.send(map[string]string{"kind": "stop", "turn": "g3"}); !rep.Block {
		t.Fatalf("stop g3: %+v", rep)
	}
	if w.sleep < 500*time.Millisecond {
		t.Errorf("waited %s for the turn's message, want the catch-up time", w.sleep)
	}
	w.send(map[string]string{"kind": "said", "turn": "g4", "text": "Done.\n<promise>DONE</promise>"})
	if rep := w.send(map[string]string{"kind": "stop", "turn": "g4"}); rep.Block {
		t.Fatalf("this turn's promise was blocked: %+v", rep)
	}
	l, _ := w.store.Peek("s1")
	if l.Status != state.PromiseAccepted || l.Iteration != 4 {
		t.Fatalf("loop %s at %d", l.Status, l.Iteration)
	}
	if fi, err := os.Stat(w.store.SaidPath("s1")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("said log: %v, %v", fi, err)
	}
}

func TestSaidLogScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "said.jsonl")
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var data []byte
	for i, m := range []state.Said{
		{Timestamp: t0, Turn: "a", Text: "<promise>DONE</promise>"},
		{Timestamp: t0.Add(time.Second), Turn: "b", Text: "<promise>NOPE</promise>"},
		{Timestamp: t0.Add(2 * time.Second), Turn: "b", Text: "quoting <promise>DONE</promise> here"},
	} {
		m.Version = 1
		b, _ := json.Marshal(m)
		data = append(data, b...)
		data = append(data, '\n')
		if i == 0 {
			data = append(data, "not json\n"...)
		}
	}
	whole := int64(len(data))
	data = append(data, `{"version":1,"turn":"b","text":"<promise>DONE</promise>`...) // still being written
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name                  string
		opt                   transcript.Options
		found, sawLast, other bool
		replies, bad, lines   int
	}{
		{"turn a", transcript.Options{Token: "DONE", Last: "a"}, true, true, false, 1, 1, 4},
		{"turn b: the promise quoted anywhere", transcript.Options{Token: "DONE", Last: "b"}, true, true, true, 2, 1, 4},
		{"turn b, on its own line only", transcript.Options{Token: "DONE", Mode: "line", Last: "b"}, false, true, true, 2, 1, 4},
		{"a turn with no message", transcript.Options{Token: "DONE", Last: "c"}, false, false, false, 0, 1, 4},
		{"no turn: every message", transcript.Options{Token: "DONE"}, true, false, true, 3, 1, 4},
		{"no turn, after a time", transcript.Options{Token: "DONE", TextAfter: t0}, true, false, true, 2, 1, 4},
	} {
		res, err := saidLog{}.Scan(path, 0, tt.opt)
		if err != nil || res.Found != tt.found || res.SawLast != tt.sawLast || res.HasOther != tt.other ||
			res.Replies != tt.replies || res.Bad != tt.bad || res.Lines != tt.lines || res.Offset != whole {
			t.Errorf("%s: %+v, %v", tt.name, res, err)
		}
	}
	if res, _ := (saidLog{}).Scan(path, whole, transcript.Options{Token: "DONE"}); res.Found || res.Offset != whole {
		t.Errorf("a partial line was read: %+v", res)
	}
	if off, err := (saidLog{}).OffsetAfter(path, t0); err != nil || off == 0 || off >= whole {
		t.Errorf("OffsetAfter = %d, %v", off, err)
	}
}
