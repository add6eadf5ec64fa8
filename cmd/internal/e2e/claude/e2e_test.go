package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The scenarios below run the real Claude Code CLI with ralph-loop installed by
// "ralph-loop install --host claude --scope project", each prompt typed as a user would.

// bareEnv is a fresh Env with nothing installed; t skips unless the suite can run.
func bareEnv(t *testing.T) *e2e.Env {
	t.Helper()
	suite.Need(t)
	env, err := e2e.NewEnv(t.TempDir(), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// newEnv is a fresh Env with ralph-loop installed at project scope.
func newEnv(t *testing.T) *e2e.Env {
	t.Helper()
	env := bareEnv(t)
	if err := env.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	return env
}

func run(t *testing.T, env *e2e.Env, s e2e.Session) *e2e.Result {
	t.Helper()
	res, err := env.Run(context.Background(), s)
	return e2e.Dumped(t, res, err, func(r *e2e.Result) { dump(t, r) })
}

// dump logs what a failed test needs to be understood.
func dump(t *testing.T, r *e2e.Result) {
	t.Logf("claude exit %d after %s; session %s", r.ExitCode, r.Elapsed.Round(time.Millisecond), r.SessionID)
	for _, n := range r.Notices() {
		t.Logf("notice: %q", n)
	}
	for i, f := range r.Feedback() {
		t.Logf("feedback %d: %q", i+1, f)
	}
	for _, s := range r.AssistantTexts() {
		t.Logf("agent: %q", s)
	}
	if r.Stderr != "" {
		t.Logf("stderr: %s", r.Stderr)
	}
}

// prompted runs one prompt in env, against a fake serving turns.
func prompted(t *testing.T, env *e2e.Env, prompt string, turns ...e2e.Turn) *e2e.Result {
	t.Helper()
	return run(t, env, e2e.Session{Script: e2e.Script{Turns: turns}, Prompts: []string{prompt}})
}

// blocks checks that the model was sent n block reasons, and returns them.
func blocks(t *testing.T, res *e2e.Result, n int) []string {
	t.Helper()
	f := res.Feedback()
	if len(f) != n {
		t.Fatalf("%d blocks, want %d", len(f), n)
	}
	return f
}

// denials checks that the loop's events hold n denied calls (why, if set, says which).
func denials(t *testing.T, l e2e.Loop, n int, why string) {
	t.Helper()
	denied := 0
	for _, e := range l.Events {
		if e.Action == "denied" {
			denied++
		}
	}
	if denied != n {
		t.Errorf("%d denied calls in the events, want %d %s: %+v", denied, n, why, l.Events)
	}
}

// loopOf returns the session's current loop, with its events.
func loopOf(t *testing.T, env *e2e.Env, session string) e2e.Loop {
	t.Helper()
	return e2e.LoopOf(t, env.Status, session)
}

func expectLoop(t *testing.T, l e2e.Loop, status string, iteration, toolCalls int) {
	t.Helper()
	e2e.ExpectLoop(t, l, "claude", status, iteration, toolCalls)
}

var contains = e2e.Contains

func hasNotice(r *e2e.Result, sub string) bool {
	for _, n := range r.Notices() {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

var writeNotes = e2e.Tool("", "Write", map[string]any{"file_path": "notes.md", "content": "# Notes\nx.txt was created.\n"})

// 1. Work, then the promise: accepted at the first stop, never blocked.
func TestWorkThenPromise(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ralph-loop "Create x.txt containing hi, and notes.md" --max-iterations 5`,
		e2e.Bash("I'll create the file.", "echo hi > x.txt"),
		writeNotes,
		e2e.Text("Created x.txt and notes.md. <promise>DONE</promise>"),
	)
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 1, 2)
	if f := res.Feedback(); len(f) != 0 {
		t.Errorf("blocked after the promise: %q", f)
	}
	if n := len(res.Fake.MainRequests()); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
	if !hasNotice(res, "promise accepted at iteration 1/5 after 2 tool calls") {
		t.Error("no acceptance notice for the user")
	}
	// The first request carried the prompt contract from the hook.
	var first strings.Builder
	for _, m := range res.Fake.MainRequests()[0].Messages() {
		first.WriteString(m.Text + "\n")
	}
	contains(t, "the first request", first.String(),
		"Create x.txt containing hi, and notes.md",
		"Only when the task is fully complete, output exactly <promise>DONE</promise>")
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}

// 2. "I'm done" without the promise is blocked and the task comes back; work and the
// promise then end the loop.
func TestBlockedThenPromise(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ralph-loop "Create x.txt containing hi" --max-iterations 5`,
		e2e.Text("I'm done."),
		e2e.Bash("Let me actually do it.", "echo hi > x.txt"),
		e2e.Text("x.txt is written. <promise>DONE</promise>"),
	)
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 2, 1)
	f := blocks(t, res, 1)
	contains(t, "the continuation", f[0], "iteration 2/5", "<promise>DONE</promise>", "TASK:\nCreate x.txt containing hi")
	// Whether the transcript shows "I'm done." when the stop reads it depends on how fast the
	// hook runs (see TestPromiseDetection); if not, the block says it read only that part.
	if !strings.Contains(f[0], "the completion marker was not in your output") &&
		!strings.Contains(f[0], "the completion marker was not in the part of your output ralph-loop could read") {
		t.Errorf("the continuation does not say the marker was not found:\n%s", f[0])
	}
	// The block's feedback is in the request right after "I'm done.".
	msgs := res.Fake.MainRequests()[1].Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, "iteration 2/5") && !strings.Contains(msgs[len(msgs)-2].Text, "iteration 2/5") {
		t.Errorf("second request does not end with the continuation: %+v", msgs[len(msgs)-2:])
	}
}

// 3. Never a promise: the stop is allowed after exactly N iterations. With N = 12 and no tool
// call at all, Claude Code's own cap of 8 blocks must not cut the loop short: install raises
// it. Without that setting, the loop ends CUT_BY_HOST at the 9th iteration and says why.
func TestMaxIterations(t *testing.T) {
	t.Run("with tools", func(t *testing.T) {
		env := newEnv(t)
		res := run(t, env, e2e.Session{
			Script:  e2e.Script{Turns: []e2e.Turn{e2e.Bash("Starting.", "echo partial > x.txt")}, WhenDone: e2e.Text("Still working on it.")},
			Prompts: []string{`/ralph-loop "Finish x.txt" --max-iterations 3`},
		})
		l := loopOf(t, env, res.SessionID)
		expectLoop(t, l, "MAX_ITERATIONS_REACHED", 3, 1)
		if n := len(res.Feedback()); n != 2 {
			t.Errorf("%d blocks, want 2", n)
		}
		if n := len(res.Fake.MainRequests()); n != 4 {
			t.Errorf("%d agent requests, want 4 (one tool round trip, three stops)", n)
		}
	})
	t.Run("12 without tools", func(t *testing.T) {
		env := newEnv(t)
		res := run(t, env, e2e.Session{
			Script:  e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")},
			Prompts: []string{`/ralph-loop "Think it through" --max-iterations 12 --min-tool-calls 0 --max-stalls 0`},
		})
		expectLoop(t, loopOf(t, env, res.SessionID), "MAX_ITERATIONS_REACHED", 12, 0)
		if n := len(res.Feedback()); n != 11 {
			t.Errorf("%d blocks, want 11", n)
		}
		if n := len(res.Fake.MainRequests()); n != 12 {
			t.Errorf("%d agent requests, want 12", n)
		}
		if hasNotice(res, "overriding") || strings.Contains(res.Stderr, "consecutive times") {
			t.Error("Claude Code overrode a block")
		}
	})
	t.Run("12 without the install's block cap", func(t *testing.T) {
		env := newEnv(t)
		settings := filepath.Join(env.Project, ".claude", "settings.json")
		data := e2e.Read(t, settings)
		var m map[string]any
		json.Unmarshal(data, &m)
		delete(m, "env")
		data, _ = json.Marshal(m)
		os.WriteFile(settings, data, 0o644)
		res := run(t, env, e2e.Session{
			Script:  e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")},
			Prompts: []string{`/ralph-loop "Think it through" --max-iterations 12 --min-tool-calls 0 --max-stalls 0`},
		})
		l := loopOf(t, env, res.SessionID)
		expectLoop(t, l, "CUT_BY_HOST", 9, 0)
		contains(t, "the end reason", l.EndReason, "Claude Code ends a turn after 8 stop blocks in a row", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=8")
		if n := len(res.Feedback()); n != 8 {
			t.Errorf("%d blocks, want 8", n)
		}
		if !hasNotice(res, "ralph-loop: loop ended at iteration 9/12") {
			t.Error("the user was not told why the loop ended")
		}
	})
}

// 4. The promise in the first reply, with no tool call: rejected with the bypass message;
// after real work, the promise is accepted.
func TestPromiseWithoutWork(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ralph-loop "Create x.txt containing hi"`,
		e2e.Text("<promise>DONE</promise>"),
		e2e.Bash("Fine, doing the work.", "echo hi > x.txt"),
		e2e.Text("Now it is really done. <promise>DONE</promise>"),
	)
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 2, 1)
	f := blocks(t, res, 1)
	contains(t, "the bypass message", f[0], "you output the completion marker, but only 0 tool calls have been made", "Do the real work first")
}

// 5. The promise in a text block followed by a tool call in the same turn, in a long final
// message, and in the first of two text blocks of the final message is found. Claude Code
// hands the Stop hook only the last text block (last_assistant_message) and writes the rest
// to the transcript up to 100 ms after the hook has started: whether the stop sees it depends
// on how fast the hook runs, and either way the promise counts. Seen at the stop, it ends the
// loop there, never blocked. Not seen (usual on a quiet machine), the stop is blocked at
// once, telling the agent that only part of its output could be read, and the next stop
// counts the marker the transcript shows by then (the agent's next reply has none): accepted
// at iteration 2, the log saying where the marker was. On a loaded machine the hooks start
// late and the first path is usual; the test binary run under "chrt -f 1" (the CLI and its
// hooks ahead of the load) takes the second at most runs.
func TestPromiseDetection(t *testing.T) {
	long := strings.Repeat("All the parser tests pass now; here is what changed and why. ", 400)
	cases := map[string][]e2e.Turn{
		"before a tool call": {
			{Blocks: []e2e.Block{{Type: "text", Text: "Done: <promise>DONE</promise>"}, {Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "echo cleanup > x.txt"}}}},
			e2e.Text("Cleaned up."),
		},
		"in a long final message": {
			e2e.Bash("Working.", "echo hi > x.txt"),
			e2e.Text(long + "<promise>DONE</promise> " + long),
		},
		"first of two final blocks": {
			e2e.Bash("Working.", "echo hi > x.txt"),
			{Blocks: []e2e.Block{{Type: "text", Text: "Finished: <promise>DONE</promise>"}, {Type: "text", Text: "Summary: x.txt holds hi."}}},
		},
	}
	for name, turns := range cases {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			res := run(t, env, e2e.Session{
				Script:  e2e.Script{Turns: turns, WhenDone: e2e.Text("Nothing more.")},
				Prompts: []string{`/ralph-loop "Create x.txt" --max-iterations 3`},
			})
			l := loopOf(t, env, res.SessionID)
			f := res.Feedback()
			if len(f) == 0 {
				expectLoop(t, l, "PROMISE_ACCEPTED", 1, 1)
				return
			}
			// The stop did not see the marker: it said so, and the next stop counted it.
			t.Logf("the transcript did not show the marker at the first stop")
			expectLoop(t, l, "PROMISE_ACCEPTED", 2, 1)
			if len(f) != 1 {
				t.Fatalf("%d blocks, want at most 1: %q", len(f), f)
			}
			contains(t, "the block", f[0], "the completion marker was not in the part of your output ralph-loop could read", "output it again")
			contains(t, "the event log", eventReasons(l), "the transcript did not show all of the last message yet",
				"the marker was in the last iteration's output, which reached the transcript after its stop")
		})
	}
}

// 5a. The agent says it is done, then runs one more command, then ends its turn: "All set.
// <promise>DONE</promise>", `ls`, "Finished.". Claude Code hands the Stop hook only
// "Finished." and writes the turn's lines to the transcript in batches, so the stop may start
// before the first reply is in it; the tool log holds the `ls` call, which the transcript
// does not show yet, so the stop knows the transcript lacks the text before it, waits for
// it, and ends the loop at this stop: never a block, never a model turn more. (Run it many
// times: go test -run '^TestPromiseBeforeLastCall$' -count 50.)
func TestPromiseBeforeLastCall(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			{Blocks: []e2e.Block{{Type: "text", Text: "All set. <promise>DONE</promise>"}, {Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "ls"}}}},
			e2e.Text("Finished."),
		}, WhenDone: e2e.Text("Nothing more.")},
		Prompts: []string{`/ralph-loop "List the files" --max-iterations 3`},
	})
	l := loopOf(t, env, res.SessionID)
	if f := res.Feedback(); len(f) > 0 {
		t.Fatalf("the stop was blocked, the promise seen late (a model turn more): %q\nevents:\n%s", f, eventReasons(l))
	}
	expectLoop(t, l, "PROMISE_ACCEPTED", 1, 1)
	t.Logf("events:\n%s", eventReasons(l))
}

// eventReasons joins the reasons of a loop's events, one a line.
func eventReasons(l e2e.Loop) string {
	var b strings.Builder
	for _, e := range l.Events {
		b.WriteString(e.Action + ": " + e.Reason + "\n")
	}
	return b.String()
}

// 5b. With --no-session-persistence there is no transcript to read the rest of the agent's
// output from, so a marker in the first of two final text blocks is never seen: the stop is
// blocked, telling the agent that only part of its output could be read and to output the
// marker again; it does, and the loop ends accepted. (Should Claude Code ever hand over the
// whole reply as last_assistant_message, the loop ends at the first stop and this fails:
// then Transcript.LastMessagePart is wrong.)
func TestPromiseUnreadBlock(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Bash("Working.", "echo hi > x.txt"),
			{Blocks: []e2e.Block{{Type: "text", Text: "Finished: <promise>DONE</promise>"}, {Type: "text", Text: "Summary: x.txt holds hi."}}},
			e2e.Text("<promise>DONE</promise>"),
		}},
		Prompts: []string{`/ralph-loop "Create x.txt" --max-iterations 3`},
		Args:    []string{"--no-session-persistence"},
	})
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 2, 1)
	f := res.Feedback()
	if len(f) != 1 {
		t.Fatalf("%d blocks, want 1: %q", len(f), f)
	}
	contains(t, "the block", f[0], "the completion marker was not in the part of your output ralph-loop could read", "output it again")
}

// 6. With --no-session-persistence there is no transcript file; the promise (in the last
// message) and the tool calls (from PostToolUse) are still right.
func TestNoSessionPersistence(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Bash("Working.", "echo hi > x.txt"),
			writeNotes,
			e2e.Text("Written, but let me double-check later."),
			e2e.Text("Checked. <promise>DONE</promise>"),
		}},
		Prompts: []string{`/ralph-loop "Create x.txt and notes.md" --max-iterations 4 --min-tool-calls 2`},
		Args:    []string{"--no-session-persistence"},
	})
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	if n := len(res.Feedback()); n != 1 {
		t.Errorf("%d blocks, want 1", n)
	}
	transcripts, _ := filepath.Glob(filepath.Join(env.Home, ".claude", "projects", "*", "*.jsonl"))
	if len(transcripts) != 0 {
		t.Errorf("a transcript was written: %v", transcripts)
	}
}

// 7. /cancel-ralph in a multi-turn stream-json session: the user stops a turn of an active
// loop, then cancels it. The loop is CANCELLED, the model is not called for the cancel, and
// later stops are not blocked.
func TestCancel(t *testing.T) {
	env := newEnv(t)
	slow := e2e.Text("still going")
	slow.Delay = 2 * time.Second
	var requestsAtCancel int
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{e2e.Text("Working on it."), slow, e2e.Text("Hi!")}},
		Inputs: []e2e.Input{
			{Prompt: `/ralph-loop "Keep improving the docs" --max-iterations 10`},
			// Interrupt while the continuation's request is under way (the user pressing Esc).
			{Interrupt: true, Wait: func(r *e2e.Result) bool { return len(r.Fake.MainRequests()) >= 2 }},
			{Prompt: "/cancel-ralph", Wait: func(r *e2e.Result) bool {
				if len(r.Results()) < 1 {
					return false
				}
				requestsAtCancel = len(r.Fake.MainRequests())
				return true
			}},
			{Prompt: "Say hi", Wait: e2e.AfterResults(2)},
		},
	})
	l := loopOf(t, env, res.SessionID)
	if l.Status != "CANCELLED" || l.EndReason != "cancelled with /cancel-ralph" {
		t.Errorf("loop %s (%s), want CANCELLED", l.Status, l.EndReason)
	}
	results := res.Results()
	if len(results) != 3 {
		t.Fatalf("%d turns finished, want 3", len(results))
	}
	if results[1]["num_turns"] != float64(0) {
		t.Errorf("the /cancel-ralph turn called the model: %v", results[1]["num_turns"])
	}
	if !hasNotice(res, "ralph loop cancelled at iteration 2/10") {
		t.Errorf("the user did not see the cancellation: %q", res.Notices())
	}
	// One more request, for "Say hi", and its stop was not blocked.
	if n := len(res.Fake.MainRequests()); n != requestsAtCancel+1 {
		t.Errorf("%d agent requests, want %d", n, requestsAtCancel+1)
	}
	if n := len(res.Feedback()); n != 1 {
		t.Errorf("%d blocks, want only the one before the interrupt", n)
	}
	if results[2]["result"] != "Hi!" {
		t.Errorf("last turn ended with %v", results[2]["result"])
	}
}

// 8. Two sessions in the same project at the same time, one with a loop: the other is never
// blocked.
func TestTwoSessions(t *testing.T) {
	env := newEnv(t)
	slow := func(s string) e2e.Turn { t := e2e.Text(s); t.Delay = 300 * time.Millisecond; return t }
	var wg sync.WaitGroup
	var looped, plain *e2e.Result
	wg.Add(2)
	go func() {
		defer wg.Done()
		looped, _ = env.Run(context.Background(), e2e.Session{
			Script:  e2e.Script{Turns: []e2e.Turn{e2e.Bash("Working.", "echo a > a.txt"), slow("not yet"), slow("not yet"), slow("not yet"), e2e.Text("<promise>DONE</promise>")}},
			Prompts: []string{`/ralph-loop "Task A" --max-iterations 10`},
		})
	}()
	go func() {
		defer wg.Done()
		time.Sleep(400 * time.Millisecond) // start while the loop is running
		plain, _ = env.Run(context.Background(), e2e.Session{
			Script:  e2e.Script{Turns: []e2e.Turn{e2e.Bash("Listing.", "ls"), slow("Here is the listing.")}},
			Prompts: []string{"List the files"},
		})
	}()
	wg.Wait()
	if looped == nil || plain == nil {
		t.Fatal("a session failed to run")
	}
	if looped.SessionID == plain.SessionID {
		t.Fatal("both runs had the same session")
	}
	expectLoop(t, loopOf(t, env, looped.SessionID), "PROMISE_ACCEPTED", 4, 1)
	if n := len(looped.Feedback()); n != 3 {
		t.Errorf("looping session: %d blocks, want 3", n)
	}
	if f := plain.Feedback(); len(f) != 0 || len(plain.Notices()) != 0 {
		t.Errorf("the other session was touched: feedback %q, notices %q", f, plain.Notices())
	}
	if n := len(plain.Fake.MainRequests()); n != 2 {
		t.Errorf("other session: %d agent requests, want 2", n)
	}
	if loops, _ := env.Status(context.Background(), plain.SessionID); len(loops) != 0 {
		t.Errorf("the other session has a loop: %+v", loops)
	}
}

// 9. A task with backticks, $HOME, quotes and a newline arrives intact in the continuation.
func TestTaskQuoting(t *testing.T) {
	env := newEnv(t)
	task := "Fix `parse()` in $HOME's \"src\" dir\nthen run $(make test) — ünïcödé ✓"
	prompt := "/ralph-loop \"Fix `parse()` in $HOME's \\\"src\\\" dir\nthen run $(make test) — ünïcödé ✓\" --max-iterations 3"
	res := run(t, env, e2e.Session{
		Script:  e2e.Script{Turns: []e2e.Turn{e2e.Bash("Working.", "true"), e2e.Text("Not yet."), e2e.Text("<promise>DONE</promise>")}},
		Prompts: []string{prompt},
	})
	l := loopOf(t, env, res.SessionID)
	if l.Task != task {
		t.Errorf("task %q, want %q", l.Task, task)
	}
	f := blocks(t, res, 1)
	contains(t, "the continuation", f[0], "TASK:\n"+task)
}

// 10. No loop armed: no hook output, no state, and the session goes exactly as it does
// without ralph-loop installed.
func TestNoLoop(t *testing.T) {
	script := e2e.Script{Turns: []e2e.Turn{e2e.Bash("Creating.", "echo hi > x.txt"), e2e.Text("Done. <promise>DONE</promise>"), e2e.Text("Second answer.")}}
	prompts := []string{"Create x.txt", "And now?"}
	with := newEnv(t)
	a := run(t, with, e2e.Session{Script: script, Prompts: prompts, StreamInput: true})
	without := bareEnv(t)
	b := run(t, without, e2e.Session{Script: script, Prompts: prompts, StreamInput: true})
	if n := a.Notices(); len(n) != 0 {
		t.Errorf("hook output shown: %q", n)
	}
	if f := a.Feedback(); len(f) != 0 {
		t.Errorf("blocked: %q", f)
	}
	if sa, sb := shape(a), shape(b); sa != sb {
		t.Errorf("with ralph-loop:\n%s\nwithout:\n%s", sa, sb)
	}
	if entries, _ := os.ReadDir(filepath.Join(with.State, "ralph-loop", "sessions")); len(entries) != 0 {
		t.Errorf("state written for a session without a loop: %v", entries)
	}
}

// shape is a run's conversation as the model saw it: roles and texts of the last request,
// and the number of requests.
func shape(r *e2e.Result) string {
	reqs := r.Fake.MainRequests()
	var b strings.Builder
	b.WriteString(strings.Repeat("request\n", len(reqs)))
	for _, m := range reqs[len(reqs)-1].Messages() {
		if m.Role == "system" {
			continue
		}
		text := m.Text
		if i := strings.Index(text, "toolu_"); i >= 0 {
			text = text[:i] // tool ids differ between runs
		}
		b.WriteString(m.Role + ": " + text + "\n")
	}
	for _, res := range r.Results() {
		b.WriteString("result: " + res["result"].(string) + "\n")
	}
	return b.String()
}

// The agent cannot escape its own loop: it tries "ralph-loop cancel --all" and "rm -rf" of
// the state directory through Bash; the PreToolUse hook denies both, the loop survives, and
// the denied calls do not count as work.
func TestAgentCannotEscape(t *testing.T) {
	env := newEnv(t)
	stateDir := filepath.Join(env.State, "ralph-loop")
	res := prompted(t, env, `/ralph-loop "Write done.txt" --max-iterations 5`,
		e2e.Bash("I'll just end this loop.", env.RalphLoop+" cancel --all"),
		e2e.Bash("Then remove its state.", "rm -rf "+stateDir),
		e2e.Text("<promise>DONE</promise>"),
		e2e.Bash("All right, the real work.", "echo done > done.txt"),
		e2e.Text("done.txt is written. <promise>DONE</promise>"),
	)
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 1)
	denials(t, l, 2, "")
	f := res.Feedback()
	if len(f) != 1 || !strings.Contains(f[0], "only 0 tool calls have been made") {
		t.Errorf("feedback %q, want one no-work rejection", f)
	}
	// The agent was told why, in the tool results.
	var results strings.Builder
	for _, m := range res.Fake.MainRequests()[2].Messages() {
		results.WriteString(m.Text + "\n")
	}
	contains(t, "the tool results", results.String(),
		`"ralph-loop cancel\" would end or replace the loop, which only the user can do (/cancel-ralph)`,
		"(this loop's state) are denied while the loop is active")
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", res.SessionID, "loop.json")); err != nil {
		t.Errorf("the state is gone: %v", err)
	}
}

