package pi

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// settle is how long pi must stay idle to count as finished: the extension sends a
// continuation within milliseconds of the run's end.
const settle = 2 * time.Second

// world is a fresh Env with ralph-loop installed for pi by its own installer at each of
// scopes, and "pi --mode rpc" running script.
type world struct {
	*Env
	rpc *RPC
}

func newWorld(t *testing.T, script Script, scopes ...string) *world {
	t.Helper()
	e := bare(t)
	for _, scope := range scopes {
		out, err := e.Install(context.Background(), scope)
		if err != nil {
			t.Fatalf("install: %v", err)
		}
		t.Logf("install: %s", out)
	}
	return start(t, e, script)
}

// bare is a fresh Env with nothing installed; t skips unless the suite can run, and runs in
// parallel with the others (suite.Need: each test has a pi, a fake and a home of its own).
func bare(t *testing.T) *Env {
	t.Helper()
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func start(t *testing.T, e *Env, script Script, args ...string) *world {
	t.Helper()
	r, err := e.StartRPC(context.Background(), script, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		if t.Failed() {
			t.Logf("pi's stderr:\n%s", r.Stderr.String())
			for _, ev := range r.Events() {
				if ev.Type != "message_update" {
					t.Logf("event: %.400s", ev.Raw)
				}
			}
		}
	})
	return &world{Env: e, rpc: r}
}

// send sends a prompt and waits until pi settles and done holds.
func (w *world) send(t *testing.T, prompt string, done func() bool) {
	t.Helper()
	from := len(w.rpc.Events())
	if err := w.rpc.Prompt(prompt, false); err != nil {
		t.Fatal(err)
	}
	runs, err := w.rpc.Settled(context.Background(), from, 1, settle, done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("settled after %d runs; notices: %q", runs, w.rpc.Notices())
}

// during sends prompt, then, once the agent's first tool call has started, msg (within the
// run, as typed while the agent works), and waits until pi settles after both and every
// loop has ended.
func (w *world) during(t *testing.T, prompt, msg string) {
	t.Helper()
	from := len(w.rpc.Events())
	if err := w.rpc.Prompt(prompt, false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for w.rpc.Count("tool_execution_start") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no tool call started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.rpc.Prompt(msg, true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.rpc.Settled(context.Background(), from, 2, settle, w.ended); err != nil {
		t.Fatal(err)
	}
}

// ended is true once every loop has ended (and there is one).
func (w *world) ended() bool { return e2e.Ended(w.Env) }

func always() bool { return true }

func onlyLoop(t *testing.T, e *Env) Loop {
	t.Helper()
	return e2e.OnlyLoop(t, e)
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "pi", status, iteration, tools)
}

var contains = e2e.Contains

// saw checks that the user was shown each of wants, waiting up to 10 s.
func (w *world) saw(t *testing.T, wants ...string) {
	t.Helper()
	e2e.Shown(t, "the notices", func() string { return strings.Join(w.rpc.Notices(), "\n") }, wants...)
}

var readFile = e2e.ReadFile

// lastUser is the last user message of the n-th agent request (from 0).
var lastUser = e2e.LastUser

// /ralph-loop (the extension's command): "I'm done" without the promise is blocked and the
// task comes back as ralph-loop's message; work and the promise then end the loop.
func TestBlockedThenPromise(t *testing.T) {
	w := newWorld(t, e2e.Done(Shell), "user")
	w.send(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	c := w.rpc.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output", "TASK:\nCreate x.txt containing hi")
	contains(t, "the first request's prompt", lastUser(t, w.rpc.Fake, 0), "ralph-loop: a loop is now active", "<promise>DONE</promise>", "Create x.txt containing hi")
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
	w.saw(t, "loop armed: up to 5 iterations", "promise accepted at iteration 2/5 after 1 tool call")
}

// A promise with no tool call is rejected; the agent's attempt to cancel its own loop from
// the shell is denied; after real work the promise is accepted. The loop is started from
// the project's extension (committed, it runs the ralph-loop on PATH).
func TestPromiseWithoutWork(t *testing.T) {
	e := bare(t)
	if err := e.OnPath(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "project"); err != nil {
		t.Fatal(err)
	}
	w := start(t, e, Script{Turns: []Turn{
		Text("<promise>DONE</promise>"),
		Shell("Let me end this loop.", "ralph-loop cancel --all"),
		Write("And its state.", filepath.Join(e.State, "ralph-loop", "x"), "x"),
		Shell("Fine, doing the work.", "echo hi > x.txt"),
		Text("Now it is really done. <promise>DONE</promise>"),
	}})
	w.send(t, `/ralph-loop "Create x.txt containing hi"`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	c := w.rpc.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	var denied []string
	for _, m := range w.rpc.Fake.MainRequests()[4].Messages {
		if m.Role == "tool" {
			denied = append(denied, m.Text)
		}
	}
	if len(denied) != 3 || !strings.Contains(denied[0], "ralph-loop") || !strings.Contains(denied[1], "ralph-loop") {
		t.Errorf("the denied calls' results: %q", denied)
	}
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}

// The iteration limit: a loop that never promises ends at --max-iterations; pi has no cap
// of its own.
func TestIterationLimit(t *testing.T) {
	var turns []Turn
	for i := 1; i <= 4; i++ {
		turns = append(turns, Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), Text(fmt.Sprintf("Iteration %d: still working.", i)))
	}
	w := newWorld(t, Script{Turns: turns, WhenDone: Text("Out of script.")}, "user")
	w.send(t, `/ralph-loop "Count to four in progress.txt" --max-iterations 4`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "MAX_ITERATIONS_REACHED", 4, 4)
	if n := len(w.rpc.Fake.Continuations()); n != 3 {
		t.Errorf("%d continuations, want 3", n)
	}
	w.saw(t, "4/4")
	readFile(t, filepath.Join(w.Project, "progress.txt"), "1\n2\n3\n4\n")
}

// /cancel-ralph while the agent works: pi runs an extension's command at once, so the loop
// ends there; the run's end is not blocked, no continuation follows, and nothing of the
// cancel reaches the model.
func TestCancelWhileWorking(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Shell("Starting.", "sleep 3"),
		Text("Step one done."),
	}, WhenDone: Text("More.")}, "user")
	w.during(t, `/ralph-loop "Keep going" --max-iterations 5`, "/cancel-ralph")
	// The command's result came after the cancel: no loop counts it.
	expectLoop(t, onlyLoop(t, w.Env), "CANCELLED", 1, 0)
	w.saw(t, "cancelled at iteration 1/5")
	if n := len(w.rpc.Fake.Continuations()); n != 0 {
		t.Errorf("%d continuations after the cancel, want 0", n)
	}
	for _, r := range w.rpc.Fake.MainRequests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Text, "cancel-ralph") || strings.Contains(m.Text, "loop cancelled") {
				t.Errorf("the model was handed %q", m.Text)
			}
		}
	}
}

