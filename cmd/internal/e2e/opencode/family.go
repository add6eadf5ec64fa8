package opencode

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// The scenarios every CLI of opencode's family runs, each through its Family: a package's
// TestX calls f.X with what differs (its words, its sizes).

// BlockedThenPromise is the scenario: /ralph-loop run as a command (as the TUI runs it):
// "I'm done" without the promise is blocked and the task comes back; work and the promise
// then end the loop. The contract reached the model with the command, and the user saw each
// step.
func (f Family) BlockedThenPromise(t *testing.T) {
	w := f.World(t, nil, e2e.Done(Shell), "user")
	w.Start(t, `!/ralph-loop "Create x.txt containing `+"`hi`"+`" --max-iterations 5`, w.Ended)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	w.NoErrors(t)
	c := w.Srv.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	e2e.Contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output",
		"<promise>DONE</promise>", "TASK:\nCreate x.txt containing `hi`")
	e2e.Contains(t, "the first request's prompt", e2e.LastUser(t, w.Srv.Fake, 0), "The ralph-loop hook reads this command's arguments",
		"ralph-loop: a loop is now active", "<promise>DONE</promise>", "Create x.txt containing `hi`")
	e2e.ReadFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
	w.Saw(t, "loop armed: up to 5 iterations", "promise accepted at iteration 2/5 after 1 tool call")
	if n := len(w.Srv.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
}

// PromiseWithoutWork is the scenario: the loop is armed by prompt, with ralph-loop
// installed at scopes (see World). The promise in the first answer, with no tool call, is
// rejected; the agent's attempt to cancel its own loop from the shell is denied (its result
// says why, and it is no work); after real work the promise is accepted.
func (f Family) PromiseWithoutWork(t *testing.T, prompt string, scopes ...string) {
	w := f.World(t, nil, Script{Turns: []Turn{
		Text("<promise>DONE</promise>"),
		Shell("Let me end this loop.", "ralph-loop cancel --all"),
		Shell("Fine, doing the work.", "echo hi > x.txt"),
		Text("Now it is really done. <promise>DONE</promise>"),
	}}, scopes...)
	w.Start(t, prompt, w.Ended)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	c := w.Srv.Fake.Continuations()
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	e2e.Contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	reqs := w.Srv.Fake.MainRequests()
	var denied string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			denied = m.Text
		}
	}
	e2e.Contains(t, "the denied call's result", denied, "ralph-loop")
	e2e.ReadFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}

// IterationLimit is the scenario: a loop that never promises ends at --max-iterations n,
// with the reason in status and shown to the user; the CLI has no cap of its own, so n
// iterations run.
func (f Family) IterationLimit(t *testing.T, n int) {
	var turns []Turn
	want := ""
	for i := 1; i <= n; i++ {
		turns = append(turns, Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), Text(fmt.Sprintf("Iteration %d: still working.", i)))
		want += fmt.Sprintf("%d\n", i)
	}
	w := f.World(t, nil, Script{Turns: turns, WhenDone: Text("Out of script.")}, "user")
	w.Start(t, fmt.Sprintf(`!/ralph-loop "Count to %d in progress.txt" --max-iterations %d`, n, n), w.Ended)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "MAX_ITERATIONS_REACHED", n, n)
	if got := len(w.Srv.Fake.Continuations()); got != n-1 {
		t.Errorf("%d continuations, want %d", got, n-1)
	}
	if got := len(w.Srv.Fake.MainRequests()); got != 2*n {
		t.Errorf("%d agent requests, want %d", got, 2*n)
	}
	w.Saw(t, fmt.Sprintf("%d/%d", n, n))
	e2e.ReadFile(t, filepath.Join(w.Project, "progress.txt"), want)
}

