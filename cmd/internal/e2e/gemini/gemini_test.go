package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The scenarios below run the real Gemini CLI headless (gemini -p PROMPT --yolo) with
// ralph-loop installed by "ralph-loop install --host gemini --scope user" (its hooks and its
// command files), in a folder the user trusts.

func newEnv(t *testing.T) *Env {
	t.Helper()
	suite.Need(t)
	env, err := NewEnv(context.Background(), t.TempDir(), suite.Bin, suite.RalphLoop, "user")
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func run(t *testing.T, env *Env, r Run) *Result {
	t.Helper()
	res, err := env.Run(context.Background(), r)
	return e2e.Dumped(t, res, err, func(r *Result) { dump(t, env, r) })
}

// dump logs what a failed test needs to be understood.
func dump(t *testing.T, env *Env, r *Result) {
	t.Logf("gemini exit %d after %s; session %s", r.ExitCode, r.Elapsed.Round(time.Millisecond), r.SessionID)
	for i, q := range r.Fake.MainRequests() {
		t.Logf("request %d, last user message: %q", i+1, cut(q.LastUser(), 300))
	}
	t.Logf("stdout: %s", cut(r.Stdout, 2000))
	t.Logf("stderr: %s", cut(r.Stderr, 4000))
	if out, err := env.RalphLoopCmd(context.Background(), "log", "--session", r.SessionID); err == nil {
		t.Logf("ralph-loop log:\n%s", out)
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// prompted runs one prompt in env, against a fake serving script, and returns the run and
// its session's loop.
func prompted(t *testing.T, env *Env, prompt string, script Script) (*Result, Loop) {
	t.Helper()
	res := run(t, env, Run{Prompt: prompt, Script: script})
	return res, loopOf(t, env, res.SessionID)
}

// requests checks that the model had n requests.
func requests(t *testing.T, res *Result, n int) {
	t.Helper()
	if got := len(res.Fake.MainRequests()); got != n {
		t.Errorf("%d model requests, want %d", got, n)
	}
}

func loopOf(t *testing.T, env *Env, session string) Loop {
	t.Helper()
	return e2e.LoopOf(t, env.Status, session)
}

func expectLoop(t *testing.T, l Loop, status string, iteration, toolCalls int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "gemini", status, iteration, toolCalls)
}

// 1. Blocked without the promise, then accepted after work. /ralph-loop is typed as the
// prompt: Gemini CLI expands the installed command file before the hooks run, and the hook
// arms from the typed line after the expansion.
func TestBlockedThenAccepted(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, Run{
		Prompt: `/ralph-loop "Create x.txt holding hi" --max-iterations 5`,
		Script: Script{Turns: []Turn{
			Say("Let me think about the file first."),
			Shell("Creating it now.", "echo hi > x.txt"),
			Say("x.txt is created.\n<promise>DONE</promise>"),
		}},
	})
	if res.ExitCode != 0 {
		t.Errorf("gemini exit %d", res.ExitCode)
	}
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 1)
	if l.Task != "Create x.txt holding hi" {
		t.Errorf("task %q: the typed line was not read from the command's expansion", l.Task)
	}
	reqs := res.Fake.MainRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	// The contract reaches the model as hook context, angle brackets escaped.
	if first := reqs[0].LastUser(); !strings.Contains(first, "Create x.txt holding hi") || !strings.Contains(first, "escaped as HTML entities") {
		t.Errorf("first request lacks the contract: %q", cut(first, 2000))
	}
	// The block reason is the next user message, verbatim.
	if cont := reqs[1].LastUser(); !strings.Contains(cont, "ralph-loop: iteration 2/5") || !strings.Contains(cont, "<promise>DONE</promise>") {
		t.Errorf("second request's last user message is not the continuation: %q", cut(cont, 2000))
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt: %q %v", b, err)
	}
	for _, e := range l.Events {
		if e.Action == "turn_ended" {
			t.Errorf("the continuation was taken for a new prompt: %+v", e)
		}
	}
}

// 2. The iteration limit, with no cap of the host's: every stop is blocked until exactly the
// limit, then the loop ends there.
func TestIterationLimit(t *testing.T) {
	env := newEnv(t)
	res, l := prompted(t, env, `/ralph-loop "Think it over" --max-iterations 12 --max-stalls 0`,
		Script{After: &Turn{Text: "Pass {n}: I looked at part {n} of the problem and noted what I found there."}})
	expectLoop(t, l, "MAX_ITERATIONS_REACHED", 12, 0)
	requests(t, res, 12)
	if res.ExitCode != 0 {
		t.Errorf("gemini exit %d", res.ExitCode)
	}
}

// 3. A promise with no tool call is rejected; after real work it is accepted.
func TestZeroToolPromiseRejected(t *testing.T) {
	env := newEnv(t)
	res, l := prompted(t, env, `/ralph-loop "Write y.txt" --max-iterations 5`, Script{Turns: []Turn{
		Say("Done already.\n<promise>DONE</promise>"),
		Shell("Writing it for real.", "echo ok > y.txt"),
		Say("y.txt written.\n<promise>DONE</promise>"),
	}})
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 1)
	reqs := res.Fake.MainRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[1].LastUser(), "only 0 tool calls") {
		t.Errorf("the rejection did not reach the model")
	}
}