// A message sent while the agent works goes to the agent within the run: the loop is not
// put out of step (the stop after it is the run's own, one continuation per stop), and the
// log says the message came within the turn, not that pi ended the turn.
func TestMessageWhileWorking(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Shell("Working.", "sleep 3"),
		Text("Read your note; still going."),
		Shell("", "echo hi > x.txt"),
		Text("Done. <promise>DONE</promise>"),
	}}, "user")
	w.during(t, `/ralph-loop "Create x.txt" --max-iterations 5`, "Also mention the README.")
	l := onlyLoop(t, w.Env)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	if n := len(w.rpc.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	if got := lastUser(t, w.rpc.Fake, 1); got != "Also mention the README." {
		t.Errorf("the second request's last user message is %q, want the message sent mid-run", got)
	}
	log, err := w.RalphLoopCmd(context.Background(), "log")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log, "turn_ended") || !strings.Contains(log, "the user typed a message while the agent worked") {
		t.Errorf("the loop's log:\n%s\nwant the message logged within the turn, and no turn_ended", log)
	}
}

// A script of the agent's removes the session's active marker, which the extension looks
// for before it asks ralph-loop: the extension still asks at the stop (the loop file, and
// ralph-loop's copy of it, say the loop is active), so the stop is blocked and the loop goes
// on to the promise, instead of staying ACTIVE with nobody asked.
func TestMarkerRemoved(t *testing.T) {
	e := bare(t)
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	active := filepath.Join(e.State, "ralph-loop", "active")
	w := start(t, e, Script{Turns: []Turn{
		Write("Tidying up.", filepath.Join(e.Project, "tidy.sh"), "rm -f "+active+"/*\n"),
		Shell("Running it.", "sh tidy.sh"),
		Text("Done for now."),
		Shell("", "echo hi > x.txt"),
		Text("<promise>DONE</promise>"),
	}})
	w.send(t, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.ended)
	expectLoop(t, onlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 3)
	if c := w.rpc.Fake.Continuations(); len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	readFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}