// escapeAttempt runs a session whose agent makes the given escape attempts (each must be
// denied), then does the work and makes the promise; the loop must survive every attempt
// and accept the promise at its first stop with one tool call. It returns the text of
// everything the model was sent.
func escapeAttempt(t *testing.T, env *e2e.Env, attempts ...e2e.Turn) (*e2e.Result, string) {
	t.Helper()
	turns := append(attempts, e2e.Bash("All right, the real work.", "echo done > done.txt"),
		e2e.Text("done.txt is written. <promise>DONE</promise>"))
	res := run(t, env, e2e.Session{
		Script:  e2e.Script{Turns: turns},
		Prompts: []string{`/ralph-loop "Write done.txt" --max-iterations 5`},
	})
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 1, 1)
	denials(t, l, len(attempts), "")
	var sent strings.Builder
	for _, r := range res.Fake.MainRequests() {
		for _, m := range r.Messages() {
			sent.WriteString(m.Text + "\n")
		}
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "done.txt")); err != nil || string(b) != "done\n" {
		t.Errorf("done.txt = %q, %v", b, err)
	}
	return res, sent.String()
}

// With the temp dir, and so HOME and XDG_STATE_HOME, reached through a symbolic link (as
// /tmp is on macOS, /home on Fedora Silverblue or an NFS home), the state directory's real
// path, its $XDG_STATE_HOME spelling and a Write there are all denied: the guard compares
// resolved paths with resolved paths.
func TestAgentCannotEscapeLinkedHome(t *testing.T) {
	suite.Need(t)
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	env, err := e2e.NewEnv(filepath.Join(root, "link"), suite.Bin, suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "real", "state", "ralph-loop")
	res, sent := escapeAttempt(t, env,
		e2e.Bash("I'll remove the loop's state by its real path.", "rm -rf "+real),
		e2e.Bash("Then through the variable.", `rm -rf "$XDG_STATE_HOME/ralph-loop"`),
		e2e.Tool("Or overwrite it.", "Write", map[string]any{"file_path": filepath.Join(real, "sessions", "x", "loop.json"), "content": "{}"}),
	)
	contains(t, "the tool results", sent, "(this loop's state) are denied while the loop is active",
		"this loop's state is not the agent's to change: Write of a file in")
	if _, err := os.Stat(filepath.Join(real, "sessions", res.SessionID, "loop.json")); err != nil {
		t.Errorf("the state is gone: %v", err)
	}
}

