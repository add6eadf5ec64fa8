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

// settle is how long a session must stay idle to count as finished: the plugin sends a
// continuation within milliseconds of the idle.
const settle = 2 * time.Second

// world is a fresh Env with ralph-loop installed for opencode by its own installer at each
// of scopes ("path": ralph-loop put on PATH), and opencode serving script.
type world struct {
	*Env
	srv *Server
}

func newWorld(t *testing.T, script Script, scopes ...string) *world {
	t.Helper()
	return newWorldWith(t, "", script, nil, scopes...)
}

// newWorldModel is newWorld with the fake's model named model (see Env.Model).
func newWorldModel(t *testing.T, model string, script Script, scopes ...string) *world {
	return newWorldWith(t, model, script, nil, scopes...)
}

// newWorldWith is newWorld with the fake's model named model ("": fake-model) and its price
// in opencode's config (nil: none).
func newWorldWith(t *testing.T, model string, script Script, cost map[string]float64, scopes ...string) *world {
	t.Helper()
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	e.Model = model
	e.ModelCost = cost
	for _, scope := range scopes {
		if scope == "path" {
			if err := e.OnPath(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		out, err := e.Install(context.Background(), scope)
		if err != nil {
			t.Fatalf("install: %v", err)
		}
		t.Logf("install: %s", out)
	}
	srv, err := e.Serve(context.Background(), script)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{Env: e, srv: srv}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("opencode's log:\n%s", tail(srv.Log.String(), 6000))
		}
		srv.Close()
	})
	return w
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// start opens a session and sends the first prompt: a command ("!/ralph-loop ARGS" is run
// as the TUI runs "/ralph-loop ARGS") or text as typed; then it waits until the session
// settles and done holds.
func (w *world) start(t *testing.T, prompt string, done func() bool) string {
	t.Helper()
	ctx := context.Background()
	id, err := w.srv.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.send(t, id, prompt, done)
	return id
}

func (w *world) send(t *testing.T, id, prompt string, done func() bool) {
	t.Helper()
	ctx := context.Background()
	before, since := len(w.srv.Fake.MainRequests()), time.Now()
	if name, args, ok := strings.Cut(strings.TrimPrefix(prompt, "!"), " "); strings.HasPrefix(prompt, "!/") && ok {
		w.srv.Command(ctx, id, strings.TrimPrefix(name, "/"), args)
	} else if err := w.srv.Prompt(ctx, id, prompt); err != nil {
		t.Fatal(err)
	}
	turns, err := w.srv.Settled(ctx, id, since, settle, done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("settled after %d busy spells, %d agent requests; toasts: %q", turns, len(w.srv.Fake.MainRequests())-before, w.srv.Toasts())
}

// ended is true once every loop has ended (and there is one).
func (w *world) ended() bool {
	loops, err := w.Status(context.Background())
	if err != nil || len(loops) == 0 {
		return false
	}
	for _, l := range loops {
		if l.Status == "ACTIVE" {
			return false
		}
	}
	return true
}

// failed is true once opencode has reported a session error (the fake's HTTP 400 when its
// script allows no more requests).
func (w *world) failed() bool { return len(w.srv.Errors()) > 0 }

func always() bool { return true }

func (w *world) onlyLoop(t *testing.T) Loop {
	t.Helper()
	loops, err := w.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 1 {
		t.Fatalf("%d loops, want 1: %+v", len(loops), loops)
	}
	return loops[0]
}

func (w *world) noLoops(t *testing.T) {
	t.Helper()
	loops, err := w.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 0 {
		t.Errorf("%d loops, want none: %+v", len(loops), loops)
	}
}

func expectLoop(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "opencode", status, iteration, tools)
}

var contains = e2e.Contains

// continuations are the user messages the agent got after a block.
func continuations(f *Fake) []string { return f.Continuations() }

// lastUser is the last user message of the n-th agent request (from 0).
func lastUser(t *testing.T, f *Fake, n int) string {
	t.Helper()
	reqs := f.MainRequests()
	if n >= len(reqs) {
		t.Fatalf("no agent request %d (%d in all)", n+1, len(reqs))
	}
	for i := len(reqs[n].Messages) - 1; i >= 0; i-- {
		if m := reqs[n].Messages[i]; m.Role == "user" {
			return m.Text
		}
	}
	return ""
}

func (w *world) toasts() string { return strings.Join(w.srv.Toasts(), "\n") }

