package copilot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newEnv is a fresh world with ralph-loop installed for Copilot CLI by its own installer.
func newEnv(t *testing.T, scope string) *Env {
	t.Helper()
	need(t)
	e, err := NewEnv(t.TempDir(), copilotBin, ralphBin)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Install(context.Background(), scope); err != nil {
		t.Fatalf("install: %v", err)
	} else {
		t.Logf("install: %s", out)
	}
	return e
}

func run(t *testing.T, e *Env, r Run) *Result {
	t.Helper()
	res, err := e.Run(context.Background(), r)
	if err != nil {
		t.Fatalf("copilot: %v\nstderr: %s", err, res.Stderr)
	}
	t.Logf("copilot exit %d: %s\nstdout: %s\nstderr: %s", res.Code, res.Timeline(), res.Stdout, res.Stderr)
	return res
}

func onlyLoop(t *testing.T, e *Env) Loop {
	t.Helper()
	loops, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 1 {
		t.Fatalf("%d loops, want 1: %+v", len(loops), loops)
	}
	return loops[0]
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	if l.Status != status || l.Iteration != iteration || l.ToolCalls != tools || l.Host != "copilot" {
		t.Errorf("loop %s at %d/%d with %d tool calls on %q (%s); want %s at %d with %d on copilot",
			l.Status, l.Iteration, l.MaxIterations, l.ToolCalls, l.Host, l.EndReason, status, iteration, tools)
	}
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// continuations are the user messages the agent got after a block: the requests whose last
// message is a user message holding "ralph-loop: iteration" (Copilot CLI puts a
// <current_datetime> block before it).
func continuations(f *Fake) []string {
	var out []string
	for _, r := range f.MainRequests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "user" && strings.Contains(m.Text, "ralph-loop: iteration") {
			out = append(out, m.Text)
		}
	}
	return out
}

// 1. "I'm done" without the promise is blocked and the task comes back; work and the
// promise then end the loop. The contract reached the model with the prompt.
func TestBlockedThenPromise(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{
		Script: Script{Turns: []Turn{
			Text("I'm done."),
			Shell("Let me actually do it.", "echo hi > x.txt"),
			Text("x.txt is written. <promise>DONE</promise>"),
		}},
		Prompt: `/ralph-loop "Create x.txt containing hi" --max-iterations 5`,
	})
	expectLoop(t, onlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	c := continuations(res.Fake)
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output",
		"<promise>DONE</promise>", "TASK:\nCreate x.txt containing hi")
	first := res.Fake.MainRequests()[0].Messages
	contains(t, "the first request's prompt", first[len(first)-1].Text, `/ralph-loop "Create x.txt containing hi"`,
		"<system_reminder>", "ralph-loop: a loop is now active", "<promise>DONE</promise>")
	if b, err := os.ReadFile(filepath.Join(e.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
	contains(t, "what the user saw", res.Stderr, "ralph-loop: loop armed: up to 5 iterations",
		"ralph-loop: promise accepted at iteration 2/5 after 1 tool call")
	if n := len(res.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
}

var _ = fmt.Sprint