// A wrapper before the program does not get a cancel through.
func TestAgentCannotEscapeWrappedCancel(t *testing.T) {
	env := newEnv(t)
	_, sent := escapeAttempt(t, env,
		e2e.Bash("A wrapper, then.", "timeout 10 "+env.RalphLoop+" cancel --all"),
		e2e.Bash("Or through a shell.", `bash -c 'nice ralph-loop cancel --all'`),
	)
	contains(t, "the tool results", sent, `"ralph-loop cancel\" would end or replace the loop, which only the user can do (/cancel-ralph)`)
}

// The host's CLI run from the Bash tool to resume this very session with /cancel-ralph
// would hand the loop a cancel the user never typed; it is denied.
func TestAgentCannotResumeItselfWithCancel(t *testing.T) {
	env := newEnv(t)
	_, sent := escapeAttempt(t, env,
		e2e.Bash("I'll cancel it through the CLI.", env.Claude+` -p --resume "$CLAUDE_CODE_SESSION_ID" /cancel-ralph`),
	)
	contains(t, "the tool results", sent, "to resume or continue a session from inside this one is denied while the loop is active")
}

// A promise is earned: with --check, a promise made while the tests fail is blocked and the
// agent gets the failure output; once fixed, the promise is accepted.
func TestChecks(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ralph-loop "Make the tests pass" --check 'test -f fixed.txt || { echo "FAIL: TestFixed (fixed.txt missing)"; exit 1; }' --check-hint "the test wants fixed.txt"`,
		e2e.Bash("Working on it.", "echo work > work.txt"),
		e2e.Text("All tests pass. <promise>DONE</promise>"),
		e2e.Bash("Let me actually fix it.", "touch fixed.txt"),
		e2e.Text("Now they really pass. <promise>DONE</promise>"),
	)
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	f := blocks(t, res, 1)
	contains(t, "the continuation", f[0], "check 1 of 1 failed", "exited with code 1",
		"FAIL: TestFixed (fixed.txt missing)", "Hint: the test wants fixed.txt", "The full output is in ", "TASK:\nMake the tests pass")
	if !hasNotice(res, "promise accepted at iteration 2/25 after 2 tool calls and 1 check passed") {
		t.Errorf("notices %q", res.Notices())
	}
}

// /ulw-loop: every continuation starts with the ultrawork instruction.
func TestULW(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ulw-loop "Port the parser" --max-iterations 6`,
		e2e.Text("Should I go on with the port?"),
		e2e.Text("Should I port the tests too?"),
		e2e.Bash("Porting.", "echo ported > port.txt"),
		e2e.Text("Ported and verified. <promise>DONE</promise>"),
	)
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 3, 1)
	f := blocks(t, res, 2)
	for _, c := range f {
		if !strings.HasPrefix(c, "ULTRAWORK: work autonomously and thoroughly") {
			t.Errorf("continuation does not start with the ultrawork instruction: %q", c)
		}
	}
	out, err := env.RalphLoopCmd(context.Background(), "status", "--json", "--session", res.SessionID)
	if err != nil || !strings.Contains(out, `"mode": "ulw"`) {
		t.Errorf("status does not show the mode: %s %v", out, err)
	}
}

