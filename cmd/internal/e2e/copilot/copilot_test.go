package copilot

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// continuations are the user messages the agent got after a block.
func continuations(f *fakechat.Fake) []string { return f.Continuations() }

// 1. "I'm done" without the promise is blocked and the task comes back; work and the
// promise then end the loop (see e2e.ChatSuite). The contract reached the model with the
// prompt; the user saw the loop armed and accepted; Copilot CLI overrode no block.
func TestBlockedThenPromise(t *testing.T) {
	e, res := headless.BlockedThenPromise(t)
	noOverride(t, e)
	decisions(t, e)
	first := res.Fake.MainRequests()[0].Messages
	contains(t, "the first request's prompt", first[len(first)-1].Text, `/ralph-loop "Create x.txt containing hi"`,
		"<system_reminder>", "ralph-loop: a loop is now active", "<promise>DONE</promise>")
	contains(t, "what the user saw", res.Stderr, "ralph-loop: loop armed: up to 5 iterations",
		"ralph-loop: promise accepted at iteration 2/5 after 1 tool call")
}

// 2. The promise in the first answer, with no tool call: rejected; after real work the
// promise is accepted. The agent's attempt to cancel its own loop from the shell is denied
// by the preToolUse guard (and is no work); see e2e.ChatSuite.
func TestPromiseWithoutWork(t *testing.T) {
	e, _, _ := headless.PromiseWithoutWork(t, "echo hi > x.txt")
	logEvents(t, e)
}

// 3. A loop allowed more iterations than Copilot CLI's cap of 8 consecutive stop blocks
// (tool calls in between do not reset it, nothing raises it): the arming notice states the
// effective limit, and ralph-loop ends the loop itself at the 9th stop, CUT_BY_HOST, saying
// why in status and to the user; Copilot CLI never overrides a block silently.
func TestCutByTheHostCap(t *testing.T) {
	e := newEnv(t, "user")
	res := headless.Count(t, e, 12)
	l := headless.ExpectLoop(t, e, "CUT_BY_HOST", 9, 9)
	decisions(t, e)
	contains(t, "the end reason", l.EndReason, "GitHub Copilot CLI ends a turn after 8 stop blocks in a row and this cannot be raised")
	if n := len(continuations(res.Fake)); n != 8 {
		t.Errorf("%d continuations, want 8", n)
	}
	e2e.Requests(t, res.Fake, 18)
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
		Script: fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("Starting.")}, MaxMain: 1, Hang: true},
		Prompt: `/ralph-loop "Keep going" --max-iterations 5`,
		KillAt: 2,
	})
	l := headless.ExpectLoop(t, e, "ACTIVE", 2, 0)
	res := run(t, e, Run{Prompt: "/cancel-ralph", Args: []string{"--resume=" + l.SessionID}})
	headless.ExpectLoop(t, e, "CANCELLED", 2, 0)
	if n := len(res.Fake.MainRequests()); n != 0 {
		t.Errorf("the cancel reached the model: %d requests", n)
	}
	contains(t, "what the user saw", oneLine(res.Stderr), "cancelled at iteration 2/5")
}

// 5. A session without a loop is left alone (see e2e.ChatSuite): nothing blocked, nothing
// added to the prompt, nothing said, no state.
func TestNoLoopUntouched(t *testing.T) {
	res := headless.NoLoopUntouched(t, "<system_reminder>", "ralph-loop")
	if strings.Contains(res.Stderr, "ralph-loop") {
		t.Errorf("ralph-loop spoke: %s", res.Stderr)
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
	script := func() fakechat.Script {
		return fakechat.Script{Turns: []fakechat.Turn{
			fakechat.Text("I'm done."),
			Shell("", "echo hi > x.txt"),
			fakechat.Text("x.txt is written. <promise>DONE</promise>"),
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
	headless.ExpectLoop(t, e, "PROMISE_ACCEPTED", 2, 1)
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
	if l := e2e.OnlyLoop(t, e); l.Status != "PROMISE_ACCEPTED" {
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
	planted := e2e.Planted(e.State)
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: " + planted + "\n+{}\n*** End Patch\n"
	res := run(t, e, Run{
		Script: fakechat.Script{Turns: []fakechat.Turn{
			{Text: "Editing.", Calls: []fakechat.Call{{Name: "apply_patch", Custom: true, Input: patch}}},
			fakechat.Text("I am done."),
		}, MaxMain: 3},
		Prompt: `/ralph-loop "Keep the notes" --max-iterations 5`,
		Env:    []string{"COPILOT_MODEL=gpt-5.5"},
	})
	headless.ExpectLoop(t, e, "SESSION_ENDED", 3, 0)
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
