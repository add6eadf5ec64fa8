package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// family is opencode's own flavour of the family's suite (see Family).
var family = Family{Suite: &suite, Flavor: Opencode}

func newWorld(t *testing.T, script Script, scopes ...string) *World {
	t.Helper()
	return family.World(t, nil, script, scopes...)
}

// newWorldModel is newWorld with the fake's model named model (see Env.Model).
func newWorldModel(t *testing.T, model string, script Script, scopes ...string) *World {
	t.Helper()
	return family.World(t, func(e *Env) { e.Model = model }, script, scopes...)
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "opencode", status, iteration, tools)
}

var contains = e2e.Contains

// continuations are the user messages the agent got after a block.
func continuations(f *Fake) []string { return f.Continuations() }

// 1. The family's scenarios (see Family), on opencode: 1 BlockedThenPromise; 2
// PromiseWithoutWork, with /ralph-loop sent as plain text (POST prompt_async, no expansion),
// which arms the loop too; 3 IterationLimit, 12 iterations; 4 Cancel; 11 RunRefusesLoop.
func TestBlockedThenPromise(t *testing.T) { family.BlockedThenPromise(t) }

func TestTypedPromiseWithoutWork(t *testing.T) {
	family.PromiseWithoutWork(t, `/ralph-loop "Create x.txt containing hi"`, "user")
}

func TestIterationLimit(t *testing.T) { family.IterationLimit(t, 12) }

func TestCancel(t *testing.T) { family.Cancel(t) }

func TestRunRefusesLoop(t *testing.T) {
	family.RunRefusesLoop(t, "opencode run exits when the agent first stops")
}

// 5. A session without a loop is left alone: nothing added to the prompt, nothing said,
// no continuation, no state.
func TestNoLoopUntouched(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Shell("", "echo hi > x.txt"), Text("Done: x.txt. <promise>DONE</promise>")}}, "user")
	w.Start(t, "Create x.txt containing hi", Always)
	if n := len(w.Srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2", n)
	}
	if got := e2e.LastUser(t, w.Srv.Fake, 0); got != "Create x.txt containing hi" {
		t.Errorf("the prompt reached the model as %q", got)
	}
	if s := w.Toasts(); s != "" {
		t.Errorf("ralph-loop spoke: %s", s)
	}
	w.NoErrors(t)
	e2e.NoLoops(t, w.Env)
}

// 6. A command ralph-loop refuses (a misspelt flag) never reaches the agent as a task: the
// agent is asked to tell the user why, the user sees the reason, and no loop starts.
func TestRefusedCommand(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("ralph-loop did not start: --max-iter is not a flag.")}}, "user")
	w.Start(t, `!/ralph-loop "Do it" --max-iter 3`, Always)
	e2e.NoLoops(t, w.Env)
	contains(t, "what the agent got", e2e.LastUser(t, w.Srv.Fake, 0), "Tell the user exactly the following", "--max-iter", "--max-iterations")
	if strings.Contains(e2e.LastUser(t, w.Srv.Fake, 0), "The ralph-loop hook reads this command's arguments") {
		t.Errorf("the command's template reached the agent")
	}
	w.Saw(t, "--max-iter")
	if n := len(w.Srv.Fake.MainRequests()); n != 1 {
		t.Errorf("%d agent requests, want 1", n)
	}
}

// 7. The project's plugin (committed; it runs the ralph-loop on PATH) runs a loop, and with
// the user's plugin loaded too, only one of them acts: one continuation per stop, each
// event counted once.
func TestProjectAndUserScope(t *testing.T) {
	for _, scopes := range [][]string{{"project"}, {"project", "user"}} {
		t.Run(strings.Join(scopes, "+"), func(t *testing.T) {
			suite.Need(t)
			w := newWorld(t, Script{Turns: []Turn{
				Shell("", "echo 1 >> n.txt"), Text("One."),
				Shell("", "echo 2 >> n.txt"), Text("Two."),
				Shell("", "echo 3 >> n.txt"), Text("Three. <promise>DONE</promise>"),
			}}, append([]string{"path"}, scopes...)...)
			w.Start(t, `!/ralph-loop "Count to three in n.txt" --max-iterations 5`, w.Ended)
			expectLoop(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 3, 3)
			if n := len(continuations(w.Srv.Fake)); n != 2 {
				t.Errorf("%d continuations, want 2", n)
			}
			if n := len(w.Srv.Fake.MainRequests()); n != 6 {
				t.Errorf("%d agent requests, want 6", n)
			}
			if n := strings.Count(w.Toasts(), "loop armed"); n != 1 {
				t.Errorf("armed %d times, want once", n)
			}
			w.NoErrors(t)
		})
	}
}