// Cancel is the scenario: /cancel-ralph between turns ends the loop. The loop's turn ends
// on a model error, which is not a stop: the loop waits for the user, who is told so. The
// cancel, run as the command, is answered by ralph-loop and dropped by the plugin before it
// becomes a message: no model request, the answer a toast.
func (f Family) Cancel(t *testing.T) {
	w := f.World(t, nil, Script{Turns: []Turn{
		Shell("Starting.", "echo 1 > step.txt"),
		Text("Step one done."),
		Shell("", "echo 2 >> step.txt"),
	}, MaxMain: 3}, "user")
	id := w.Start(t, `!/ralph-loop "Keep going" --max-iterations 5`, w.Failed)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "ACTIVE", 2, 2)
	if n := len(w.Srv.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1 (none after the error)", n)
	}
	w.Saw(t, "the turn ended on an error", "the loop is still active at iteration 2/5 and goes on with your next message")
	w.Srv.Fake.SetScript(Script{Turns: []Turn{Text("The loop is cancelled.")}})
	requests := len(w.Srv.Fake.MainRequests())
	w.Send(t, id, "!/cancel-ralph ", w.Ended)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "CANCELLED", 2, 2)
	w.Saw(t, "ralph loop cancelled at iteration 2/5")
	if n := len(w.Srv.Fake.MainRequests()) - requests; n != 0 {
		t.Errorf("%d model requests for /cancel-ralph, want none", n)
	}
	if n := len(w.Srv.Fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// RunRefusesLoop is the scenario: the CLI's "run" exits at (or soon after) the agent's
// first stop, so a loop cannot go on there: /ralph-loop, run as the command or typed, is
// refused with the reason (the agent is asked to pass it on), and nothing is armed.
func (f Family) RunRefusesLoop(t *testing.T, reason string) {
	e := f.Env(t)
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--command", "ralph-loop", "Create x.txt"}, {"/ralph-loop", "Create-x.txt"}} {
		out, fake, err := e.RunCLI(context.Background(), Script{Turns: []Turn{Text("ralph-loop says a loop cannot run under " + e.Host + " run.")}}, args...)
		if err != nil {
			t.Fatalf("%s run %q: %v\n%s", e.Host, args, err, out)
		}
		e2e.Contains(t, "what the agent got", e2e.LastUser(t, fake, 0), reason, "Tell the user exactly the following")
		if n := len(fake.MainRequests()); n != 1 {
			t.Errorf("%s run %q: %d agent requests, want 1", e.Host, args, n)
		}
	}
	loops, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 0 {
		t.Errorf("%d loops armed under %s run: %+v", len(loops), e.Host, loops)
	}
}

// perTurn is what each agent request reports in the budget scenarios: 2,000 prompt tokens
// of which 1,500 cached, and 300 completion tokens, which the CLI records as 500 input,
// 1,500 cache reads and 300 output: 2,300 tokens.
var perTurn = fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}

const turnTokens = 2300

// price is the fake model's price in the CLI's config: its own cost of a turn is $0.0215
// (500 x 10 + 1,500 x 1 + 300 x 50, per million).
var price = map[string]float64{"input": 10, "output": 50, "cache_read": 1, "cache_write": 10}

const turnCost = 0.0215

// Budget is the scenario: the CLI's usage reaches ralph-loop: a loop that never promises
// ends BUDGET_EXHAUSTED at the stop where the tokens the CLI recorded on the iteration's
// messages reach --max-tokens (the second iteration: 4,600 >= 4,000), or where its own cost
// reaches --max-cost (the second: $0.043 >= $0.04). A model the CLI has no price for (it
// reports a cost of 0) is not free (its cost stays unknown, counted under a cost budget at
// the highest prices ralph-loop knows), and the loop goes on: never paused by a model's
// name, which anything can write. A budget never reached changes nothing. (Each run starts
// "serve": the iterations are kept few.)
func (f Family) Budget(t *testing.T) {
	for _, c := range []struct {
		name, flags string
		cost        map[string]float64
		status      string
		iteration   int
		perTurn     float64 // cost; -1: unknown
		reason      string
	}{
		{"tokens", "--max-iterations 3 --max-tokens 4000", nil, "BUDGET_EXHAUSTED", 2, -1, "token budget of 4,000 was reached"},
		{"cost", "--max-iterations 3 --max-cost 0.04", price, "BUDGET_EXHAUSTED", 2, turnCost, "cost budget of $0.04 was reached"},
		{"unknown price", "--max-iterations 2 --max-cost 5", nil, "MAX_ITERATIONS_REACHED", 2, -1, "iteration limit"},
		{"never reached", "--max-iterations 2 --max-tokens 1000000 --max-cost 50", price, "MAX_ITERATIONS_REACHED", 2, turnCost, "iteration limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := f.World(t, func(e *Env) { e.ModelCost = c.cost }, Script{WhenDone: Text("Still thinking."), Usage: &perTurn}, "user")
			w.Start(t, `!/ralph-loop "Think hard" --min-tool-calls 0 `+c.flags, w.Ended)
			l := e2e.OnlyLoop(t, w.Env)
			it := c.iteration
			w.Expect(t, l, c.status, it, 0)
			e2e.Contains(t, "the end reason", l.EndReason, c.reason)
			if n := len(w.Srv.Fake.MainRequests()); n != it {
				t.Errorf("%d agent requests, want %d", n, it)
			}
			if want := int64(it * turnTokens); l.Tokens != want {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			switch {
			case c.perTurn < 0 && l.CostUSD != nil:
				t.Errorf("cost %v, want unknown", *l.CostUSD)
			case c.perTurn >= 0 && (l.CostUSD == nil || math.Abs(*l.CostUSD-float64(it)*c.perTurn) > 1e-9):
				t.Errorf("cost %v, want %v", l.CostUSD, float64(it)*c.perTurn)
			}
		})
	}
}

