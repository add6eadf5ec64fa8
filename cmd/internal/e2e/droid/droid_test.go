package droid

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// newEnv is a fresh world with ralph-loop installed by its own installer, which finds
// Factory Droid on PATH without --host.
func newEnv(t *testing.T, scope string) *Env {
	t.Helper()
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Install(context.Background(), scope)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	t.Logf("install: %s", out)
	contains(t, "install's output", out, "installed for Factory Droid")
	return e
}

func run(t *testing.T, e *Env, r Run) *Result {
	t.Helper()
	res, err := e.Run(context.Background(), r)
	if err != nil {
		t.Fatalf("droid: %v\nstderr: %s", err, res.Stderr)
	}
	t.Logf("droid exit %d, %d requests\nstdout (tail): %s\nstderr: %s", res.Code, len(res.Fake.Requests()), tail(res.Stdout, 2000), res.Stderr)
	return res
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var contains = e2e.Contains

// 1. "I'm done" without the promise is blocked and the task comes back as the next user
// message; work and the promise then end the loop (see e2e.ChatSuite). The command file's
// expansion armed the loop, and the contract reached the model with it.
func TestBlockedThenPromise(t *testing.T) {
	_, res := headless.BlockedThenPromise(t)
	var first strings.Builder
	for _, m := range res.Fake.MainRequests()[0].Messages {
		first.WriteString(m.Text + "\n")
	}
	contains(t, "the first request", first.String(), "[ralph-loop command /ralph-loop]", "ralph-loop: a loop is now active",
		"Create x.txt containing hi")
}

// 2. The promise in the first answer, with no tool call: rejected; the agent's attempt to
// cancel its own loop from the shell is denied (and is no work); after real work the
// promise is accepted (see e2e.ChatSuite).
func TestPromiseWithoutWork(t *testing.T) { headless.PromiseWithoutWork(t, "echo hi > x.txt") }

// 3. Never a promise: the loop runs exactly its --max-iterations, past the 8 blocks in a row
// other hosts allow (Factory Droid has no cap of its own).
func TestMaxIterations(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{RPC: true,
		Script:  fakechat.Script{WhenDone: fakechat.Text("Thinking, turn {n}.")},
		Prompts: []string{`/ralph-loop "Think it through" --max-iterations 10 --min-tool-calls 0 --max-stalls 0`},
	})
	headless.ExpectLoop(t, e, "MAX_ITERATIONS_REACHED", 10, 0)
	if n := len(res.Fake.Continuations()); n != 9 {
		t.Errorf("%d continuations, want 9", n)
	}
	e2e.Requests(t, res.Fake, 10)
}

// 4. /cancel-ralph ends an active loop. A session's loop is left active the way a dead
// terminal leaves it: droid is killed while the model works on iteration 2. The session is
// then loaded again and /cancel-ralph typed: the hook refuses it before the model sees it.
func TestCancel(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{RPC: true,
		Script:   fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("Starting.")}, MaxMain: 1, Hang: true},
		Prompts:  []string{`/ralph-loop "Keep going" --max-iterations 5`},
		KillWhen: func(f *fakechat.Fake) bool { return len(f.MainRequests()) >= 2 },
	})
	if !res.Killed || res.SessionID == "" {
		t.Fatalf("the run ended on its own (exit %d), session %q", res.Code, res.SessionID)
	}
	headless.ExpectLoop(t, e, "ACTIVE", 2, 0)
	res = run(t, e, Run{RPC: true, Session: res.SessionID,
		Script:  fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("This must not be asked.")}},
		Prompts: []string{"/cancel-ralph"},
	})
	headless.ExpectLoop(t, e, "CANCELLED", 2, 0)
	if n := len(res.Fake.MainRequests()); n != 0 {
		t.Errorf("%d model requests after /cancel-ralph, want none (the hook answers it); messages:\n%s", n, res.Messages())
	}
	contains(t, "what the session showed", res.Messages()+res.Stdout, "ralph loop cancelled at iteration 2/5")
}

// 4b. /cancel-ralph typed while the agent works: Factory Droid hands it to the agent within
// the turn (after the running tool's result) and never to the prompt hook. The stop then
// reads it in the transcript and is let through, the loop paused and the user told to
// confirm; /cancel-ralph typed at the idle prompt ends it.
func TestCancelWhileWorking(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{RPC: true,
		Script: fakechat.Script{Turns: []fakechat.Turn{
			Execute("", "sleep 3"),
			fakechat.Text("Still working."),
		}, WhenDone: fakechat.Text("More work, turn {n}.")},
		Prompts:    []string{`/ralph-loop "Keep going" --max-iterations 6 --min-tool-calls 0 --max-stalls 0`, "/cancel-ralph"},
		During:     "/cancel-ralph",
		DuringWhen: func(f *fakechat.Fake) bool { return len(f.MainRequests()) >= 1 },
	})
	headless.ExpectLoop(t, e, "CANCELLED", 1, 1)
	if n := len(res.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2 (the tool call, the answer after it)", n)
	}
	contains(t, "what the session showed", res.Stdout, "loop paused at iteration 1/6", "ralph loop cancelled at iteration 1/6")
}