// saw checks that the user was shown each of wants as a toast, waiting up to 10 s: the plugin
// shows one toast at a time, so a notice may follow the one before it by a few seconds.
func (w *world) saw(t *testing.T, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing := ""
		for _, want := range wants {
			if !strings.Contains(w.toasts(), want) {
				missing = want
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the user was not shown %q; the toasts:\n%s", missing, w.toasts())
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *world) noErrors(t *testing.T) {
	t.Helper()
	if errs := w.srv.Errors(); len(errs) > 0 {
		t.Errorf("session errors: %q", errs)
	}
	for _, m := range w.srv.Toasts() {
		if strings.Contains(m, "error") {
			t.Errorf("an error toast: %s", m)
		}
	}
}

// 1. /ralph-loop run as a command (as the TUI runs it): "I'm done" without the promise is
// blocked and the task comes back; work and the promise then end the loop. The contract
// reached the model with the command, and the user saw each step.
func TestBlockedThenPromise(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Text("x.txt is written. <promise>DONE</promise>"),
	}}, "user")
	w.start(t, `!/ralph-loop "Create x.txt containing `+"`hi`"+`" --max-iterations 5`, w.ended)
	expectLoop(t, w.onlyLoop(t), "PROMISE_ACCEPTED", 2, 1)
	w.noErrors(t)
	c := continuations(w.srv.Fake)
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output",
		"<promise>DONE</promise>", "TASK:\nCreate x.txt containing `hi`")
	contains(t, "the first request's prompt", lastUser(t, w.srv.Fake, 0), "The ralph-loop hook reads this command's arguments",
		"ralph-loop: a loop is now active", "<promise>DONE</promise>", "Create x.txt containing `hi`")
	if b, err := os.ReadFile(filepath.Join(w.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
	w.saw(t, "loop armed: up to 5 iterations", "promise accepted at iteration 2/5 after 1 tool call")
	if n := len(w.srv.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
}

// 2. /ralph-loop sent as plain text (POST prompt_async, no expansion) arms the loop too. The
// promise in the first answer, with no tool call, is rejected; the agent's attempt to
// cancel its own loop from the shell is denied (its result says why, and it is no work);
// after real work the promise is accepted.
func TestTypedPromiseWithoutWork(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Text("<promise>DONE</promise>"),
		Shell("Let me end this loop.", "ralph-loop cancel --all"),
		Shell("Fine, doing the work.", "echo hi > x.txt"),
		Text("Now it is really done. <promise>DONE</promise>"),
	}}, "user")
	w.start(t, `/ralph-loop "Create x.txt containing hi"`, w.ended)
	expectLoop(t, w.onlyLoop(t), "PROMISE_ACCEPTED", 2, 1)
	c := continuations(w.srv.Fake)
	if len(c) != 1 {
		t.Fatalf("%d continuations, want 1", len(c))
	}
	contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	reqs := w.srv.Fake.MainRequests()
	var denied string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			denied = m.Text
		}
	}
	contains(t, "the denied call's result", denied, "ralph-loop")
	if b, err := os.ReadFile(filepath.Join(w.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}

// 3. The iteration limit: a loop that never promises ends at --max-iterations, with the
// reason in status and shown to the user; opencode has no cap of its own, so 12 iterations
// run.
func TestIterationLimit(t *testing.T) {
	var turns []Turn
	for i := 1; i <= 12; i++ {
		turns = append(turns, Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), Text(fmt.Sprintf("Iteration %d: still working.", i)))
	}
	w := newWorld(t, Script{Turns: turns, WhenDone: Text("Out of script.")}, "user")
	w.start(t, `!/ralph-loop "Count to twelve in progress.txt" --max-iterations 12`, w.ended)
	l := w.onlyLoop(t)
	expectLoop(t, l, "MAX_ITERATIONS_REACHED", 12, 12)
	if n := len(continuations(w.srv.Fake)); n != 11 {
		t.Errorf("%d continuations, want 11", n)
	}
	if n := len(w.srv.Fake.MainRequests()); n != 24 {
		t.Errorf("%d agent requests, want 24", n)
	}
	w.saw(t, "12/12")
	if b, err := os.ReadFile(filepath.Join(w.Project, "progress.txt")); err != nil || strings.Count(string(b), "\n") != 12 {
		t.Errorf("progress.txt = %q, %v; want 12 lines", b, err)
	}
}

// 4. /cancel-ralph between turns ends the loop. The loop's turn ends on a model error,
// which is not a stop (the loop waits for the user); the cancel's template never reaches the
// model as a task (the agent is asked to tell the user the loop is cancelled), and the stop
// after that turn is not blocked.
func TestCancel(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{
		Shell("Starting.", "echo 1 > step.txt"),
		Text("Step one done."),
		Shell("", "echo 2 >> step.txt"),
	}, MaxMain: 3}, "user")
	id := w.start(t, `!/ralph-loop "Keep going" --max-iterations 5`, w.failed)
	expectLoop(t, w.onlyLoop(t), "ACTIVE", 2, 2)
	if n := len(continuations(w.srv.Fake)); n != 1 {
		t.Errorf("%d continuations, want 1 (none after the error)", n)
	}
	w.srv.Fake.SetScript(Script{Turns: []Turn{Text("The loop is cancelled.")}})
	w.send(t, id, "!/cancel-ralph ", w.ended)
	expectLoop(t, w.onlyLoop(t), "CANCELLED", 2, 2)
	w.saw(t, "cancelled at iteration 2/5")
	last := w.srv.Fake.MainRequests()
	contains(t, "what the agent got for /cancel-ralph", lastUser(t, w.srv.Fake, len(last)-1), "Tell the user exactly the following", "cancelled at iteration 2/5")
	if n := len(continuations(w.srv.Fake)); n != 1 {
		t.Errorf("%d continuations, want 1", n)
	}
}