// 4. A promise made in an earlier iteration is not accepted later: Gemini CLI's
// prompt_response still holds it at the next stop, the transcript's current iteration does
// not.
func TestEarlierPromiseNotAcceptedLater(t *testing.T) {
	env := newEnv(t)
	res, l := prompted(t, env, `/ralph-loop "Fix a.txt" --max-iterations 6`, Script{Turns: []Turn{
		Say("Fixed.\n<promise>DONE</promise>"),             // no work: rejected
		Shell("Actually fixing it.", "echo fixed > a.txt"), // work, no promise
		Say("I still need to check the result."),           // must be blocked
		Say("Checked.\n<promise>DONE</promise>"),
	}})
	expectLoop(t, l, "PROMISE_ACCEPTED", 3, 1)
	requests(t, res, 4)
}

// 6. A session without a loop is untouched: nothing blocked, no state.
func TestNoLoop(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, Run{
		Prompt: "Say hello.",
		Script: Script{Turns: []Turn{Shell("", "echo hello"), Say("Hello. <promise>DONE</promise>")}},
	})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Hello.") {
		t.Errorf("exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
	requests(t, res, 2)
	if loops, err := env.Status(context.Background(), res.SessionID); err != nil || len(loops) != 0 {
		t.Errorf("loops %v, error %v; want none", loops, err)
	}
	if strings.Contains(res.Stderr, "ralph-loop") {
		t.Errorf("ralph-loop spoke in a session without a loop: %s", res.Stderr)
	}
}

// Gemini CLI's loop detector aborts a turn that repeats itself, after which each block
// gets another AfterAgent with no model call: the loop ends NO_PROGRESS at the first such
// stop instead of spinning until the CLI overflows its stack.
func TestLoopDetectorEndsTheLoop(t *testing.T) {
	env := newEnv(t)
	res, l := prompted(t, env, `/ralph-loop "Keep going" --max-iterations 60 --max-stalls 0`, Script{After: &Turn{Text: "Still working."}, Same: true})
	if l.Status != "NO_PROGRESS" || l.Iteration >= 60 {
		t.Errorf("loop %s at %d/%d (%s); want NO_PROGRESS before the limit", l.Status, l.Iteration, l.MaxIterations, l.EndReason)
	}
	// The turn the detector aborts has a model call (or two: the detector's own note is
	// sent), but no reply is recorded; after it, no more.
	if n := len(res.Fake.MainRequests()); n > l.Iteration+1 {
		t.Errorf("%d model requests for %d iterations: the loop spun", n, l.Iteration)
	}
	if res.ExitCode != 0 {
		t.Errorf("gemini exit %d", res.ExitCode)
	}
}

// 5. /cancel-ralph ends an active loop. A headless run ends its loop with the session
// (SessionEnd), so the loop is left active the way a dead terminal leaves it: the CLI is
// killed while the model works on iteration 2. The session is then resumed with
// /cancel-ralph typed (its command file expands to a prompt without arguments).
func TestCancel(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, Run{
		Prompt:   `/ralph-loop "Keep going" --max-iterations 10`,
		Script:   Script{Turns: []Turn{Say("Working on it.")}, HoldFrom: 2},
		KillWhen: func(f *Fake) bool { return len(f.MainRequests()) >= 2 },
	})
	if !res.Killed {
		t.Fatalf("the run ended on its own (exit %d)", res.ExitCode)
	}
	expectLoop(t, loopOf(t, env, res.SessionID), "ACTIVE", 2, 0)
	res2 := run(t, env, Run{
		Prompt:    "/cancel-ralph",
		SessionID: res.SessionID,
		Resume:    "latest",
		Script:    Script{Turns: []Turn{Say("This must not be asked.")}},
	})
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "CANCELLED", 2, 0)
	if n := len(res2.Fake.MainRequests()); n != 0 {
		t.Errorf("%d model requests after /cancel-ralph, want none (the hook answers it)", n)
	}
	if !strings.Contains(res2.Stderr, "ralph loop cancelled at iteration 2/10") {
		t.Errorf("the user was not told the loop was cancelled: %s", res2.Stderr)
	}
}

// Project scope: .gemini/settings.json and .gemini/commands are committed, so the hooks run
// the ralph-loop on PATH; in a trusted folder they arm and end a loop as at user scope.
func TestProjectScope(t *testing.T) {
	suite.Need(t)
	env, err := NewEnv(context.Background(), t.TempDir(), suite.Bin, suite.RalphLoop, "project")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(env.Project, ".gemini", "commands", "ralph-loop.toml")); err != nil {
		t.Fatalf("no project command file: %v", err)
	}
	res := run(t, env, Run{
		Prompt: `/ralph-loop "Create z.txt" --max-iterations 3`,
		Script: Script{Turns: []Turn{
			Shell("Creating z.txt.", "echo z > z.txt"),
			Say("Done.\n<promise>DONE</promise>"),
		}},
	})
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 1, 1)
}
