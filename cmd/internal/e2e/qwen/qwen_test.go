package qwen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// newEnv is a fresh world with ralph-loop installed by its own installer at scope.
var newEnv = headless.Installed

var contains = e2e.Contains

// continuations are the user messages the agent got after a block.
func continuations(f *fakechat.Fake) []string { return f.Continuations() }

// noOverride checks that Qwen Code never overrode a block: ralph-loop ended every loop
// itself.
func noOverride(t *testing.T, res *e2e.Ran) {
	t.Helper()
	if strings.Contains(res.Stderr, "consecutive times; overriding") {
		t.Error("Qwen Code overrode a Stop hook block")
	}
}

// 1. "I'm done" without the promise is blocked and the task comes back; work and the
// promise then end the loop (see e2e.ChatSuite). The contract reached the model with the
// prompt, escaped; the user saw the loop go on and end; Qwen Code overrode no block.
func TestBlockedThenPromise(t *testing.T) {
	_, res := headless.BlockedThenPromise(t)
	noOverride(t, res)
	first := res.Fake.MainRequests()[0].Messages
	// The installed command file expanded the prompt; the hook's contract came with it.
	contains(t, "the first request's prompt", first[len(first)-1].Text, "The ralph-loop hook reads this command's arguments",
		"Create x.txt containing hi", "&lt;promise&gt;DONE&lt;/promise&gt;", "escaped as HTML entities")
	contains(t, "what the user saw", res.Stderr, "ralph-loop: iteration 2/5: no promise yet, continuing",
		"ralph-loop: promise accepted at iteration 2/5 after 1 tool call")
}

// 2. Never a promise: the loop runs exactly its --max-iterations, beyond Qwen Code's own
// cap of 8 (install raises it), with a tool call in every iteration.
func TestMaxIterationsBeyondTheHostCap(t *testing.T) {
	e := newEnv(t, "user")
	res := headless.Count(t, e, 10)
	headless.ExpectLoop(t, e, "MAX_ITERATIONS_REACHED", 10, 10)
	noOverride(t, res)
	if n := len(continuations(res.Fake)); n != 9 {
		t.Errorf("%d continuations, want 9", n)
	}
	e2e.Requests(t, res.Fake, 20)
	contains(t, "what the user saw", res.Stderr, "ralph-loop: iteration limit reached (10/10) without the promise")
	if strings.Contains(res.Stderr, "Note:") {
		t.Error("a cap warning although install raised the cap")
	}
}