// 5. A session without a loop is left alone: nothing added to the prompt, nothing said,
// no continuation, no state.
func TestNoLoopUntouched(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Shell("", "echo hi > x.txt"), Text("Done: x.txt. <promise>DONE</promise>")}}, "user")
	w.start(t, "Create x.txt containing hi", always)
	if n := len(w.srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2", n)
	}
	if got := lastUser(t, w.srv.Fake, 0); got != "Create x.txt containing hi" {
		t.Errorf("the prompt reached the model as %q", got)
	}
	if s := w.toasts(); s != "" {
		t.Errorf("ralph-loop spoke: %s", s)
	}
	w.noErrors(t)
	w.noLoops(t)
}

// 6. A command ralph-loop refuses (a misspelt flag) never reaches the agent as a task: the
// agent is asked to tell the user why, the user sees the reason, and no loop starts.
func TestRefusedCommand(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("ralph-loop did not start: --max-iter is not a flag.")}}, "user")
	w.start(t, `!/ralph-loop "Do it" --max-iter 3`, always)
	w.noLoops(t)
	contains(t, "what the agent got", lastUser(t, w.srv.Fake, 0), "Tell the user exactly the following", "--max-iter", "--max-iterations")
	if strings.Contains(lastUser(t, w.srv.Fake, 0), "The ralph-loop hook reads this command's arguments") {
		t.Errorf("the command's template reached the agent")
	}
	w.saw(t, "--max-iter")
	if n := len(w.srv.Fake.MainRequests()); n != 1 {
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
			w.start(t, `!/ralph-loop "Count to three in n.txt" --max-iterations 5`, w.ended)
			expectLoop(t, w.onlyLoop(t), "PROMISE_ACCEPTED", 3, 3)
			if n := len(continuations(w.srv.Fake)); n != 2 {
				t.Errorf("%d continuations, want 2", n)
			}
			if n := len(w.srv.Fake.MainRequests()); n != 6 {
				t.Errorf("%d agent requests, want 6", n)
			}
			if n := strings.Count(w.toasts(), "loop armed"); n != 1 {
				t.Errorf("armed %d times, want once", n)
			}
			w.noErrors(t)
		})
	}
}

// 8. A project's plugin on a machine without ralph-loop: no error, no block, nothing armed;
// the user is told once how to get it, and the command's template tells the agent to say
// the loop did not start.
func TestProjectWithoutRalphLoop(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("The loop did not start."), Text("Hello.")}}, "project")
	id := w.start(t, `!/ralph-loop "Do it" --max-iterations 3`, always)
	w.send(t, id, "/ralph-loop again", always)
	w.noLoops(t)
	w.noErrors(t)
	w.saw(t, "not on this machine's PATH", "go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest")
	if n := strings.Count(w.toasts(), "not on this machine's PATH"); n != 1 {
		t.Errorf("told %d times, want once", n)
	}
	contains(t, "what the agent got", lastUser(t, w.srv.Fake, 0), "If there is no such context")
	if n := len(w.srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2", n)
	}
}