// A session without a loop is left alone: nothing said, no continuation, no state; and its
// tool calls and stops run no ralph-loop at all (the extension finds no active marker for
// the session), which a ralph-loop that logs its runs shows.
func TestNoLoopUntouched(t *testing.T) {
	e := bare(t)
	runs := filepath.Join(e.Tmp, "runs.log")
	logger := filepath.Join(e.Bin, "ralph-loop-logged")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n", runs, suite.RalphLoop)
	if err := e2e.WriteProgram(logger, []byte(script)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "pi", "--binary", logger); err != nil {
		t.Fatal(err)
	}
	w := start(t, e, Script{Turns: []Turn{
		Shell("", "echo 1 > a.txt"), Shell("", "echo 2 > b.txt"), Shell("", "echo 3 > c.txt"),
		Text("All three written. <promise>DONE</promise>"),
	}})
	w.send(t, "Write a.txt, b.txt and c.txt", always)
	if n := len(w.rpc.Fake.MainRequests()); n != 4 {
		t.Errorf("%d model requests, want 4", n)
	}
	if loops, _ := w.Status(context.Background()); len(loops) != 0 {
		t.Errorf("loops: %+v", loops)
	}
	if n := len(w.rpc.Notices()); n != 0 {
		t.Errorf("notices: %q", w.rpc.Notices())
	}
	b, _ := os.ReadFile(runs)
	// pi's start, and the one question for the markers' directory (install ran the binary
	// for its version before).
	if got := strings.Count(string(b), "hook --host pi"); got != 2 {
		t.Errorf("ralph-loop ran %d times, want 2 (the session's start, the markers' directory):\n%s", got, b)
	}
}

// pi -p exits at the first agent_end: /ralph-loop there is refused with the reason, and
// nothing is armed.
func TestPrintModeRefused(t *testing.T) {
	e := bare(t)
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	fake, err := e.Configure(Script{Turns: []Turn{Text("Hello.")}})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Pi, append(Args(), "-p", `/ralph-loop "Loop here"`)...)
	cmd.Dir, cmd.Env = e.Project, e.Environ()
	out, err := cmd.CombinedOutput()
	t.Logf("pi -p: %v\n%s", err, out)
	contains(t, "pi -p's output", string(out), "pi -p (and pi --mode json) exits when the agent first stops")
	if loops, _ := e.Status(context.Background()); len(loops) != 0 {
		t.Errorf("a loop was armed: %+v", loops)
	}
	if n := len(fake.MainRequests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// Budgets: pi's usage reaches ralph-loop with the stop; a loop that never promises ends
// BUDGET_EXHAUSTED at the stop where the tokens pi recorded reach --max-tokens, or where
// pi's own cost reaches --max-cost (the second iteration each time).
func TestBudget(t *testing.T) {
	// Each request: 2,000 prompt tokens of which 1,500 cached, 300 completion: 2,300 tokens;
	// at the fake's price pi's cost of a reply is $0.0215.
	per := fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}
	for _, c := range []struct{ name, flags, reason string }{
		{"tokens", "--max-iterations 3 --max-tokens 4000", "token budget of 4,000 was reached"},
		{"cost", "--max-iterations 3 --max-cost 0.04", "cost budget of $0.04 was reached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := bare(t)
			e.ModelCost = map[string]float64{"input": 10, "output": 50, "cacheRead": 1, "cacheWrite": 10}
			if _, err := e.Install(context.Background(), "user"); err != nil {
				t.Fatal(err)
			}
			w := start(t, e, Script{WhenDone: Text("Still thinking."), Usage: &per})
			w.send(t, `/ralph-loop "Think hard" --min-tool-calls 0 `+c.flags, w.ended)
			l := onlyLoop(t, e)
			expectLoop(t, l, "BUDGET_EXHAUSTED", 2, 0)
			contains(t, "the end reason", l.EndReason, c.reason)
			if l.Tokens != 2*2300 {
				t.Errorf("%d tokens counted, want %d", l.Tokens, 2*2300)
			}
			if l.CostUSD == nil || math.Abs(*l.CostUSD-2*0.0215) > 1e-9 {
				t.Errorf("cost %v, want %v", l.CostUSD, 2*0.0215)
			}
		})
	}
}