// 8. A project's plugin on a machine without ralph-loop: no error, no block, nothing armed;
// the user is told once how to get it, and the command's template tells the agent to say
// the loop did not start.
func TestProjectWithoutRalphLoop(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("The loop did not start."), Text("Hello.")}}, "project")
	id := w.Start(t, `!/ralph-loop "Do it" --max-iterations 3`, Always)
	w.Send(t, id, "/ralph-loop again", Always)
	e2e.NoLoops(t, w.Env)
	w.NoErrors(t)
	w.Saw(t, "not on this machine's PATH", "go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest")
	if n := strings.Count(w.Toasts(), "not on this machine's PATH"); n != 1 {
		t.Errorf("told %d times, want once", n)
	}
	contains(t, "what the agent got", e2e.LastUser(t, w.Srv.Fake, 0), "If there is no such context")
	if n := len(w.Srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2", n)
	}
}

// 9. The agent cannot end its own loop through opencode's server: sending /cancel-ralph to
// its session over the HTTP API (as a prompt, or as the command) is denied like a cancel
// from the shell, and the loop goes on.
func TestAgentCannotCancelThroughTheServer(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("Starting.")}, MaxMain: 1}, "user")
	id := w.Start(t, `!/ralph-loop "Keep going" --max-iterations 5 --min-tool-calls 0`, w.Failed)
	expectLoop(t, e2e.OnlyLoop(t, w.Env), "ACTIVE", 2, 0)
	post := func(path, body string) string {
		return fmt.Sprintf(`curl -s -m 5 -X POST %s/session/%s/%s -H 'content-type: application/json' -d '%s'`, w.Srv.URL, id, path, body)
	}
	w.Srv.Fake.SetScript(Script{Turns: []Turn{
		Shell("Ending the loop myself.", post("prompt_async", `{"parts":[{"type":"text","text":"/cancel-ralph"}]}`)),
		Shell("Or as the command.", post("command", `{"command":"cancel-ralph","arguments":""}`)),
		Text("Still here."),
	}, WhenDone: Text("Working.")})
	w.Send(t, id, "go on", w.Ended)
	expectLoop(t, e2e.OnlyLoop(t, w.Env), "MAX_ITERATIONS_REACHED", 5, 0)
	var denied []string
	for _, r := range w.Srv.Fake.MainRequests() {
		for _, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Text, "cancelled") {
				t.Errorf("the agent's cancel reached the session: %q", m.Text)
			}
		}
		if m := r.Messages[len(r.Messages)-1]; m.Role == "tool" {
			denied = append(denied, m.Text)
		}
	}
	if len(denied) != 2 {
		t.Fatalf("%d tool results, want 2: %q", len(denied), denied)
	}
	for _, d := range denied {
		contains(t, "the denied call's result", d, "ralph-loop", "denied")
	}
}