// 9. The agent cannot end its own loop through opencode's server: sending /cancel-ralph to
// its session over the HTTP API (as a prompt, or as the command) is denied like a cancel
// from the shell, and the loop goes on.
func TestAgentCannotCancelThroughTheServer(t *testing.T) {
	w := newWorld(t, Script{Turns: []Turn{Text("Starting.")}, MaxMain: 1}, "user")
	id := w.start(t, `!/ralph-loop "Keep going" --max-iterations 5 --min-tool-calls 0`, w.failed)
	expectLoop(t, w.onlyLoop(t), "ACTIVE", 2, 0)
	post := func(path, body string) string {
		return fmt.Sprintf(`curl -s -m 5 -X POST %s/session/%s/%s -H 'content-type: application/json' -d '%s'`, w.srv.URL, id, path, body)
	}
	w.srv.Fake.SetScript(Script{Turns: []Turn{
		Shell("Ending the loop myself.", post("prompt_async", `{"parts":[{"type":"text","text":"/cancel-ralph"}]}`)),
		Shell("Or as the command.", post("command", `{"command":"cancel-ralph","arguments":""}`)),
		Text("Still here."),
	}, WhenDone: Text("Working.")})
	w.send(t, id, "go on", w.ended)
	expectLoop(t, w.onlyLoop(t), "MAX_ITERATIONS_REACHED", 5, 0)
	var denied []string
	for _, r := range w.srv.Fake.MainRequests() {
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
	planted := filepath.Join(w.State, "ralph-loop", "sessions", "planted", "loop.json")
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: " + planted + "\n+{}\n*** End Patch"
	w.srv.Fake.SetScript(Script{Turns: []Turn{
		fakechat.Tool("Editing.", "apply_patch", map[string]any{"patchText": patch}),
		Text("Done."),
	}, WhenDone: Text("Working."), MaxMain: 3})
	w.start(t, `!/ralph-loop "Keep the notes" --max-iterations 5`, w.failed)
	expectLoop(t, w.onlyLoop(t), "ACTIVE", 3, 0)
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the patch reached the state directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("a denied patch was applied in part: %v", err)
	}
	reqs := w.srv.Fake.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d agent requests, want at least 2", len(reqs))
	}
	m := reqs[1].Messages[len(reqs[1].Messages)-1]
	if m.Role != "tool" {
		t.Fatalf("the second request does not end with the patch's result: %s %q", m.Role, m.Text)
	}
	contains(t, "the denied patch's result", m.Text, "ralph-loop", "denied", "apply_patch")
	if c := continuations(w.srv.Fake); len(c) < 2 {
		t.Errorf("%d continuations after the denied patch, want 2 (each stop blocked)", len(c))
	}
}

// 11. "opencode run" exits when the agent first stops, so a loop cannot go on there:
// /ralph-loop, run as the command or typed, is refused with the reason (the agent is asked to
// pass it on, and run prints it), and nothing is armed.
func TestRunRefusesLoop(t *testing.T) {
	suite.Need(t)
	e, err := NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "user"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--command", "ralph-loop", "Create x.txt"}, {"/ralph-loop", "Create-x.txt"}} {
		out, fake, err := e.RunCLI(context.Background(), Script{Turns: []Turn{Text("ralph-loop says a loop cannot run under opencode run.")}}, args...)
		if err != nil {
			t.Fatalf("opencode run %q: %v\n%s", args, err, out)
		}
		contains(t, "what the agent got", lastUser(t, fake, 0), "opencode run exits when the agent first stops", "Tell the user exactly the following")
		if n := len(fake.MainRequests()); n != 1 {
			t.Errorf("opencode run %q: %d agent requests, want 1", args, n)
		}
	}
	loops, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 0 {
		t.Errorf("%d loops armed under opencode run: %+v", len(loops), loops)
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
	if err := os.WriteFile(broken, []byte("#!/bin/sh\n[ \"$1\" = version ] && { echo 'ralph-loop v0.0.0-broken'; exit 0; }\ncat >/dev/null\necho 'ralph-loop: error: the disk is on fire' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "opencode", "--binary", broken); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Serve(context.Background(), Script{Turns: []Turn{Shell("", "echo hi > x.txt"), Text("I'm done.")}})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{Env: e, srv: srv}
	t.Cleanup(srv.Close)
	w.start(t, `!/ralph-loop "Create x.txt" --max-iterations 5`, always)
	if n := len(srv.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2 (no continuation)", n)
	}
	if errs := srv.Errors(); len(errs) > 0 {
		t.Errorf("session errors: %q", errs)
	}
	w.saw(t, "ralph-loop: error: the disk is on fire")
	w.noLoops(t)
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
	id, err := w.srv.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	w.srv.Command(ctx, id, "ralph-loop", `"Create x.txt containing hi" --max-iterations 5`)
	for len(w.srv.Fake.MainRequests()) < 2 {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // the second tool call is running
	if err := w.srv.Prompt(ctx, id, "Also keep the README short."); err != nil {
		t.Fatal(err)
	}
	if _, err := w.srv.Settled(ctx, id, since, settle, w.ended); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.srv.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+"/"+m.Finish)
	}
	t.Logf("messages: %v", roles)
	expectLoop(t, w.onlyLoop(t), "PROMISE_ACCEPTED", 1, 2)
	if n := len(continuations(w.srv.Fake)); n != 0 {
		t.Errorf("%d continuations, want 0", n)
	}
	if n := len(w.srv.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
	contains(t, "the last request", lastUser(t, w.srv.Fake, 2), "Also keep the README short.")
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
	w.start(t, `!/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.ended)
	expectLoop(t, w.onlyLoop(t), "PROMISE_ACCEPTED", 3, 1)
	if n := len(continuations(w.srv.Fake)); n != 2 {
		t.Errorf("%d continuations, want 2", n)
	}
}
