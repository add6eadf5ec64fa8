package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// newEnv is a fresh world with ralph-loop installed by its own installer at scope.
func newEnv(t *testing.T, scope string) *Env {
	t.Helper()
	return e2e.Installed(t, &suite, NewEnv, scope)
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
	return e2e.OnlyLoop(t, e)
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "copilot", status, iteration, tools)
}

var contains = e2e.Contains

// continuations are the user messages the agent got after a block.
func continuations(f *Fake) []string { return f.Continuations() }

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
	noOverride(t, e)
	decisions(t, e)
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

// 2. The promise in the first answer, with no tool call: rejected; after real work the
// promise is accepted. The agent's attempt to cancel its own loop from the shell is denied
// by the preToolUse guard (and is no work).
func TestPromiseWithoutWork(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{
		Script: Script{Turns: []Turn{
			Text("<promise>DONE</promise>"),
			Shell("Let me end this loop.", "ralph-loop cancel --all"),
			Shell("Fine, doing the work.", "echo hi > x.txt"),
			Text("Now it is really done. <promise>DONE</promise>"),
		}},
		Prompt: `/ralph-loop "Create x.txt containing hi"`,
	})
	expectLoop(t, onlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	c := continuations(res.Fake)
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	logEvents(t, e)
	var denied string
	for _, m := range res.Fake.MainRequests()[2].Messages {
		if m.Role == "tool" {
			denied = m.Text
		}
	}
	contains(t, "the denied call's result", denied, "ralph-loop")
	if b, err := os.ReadFile(filepath.Join(e.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}

// 3. A loop allowed more iterations than Copilot CLI's cap of 8 consecutive stop blocks
// (tool calls in between do not reset it, nothing raises it): the arming notice states the
// effective limit, and ralph-loop ends the loop itself at the 9th stop, CUT_BY_HOST, saying
// why in status and to the user; Copilot CLI never overrides a block silently.
func TestCutByTheHostCap(t *testing.T) {
	e := newEnv(t, "user")
	var turns []Turn
	for i := 1; i <= 12; i++ {
		turns = append(turns, Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), Text(fmt.Sprintf("Iteration %d: still working.", i)))
	}
	res := run(t, e, Run{
		Script: Script{Turns: turns, WhenDone: Text("Out of script.")},
		Prompt: `/ralph-loop "Count to twelve in progress.txt" --max-iterations 12`,
	})
	l := onlyLoop(t, e)
	expectLoop(t, l, "CUT_BY_HOST", 9, 9)
	decisions(t, e)
	contains(t, "the end reason", l.EndReason, "GitHub Copilot CLI ends a turn after 8 stop blocks in a row and this cannot be raised")
	if n := len(continuations(res.Fake)); n != 8 {
		t.Errorf("%d continuations, want 8", n)
	}
	if n := len(res.Fake.MainRequests()); n != 18 {
		t.Errorf("%d agent requests, want 18", n)
	}
	contains(t, "what the user saw", oneLine(res.Stderr),
		"so the loop can run at most 9 iterations",
		"ralph-loop: loop ended at iteration 9/12: GitHub Copilot CLI ends a turn after 8 stop blocks in a row and this cannot be raised")
	noOverride(t, e)
	if b, err := os.ReadFile(filepath.Join(e.Project, "progress.txt")); err != nil || strings.Count(string(b), "\n") != 9 {
		t.Errorf("progress.txt = %q, %v; want 9 lines", b, err)
	}
}

// oneLine joins Copilot CLI's wrapped notice lines ("! text" then indented continuations).
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// 4. /cancel-ralph in the session ends its loop: the first run is killed while the model
// works on the second iteration (so no sessionEnd ends the loop: a crashed terminal); the cancel, typed in the resumed session, is refused as a
// prompt (it never reaches the model) and the user is told.
func TestCancel(t *testing.T) {
	e := newEnv(t, "user")
	run(t, e, Run{
		Script: Script{Turns: []Turn{Text("Starting.")}, MaxMain: 1, Hang: true},
		Prompt: `/ralph-loop "Keep going" --max-iterations 5`,
		KillAt: 2,
	})
	l := onlyLoop(t, e)
	expectLoop(t, l, "ACTIVE", 2, 0)
	res := run(t, e, Run{Prompt: "/cancel-ralph", Args: []string{"--resume=" + l.SessionID}})
	expectLoop(t, onlyLoop(t, e), "CANCELLED", 2, 0)
	if n := len(res.Fake.MainRequests()); n != 0 {
		t.Errorf("the cancel reached the model: %d requests", n)
	}
	contains(t, "what the user saw", oneLine(res.Stderr), "cancelled at iteration 2/5")
}

// 5. A session without a loop is left alone: nothing blocked, nothing added to the prompt,
// nothing said, no state.
func TestNoLoopUntouched(t *testing.T) {
	e := newEnv(t, "user")
	res := run(t, e, Run{
		Script: Script{Turns: []Turn{Shell("", "echo hi > x.txt"), Text("Done: x.txt. <promise>DONE</promise>")}},
		Prompt: "Create x.txt containing hi",
	})
	if res.Code != 0 || !strings.Contains(res.Stdout, "Done: x.txt. <promise>DONE</promise>") {
		t.Errorf("exit %d, stdout %q", res.Code, res.Stdout)
	}
	if strings.Contains(res.Stderr, "ralph-loop") {
		t.Errorf("ralph-loop spoke: %s", res.Stderr)
	}
	if n := len(res.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2", n)
	}
	for _, r := range res.Fake.MainRequests() {
		for _, m := range r.Messages {
			if m.Role == "user" && (strings.Contains(m.Text, "<system_reminder>") || strings.Contains(m.Text, "ralph-loop")) {
				t.Errorf("a hook added to a request: %q", m.Text)
			}
		}
	}
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("status: %v %+v; want no loops", err, loops)
	}
}