// TestGuardApplyPatch: the agent's apply_patch (offered to a "gpt-" model) whose second file
// is in the loop's state directory is denied as a whole: nothing is written, the loop stays
// ACTIVE and its next stops are blocked.
func TestGuardApplyPatch(t *testing.T) {
	w := newWorldModel(t, "gpt-5.5", Script{}, "user")
	planted := e2e.Planted(w.State)
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: " + planted + "\n+{}\n*** End Patch"
	w.Srv.Fake.SetScript(Script{Turns: []Turn{
		fakechat.Tool("Editing.", "apply_patch", map[string]any{"patchText": patch}),
		Text("Done."),
	}, WhenDone: Text("Working."), MaxMain: 3})
	w.Start(t, `!/ralph-loop "Keep the notes" --max-iterations 5`, w.Failed)
	expectLoop(t, e2e.OnlyLoop(t, w.Env), "ACTIVE", 3, 0)
	e2e.Denied(t, w.Srv.Fake, planted, "the patch", "ralph-loop", "denied", "apply_patch")
	if _, err := os.Stat(filepath.Join(w.Project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("a denied patch was applied in part: %v", err)
	}
	if c := continuations(w.Srv.Fake); len(c) < 2 {
		t.Errorf("%d continuations after the denied patch, want 2 (each stop blocked)", len(c))
	}
}

// 12. ralph-loop failing in the plugin (here a binary that exits 1 with one line on stderr)
// traps nothing: the session goes on as without ralph-loop, no continuation is sent, and the
// user sees the error line. (It answers "version", which install checks.)
func TestFailingRalphLoop(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(e.Bin, "broken-ralph-loop")
	if err := e2e.WriteProgram(broken, []byte("#!/bin/sh\n[ \"$1\" = version ] && { echo 'ralph-loop v0.0.0-broken'; exit 0; }\ncat >/dev/null\necho 'ralph-loop: error: the disk is on fire' >&2\nexit 1\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "opencode", "--binary", broken); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Serve(context.Background(), Script{Turns: []Turn{Shell("", "echo hi > x.txt"), Text("I'm done.")}})
	if err != nil {
		t.Fatal(err)
	}
	w := &World{Env: e, Srv: srv}
	t.Cleanup(srv.Close)
	w.Start(t, `!/ralph-loop "Create x.txt" --max-iterations 5`, Always)
	if n := len(srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2 (no continuation)", n)
	}
	if errs := srv.Errors(); len(errs) > 0 {
		t.Errorf("session errors: %q", errs)
	}
	w.Saw(t, "ralph-loop: error: the disk is on fire")
	e2e.NoLoops(t, w.Env)
}

// 13. A message the user sends while the loop's turn runs (typed in the TUI, posted by a
// client) is handed to the agent at its next step, within the turn: the loop goes on, and the
// promise the agent printed earlier in the turn (here with its last check, before the message)
// counts for the iteration.
func TestMessageWhileRunning(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Shell("Working on it.", "echo hi > x.txt"),
		fakechat.Tool("x.txt is written. <promise>DONE</promise>", "bash", map[string]any{"command": "sleep 3; cat x.txt"}),
		Text("Noted: the README stays short."),
	}}, "user")
	ctx := context.Background()
	id, err := w.Srv.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	w.Srv.Command(ctx, id, "ralph-loop", `"Create x.txt containing hi" --max-iterations 5`)
	for len(w.Srv.Fake.MainRequests()) < 2 {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // the second tool call is running
	if err := w.Srv.Prompt(ctx, id, "Also keep the README short."); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Srv.Settled(ctx, id, since, settle, w.Ended, nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.Srv.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+"/"+m.Finish)
	}
	t.Logf("messages: %v", roles)
	expectLoop(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 1, 2)
	if n := len(continuations(w.Srv.Fake)); n != 0 {
		t.Errorf("%d continuations, want 0", n)
	}
	if n := len(w.Srv.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
	contains(t, "the last request", e2e.LastUser(t, w.Srv.Fake, 2), "Also keep the README short.")
}

// 14. A promise of an earlier iteration (rejected: no work yet) is not taken for a later one:
// the iteration that then does the work without printing it is blocked.
func TestEarlierPromiseNotAcceptedLater(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Text("<promise>DONE</promise>"),
		Shell("Doing the work now.", "echo hi > x.txt"),
		Text("Written; checking it next."),
		Text("Checked. <promise>DONE</promise>"),
	}}, "user")
	w.Start(t, `!/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.Ended)
	expectLoop(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 3, 1)
	if n := len(continuations(w.Srv.Fake)); n != 2 {
		t.Errorf("%d continuations, want 2", n)
	}
}

// TestHookTime is make bench's figure for opencode (see Family.HookTime).
func TestHookTime(t *testing.T) { family.HookTime(t) }