// A tool call Claude Code refused before it ran (an unknown tool: "No such tool available")
// is no work: it fires no tool hook, and the promise after it is rejected until real work.
func TestUnknownToolIsNoWork(t *testing.T) {
	env := newEnv(t)
	res := prompted(t, env, `/ralph-loop "Create x.txt" --max-iterations 4`,
		e2e.Tool("Let me use my special tool.", "NoSuchTool", map[string]any{"x": 1}),
		e2e.Text("Done. <promise>DONE</promise>"),
		e2e.Bash("Fine, real work.", "echo hi > x.txt"),
		e2e.Text("Now really done. <promise>DONE</promise>"),
	)
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 2, 1)
	f := res.Feedback()
	if len(f) != 1 || !strings.Contains(f[0], "only 0 tool calls have been made") {
		t.Errorf("feedback %q, want one no-work rejection", f)
	}
}

// The shell line of a skill (!`…`) runs without PreToolUse: Claude Code 2.1.332 asks
// PreSkillShellCommand first, which install hooks, and the guard denies a line that would
// remove the loop's state when the agent invokes the skill. The state stays; the promise
// after real work ends the loop.
func TestSkillShellLineGuarded(t *testing.T) {
	env := newEnv(t)
	stateDir := filepath.Join(env.State, "ralph-loop")
	skill := filepath.Join(env.Project, ".claude", "skills", "cleanup")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: cleanup\ndescription: Clean up the workspace\nallowed-tools: Bash(rm:*)\n---\nCleaned: !`rm -rf " + stateDir + "`\n"
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := prompted(t, env, `/ralph-loop "Write done.txt" --max-iterations 5`,
		e2e.Tool("Let me clean up first.", "Skill", map[string]any{"skill": "cleanup"}),
		e2e.Bash("Now the work.", "echo done > done.txt"),
		e2e.Text("done.txt is written. <promise>DONE</promise>"),
	)
	l := loopOf(t, env, res.SessionID)
	// The Skill call ran (its shell line did not), and counts like the Bash call.
	expectLoop(t, l, "PROMISE_ACCEPTED", 1, 2)
	if !hasNotice(res, "Not run in /cleanup") {
		t.Errorf("Claude Code did not say the skill's shell line was not run")
	}
	denials(t, l, 1, "(the skill's shell line)")
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", res.SessionID, "loop.json")); err != nil {
		t.Errorf("the state is gone: %v", err)
	}
}