// logEvents logs the session transcripts' lines, shortened, for a failing test's reader.
func logEvents(t *testing.T, e *Env) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.UserDir(), "session-state", "*", "events.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, `{"type":"system.message"`) || strings.HasPrefix(l, `{"type":"session.usage_record"`) {
				continue
			}
			if len(l) > 400 {
				l = l[:400]
			}
			lines = append(lines, l)
		}
		t.Logf("%s:\n%s", f, strings.Join(lines, "\n"))
	}
}

// noOverride checks that Copilot CLI never ignored a block (its logs are the only place that
// says so: "Agent stop hook blocked 8 consecutive times; ending turn").
func noOverride(t *testing.T, e *Env) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.UserDir(), "logs", "*"))
	if len(files) == 0 {
		t.Errorf("no Copilot CLI logs in %s: cannot tell whether it overrode a block", filepath.Join(e.UserDir(), "logs"))
	}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "consecutive times") {
			t.Errorf("Copilot CLI overrode a stop block (%s)", f)
		}
	}
}

// 6. Installed at project scope (.github/hooks/ralph-loop.json, committed): the hooks run
// the ralph-loop found on PATH, but only in a folder the user trusts. Untrusted, Copilot CLI
// skips them silently (install's output says so); trusted as a user trusts it (Copilot CLI
// keeps that in "trustedFolders" of $COPILOT_HOME/config.json), the loop runs.
func TestProjectScope(t *testing.T) {
	e := newEnv(t, "project")
	path := []string{"PATH=" + filepath.Dir(e.RalphLoop) + string(os.PathListSeparator) + os.Getenv("PATH")}
	script := func() Script {
		return Script{Turns: []Turn{
			Text("I'm done."),
			Shell("", "echo hi > x.txt"),
			Text("x.txt is written. <promise>DONE</promise>"),
		}}
	}
	prompt := `/ralph-loop "Create x.txt containing hi" --max-iterations 3`
	res := run(t, e, Run{Script: script(), Prompt: prompt, Env: path})
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("untrusted folder: status %v %+v; want no loop (project hooks skipped)", err, loops)
	}
	if n := len(res.Fake.MainRequests()); n != 1 {
		t.Errorf("untrusted folder: %d agent requests, want 1", n)
	}
	trust, _ := json.Marshal(map[string]any{"trustedFolders": []string{e.Project}})
	if err := os.WriteFile(filepath.Join(e.UserDir(), "config.json"), trust, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(e.Project, "x.txt"))
	res = run(t, e, Run{Script: script(), Prompt: prompt, Env: path})
	expectLoop(t, onlyLoop(t, e), "PROMISE_ACCEPTED", 2, 1)
	if n := len(continuations(res.Fake)); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
	// A teammate without ralph-loop on PATH: no loop, no hook error, one line saying how to
	// get it (shown by Copilot CLI because the portable command exits 2 then).
	res = run(t, e, Run{Script: script(), Prompt: `/ralph-loop "Again" --max-iterations 3`})
	if n := len(res.Fake.MainRequests()); n != 1 {
		t.Errorf("without ralph-loop: %d agent requests, want 1 (nothing blocked)", n)
	}
	contains(t, "what the user saw without ralph-loop", oneLine(res.Stderr), "! ralph-loop: GitHub Copilot CLI's ralph-loop hooks", "not on this machine's PATH")
	if l := onlyLoop(t, e); l.Status != "PROMISE_ACCEPTED" {
		t.Errorf("without ralph-loop the old loop became %s", l.Status)
	}
}

// decisions logs ralph-loop's decisions (sessions/<id>/events.jsonl in its state), where a
// stop that waited for the lagging transcript says so ("waited … for the transcript").
func decisions(t *testing.T, e *Env) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.State, "ralph-loop", "sessions", "*", "events.jsonl"))
	var all strings.Builder
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			all.Write(b)
		}
	}
	t.Logf("decisions:\n%s", all.String())
	return all.String()
}

// TestGuardApplyPatch: Copilot CLI offers a gpt- model its freeform apply_patch tool, whose
// toolArgs reach the hook as the patch itself, a string. A patch whose second file is in the
// loop's state directory is denied as a whole: nothing is written, and the loop goes on
// blocking each stop until copilot exits on the fake's error (copilot -p ends the session
// then, and the loop with it).
func TestGuardApplyPatch(t *testing.T) {
	e := newEnv(t, "user")
	planted := filepath.Join(e.State, "ralph-loop", "sessions", "planted", "loop.json")
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: " + planted + "\n+{}\n*** End Patch\n"
	res := run(t, e, Run{
		Script: Script{Turns: []Turn{
			{Text: "Editing.", Calls: []fakechat.Call{{Name: "apply_patch", Custom: true, Input: patch}}},
			Text("I am done."),
		}, MaxMain: 3},
		Prompt: `/ralph-loop "Keep the notes" --max-iterations 5`,
		Env:    []string{"COPILOT_MODEL=gpt-5.5"},
	})
	expectLoop(t, onlyLoop(t, e), "SESSION_ENDED", 3, 0)
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the patch reached the state directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("a denied patch was applied in part: %v", err)
	}
	reqs := res.Fake.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d agent requests, want at least 2", len(reqs))
	}
	var denied string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			denied = m.Text
		}
	}
	contains(t, "the denied patch's result", denied, "ralph-loop", "apply_patch")
	if c := continuations(res.Fake); len(c) != 2 {
		t.Errorf("%d continuations, want 2 (each stop after the denied patch blocked)", len(c))
	}
}