// 3. Without the raised cap (a user who removed it) Qwen Code would override the 8th block
// of the turn even with tool calls in between: ralph-loop ends the loop itself at the 8th
// stop, CUT_BY_HOST, and says why, in status and to the user. Its first block already told
// the user the effective limit (the arming notice is not shown by Qwen Code).
func TestCutByTheHostCap(t *testing.T) {
	e := newEnv(t, "user")
	data := e2e.Read(t, e.UserSettings())
	// The user takes the line out by hand (the file has comments: it is not re-encoded).
	capLine := regexp.MustCompile(`,?\s*"stopHookBlockingCap": *[0-9]+`)
	if !capLine.Match(data) {
		t.Fatalf("install did not raise the cap: %s", data)
	}
	data = capLine.ReplaceAll(data, nil)
	if err := os.WriteFile(e.UserSettings(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := headless.Count(t, e, 10)
	l := headless.ExpectLoop(t, e, "CUT_BY_HOST", 8, 8)
	contains(t, "the end reason", l.EndReason, "Qwen Code ends a turn after 7 stop blocks in a row (stopHookBlockingCap=8)")
	noOverride(t, res)
	if n := len(continuations(res.Fake)); n != 7 {
		t.Errorf("%d continuations, want 7", n)
	}
	contains(t, "what the user saw", res.Stderr,
		"ralph-loop: iteration 2/10: no promise yet, continuing. Note: Qwen Code ends a turn after 7 stop blocks in a row (stopHookBlockingCap=8), so this loop can run at most 8 iterations in one turn",
		"ralph-loop: loop ended at iteration 8/10: Qwen Code ends a turn after 7 stop blocks in a row (stopHookBlockingCap=8)")

	// The variable wins over the settings, as in Qwen Code: a cap of 4 ends it at 4.
	e2 := newEnv(t, "user")
	res = run(t, e2, Run{
		Script: fakechat.Script{WhenDone: fakechat.Text("Thinking, turn {n}.")},
		Prompt: `/ralph-loop "Think it through" --max-iterations 10 --min-tool-calls 0`,
		Env:    []string{"QWEN_CODE_STOP_HOOK_BLOCK_CAP=4"},
	})
	l = headless.ExpectLoop(t, e2, "CUT_BY_HOST", 4, 0)
	contains(t, "the end reason", l.EndReason, "(QWEN_CODE_STOP_HOOK_BLOCK_CAP=4)")
	noOverride(t, res)
}

// 4. The promise in the first answer, with no tool call: rejected; the agent's attempt to
// cancel its own loop from the shell is denied (and is no work); after real work (a
// command that fails counts: it ran) the promise is accepted (see e2e.ChatSuite).
func TestPromiseWithoutWork(t *testing.T) {
	_, res, denied := headless.PromiseWithoutWork(t, "echo hi > x.txt; exit 3")
	contains(t, "what the user saw", res.Stderr, "promise rejected, no real work yet (0/1 tool calls)")
	if strings.Contains(denied, "Exit Code") {
		t.Errorf("the agent's ralph-loop cancel ran: %q", denied)
	}
}

// 5. /cancel-ralph in the session ends its loop: the first run's turn ends on an API error
// with the loop still active; the cancel, typed in the resumed session, never reaches the
// model: the hook refuses it at UserPromptExpansion, before its command file is expanded,
// and Qwen Code prints the confirmation ("UserPromptExpansion blocked: ralph loop
// cancelled …"), exiting 1 as for any command a hook refused.
func TestCancel(t *testing.T) {
	e := newEnv(t, "user")
	const id = "7d1e8a52-3c0b-4f7e-9a61-2b5c8d4e6f01"
	res := run(t, e, Run{
		Script: fakechat.Script{Turns: []fakechat.Turn{fakechat.Text("Starting.")}, MaxMain: 1},
		Prompt: `/ralph-loop "Keep going" --max-iterations 5`,
		Args:   []string{"--session-id", id},
	})
	headless.ExpectLoop(t, e, "ACTIVE", 2, 0)
	if n := len(res.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests in the first run, want 2 (the answer, then the one refused)", n)
	}
	res = run(t, e, Run{Prompt: "/cancel-ralph", Args: []string{"--resume", id}})
	headless.ExpectLoop(t, e, "CANCELLED", 2, 0)
	if n := len(res.Fake.MainRequests()); n != 0 {
		t.Errorf("the cancel reached the model: %d requests", n)
	}
	if strings.TrimSpace(res.Stdout) != "" {
		t.Errorf("the refused prompt: stdout %q; want nothing", res.Stdout)
	}
	contains(t, "what the user saw", res.Stderr, "ralph loop cancelled at iteration 2/5")
}

// 6. A session without a loop is left alone (see e2e.ChatSuite): nothing blocked, nothing
// added to the prompt, nothing said, no state.
func TestNoLoopUntouched(t *testing.T) {
	res := headless.NoLoopUntouched(t, "<qwen:user-prompt-submit-context>", "ralph-loop: ")
	if res.Stdout != "Done: x.txt. <promise>DONE</promise>\n" {
		t.Errorf("stdout %q; want the answer alone", res.Stdout)
	}
	if strings.Contains(res.Stderr, "ralph-loop:") {
		t.Errorf("ralph-loop spoke: %s", res.Stderr)
	}
}

// 7. Installed at project scope (.qwen/settings.json, committed): the hooks run the
// ralph-loop found on PATH, and Qwen Code loads the project's hooks (folder trust is off by
// default).
func TestProjectScope(t *testing.T) {
	headless.ProjectScope(t, filepath.Join(".qwen", "commands", "ralph-loop.md"))
}