// TUI is the scenario: the interactive TUI, in tmux, as a user runs it: /ralph-loop typed,
// "I'm done" blocked and the task sent back (on the screen, in the transcript), then work
// and the promise accepted; the user sees ralph-loop's notices as toasts.
func (f Family) TUI(t *testing.T) {
	e := f.Env(t)
	if err := tmux.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	if _, err := e.Install(ctx, "user"); err != nil {
		t.Fatal(err)
	}
	s, fake, err := e.StartTUI(ctx, e2e.Done(Shell), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	defer s.Kill()
	// The TUI can take minutes to draw on a loaded machine.
	if _, err := s.WaitFor(ctx, "ctrl+p", 3*time.Minute); err != nil {
		screen, _ := s.Screen(ctx, 0)
		t.Fatalf("%v; the screen:\n%s", err, tmux.Trim(screen))
	}
	if err := s.Type(ctx, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	// The loop's end is read from ralph-loop's state; meanwhile the screen is watched for
	// ralph-loop's notices (toasts, shown for a few seconds each).
	toasts := []string{"loop armed: up to 5 iterations", "iteration 2/5: no promise yet", "promise accepted at iteration 2/5"}
	seen := map[string]bool{}
	var screen string
	deadline := time.Now().Add(90 * time.Second)
	var ended time.Time
	for ended.IsZero() || time.Since(ended) < 8*time.Second {
		// The deadline is the loop's: once it has ended, the toasts have their 8 s.
		if ended.IsZero() && time.Now().After(deadline) {
			loops, _ := e.Status(ctx)
			t.Fatalf("the loop did not end in 90 s: %+v; the screen:\n%s", loops, tmux.Trim(screen))
		}
		if screen, err = s.Screen(ctx, 0); err != nil {
			t.Fatal(err)
		}
		for _, ts := range toasts {
			seen[ts] = seen[ts] || tmux.Contains(screen, ts)
		}
		if loops, _ := e.Status(ctx); ended.IsZero() && len(loops) == 1 && loops[0].Status != "ACTIVE" {
			ended = time.Now()
		}
		if all(seen, toasts) {
			break
		}
		time.Sleep(tmux.Poll) // a screen and a status: two processes each time
	}
	t.Logf("toasts seen: %v", seen)
	// The first and the last notice are shown; one that comes while another is shown may give
	// way to the next (the block is in the transcript on the screen anyway).
	for _, ts := range []string{toasts[0], toasts[2]} {
		if !seen[ts] {
			t.Errorf("the toast %q was never on the screen", ts)
		}
	}
	if !tmux.Contains(screen, "Your stop was blocked: the completion marker was not in your output") {
		t.Errorf("the continuation is not on the screen")
	}
	t.Logf("the screen:\n%s", tmux.Trim(screen))
	e.Expect(t, e2e.OnlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	if n := len(fake.Continuations()); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	e2e.ReadFile(t, filepath.Join(e.Project, "x.txt"), "hi\n")
}

func all(seen map[string]bool, keys []string) bool {
	for _, k := range keys {
		if !seen[k] {
			return false
		}
	}
	return true
}

// TUIMessageMidLoop is the scenario: a message typed while a command of the loop runs (see
// MessageMidLoop).
func (f Family) TUIMessageMidLoop(t *testing.T) {
	e := f.Env(t)
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	MessageMidLoop(t, e)
}