// 5. An API error ends the turn, and Factory Droid still fires Stop, with no reply in the
// transcript: the loop ends NO_PROGRESS instead of blocking on through every iteration.
func TestAPIErrorEndsTheLoop(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{RPC: true,
		Script:  fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("Starting.")}, MaxMain: 1},
		Prompts: []string{`/ralph-loop "Keep going" --max-iterations 5`},
	})
	headless.ExpectLoop(t, e, "NO_PROGRESS", 2, 0)
	if n := len(res.Fake.MainRequests()); n > 3 {
		t.Errorf("%d agent requests, want at most 3", n)
	}
}

// 6. A session without a loop is left alone, in plain droid exec and in stream-jsonrpc:
// nothing blocked, nothing added to the prompt, no state.
func TestNoLoopUntouched(t *testing.T) {
	for _, rpc := range []bool{false, true} {
		e := newEnv(t, "user")
		res := run(t, e, Run{RPC: rpc,
			Script:  fakechat.Script{Turns: []fakechat.Turn{Execute("", "echo hi > x.txt"), fakechat.Text("Done: x.txt. <promise>DONE</promise>")}},
			Prompts: []string{"Create x.txt containing hi"},
		})
		if res.Code != 0 || (!rpc && strings.TrimSpace(res.Stdout) != "Done: x.txt. <promise>DONE</promise>") {
			t.Errorf("rpc %v: exit %d, stdout %q", rpc, res.Code, res.Stdout)
		}
		if n := len(res.Fake.MainRequests()); n != 2 {
			t.Errorf("rpc %v: %d agent requests, want 2", rpc, n)
		}
		for _, r := range res.Fake.MainRequests() {
			for _, m := range r.Messages {
				if strings.Contains(m.Text, "ralph-loop") {
					t.Errorf("rpc %v: a hook added to a request: %q", rpc, m.Text)
				}
			}
		}
		if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
			t.Errorf("rpc %v: status: %v %+v; want no loops", rpc, err, loops)
		}
	}
}

// 7. Plain droid exec fires no prompt hook: "/ralph-loop …" expands, the model reads the
// command's text (which tells it no loop started unless the hook's context is there), and
// no loop is armed; the stop goes through.
func TestExecStartsNoLoop(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{
		Script:  fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("No loop was started: the ralph-loop hook's context is not here.")}},
		Prompts: []string{`/ralph-loop "Create x.txt containing hi" --max-iterations 3`},
	})
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("status: %v %+v; want no loops", err, loops)
	}
	if n := len(res.Fake.MainRequests()); n != 1 {
		t.Fatalf("%d agent requests, want 1", n)
	}
	var last string
	for _, m := range res.Fake.MainRequests()[0].Messages {
		if m.Role == "user" {
			last = m.Text
		}
	}
	contains(t, "the request", last, "[ralph-loop command /ralph-loop]", "If there is no such context", `/ralph-loop "Create x.txt containing hi" --max-iterations 3`)
}

// 8. The guard on Factory Droid's file tools: while a loop runs, Create and Edit of the hooks
// file that runs ralph-loop are denied, and the file is left as it was; writing a file of the
// project is not.
func TestGuardFileTools(t *testing.T) {
	e := newEnv(t, "user")
	hooks := filepath.Join(e.Home, ".factory", "hooks.json")
	before := e2e.Read(t, hooks)
	res := run(t, e, Run{RPC: true,
		Script: fakechat.Script{Turns: []fakechat.Turn{
			fakechat.Tool("Turning the hooks off.", "Create", map[string]any{"file_path": hooks, "content": "{}\n"}),
			fakechat.Tool("Then editing them.", "Edit", map[string]any{"file_path": hooks, "old_str": "ralph-loop", "new_str": "true"}),
			fakechat.Tool("Doing the work.", "Create", map[string]any{"file_path": filepath.Join(e.Project, "x.txt"), "content": "hi\n"}),
			fakechat.Text("Done. <promise>DONE</promise>"),
		}},
		Prompts: []string{`/ralph-loop "Create x.txt containing hi" --max-iterations 3`},
	})
	headless.ExpectLoop(t, e, "PROMISE_ACCEPTED", 1, 1)
	if after, _ := os.ReadFile(hooks); string(after) != string(before) {
		t.Errorf("the hooks file changed:\n%s", after)
	}
	if b, err := os.ReadFile(filepath.Join(e.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
	reqs := res.Fake.MainRequests()
	for _, i := range []int{1, 2} {
		var result string
		for _, m := range reqs[i].Messages {
			if m.Role == "tool" {
				result = m.Text
			}
		}
		contains(t, "the denied call's result", result, "ralph-loop")
	}
}

// 9. Installed at project scope (.factory/hooks.json and .factory/commands, committed): the
// hooks run the ralph-loop found on PATH, and Factory Droid loads the project's hooks (see
// e2e.ChatSuite).
func TestProjectScope(t *testing.T) {
	headless.ProjectScope(t, filepath.Join(".factory", "commands", "ralph-loop.md"))
}
