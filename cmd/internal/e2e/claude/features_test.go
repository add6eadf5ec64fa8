package claude

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The scenarios of issue 29 on the real Claude Code: a turn the API refuses pauses the loop,
// the stall breaker, the checkpoints, the notification.

// gitRepo makes the project a git repository with one commit of what is in it (the files
// install wrote), and returns a function that runs git there.
func gitRepo(t *testing.T, env *e2e.Env) func(args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = env.Project
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x",
			"HOME="+env.Home, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(env.Project, "README"), []byte("a project\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	return git
}

// TestRateLimitPauses: the API answers a loop's second iteration with HTTP 429 (retries
// off, as after Claude Code's own have run out). Claude Code fires StopFailure, not Stop:
// the loop is PAUSED, saying why and until when (the API's "try again in 30 seconds"), the
// refused turn uses up no iteration, and the user's next prompt goes on with the loop, at
// iteration 2, to its promise.
func TestRateLimitPauses(t *testing.T) {
	env := newEnv(t)
	var mu sync.Mutex
	var paused []e2e.Loop
	var statusErr error
	var since time.Time
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Text("Looking at it."),
			e2e.RateLimited("Number of request tokens has exceeded your per-minute rate limit; try again in 30 seconds"),
			e2e.Bash("Back to it.", "echo hi > x.txt"),
			e2e.Text("Made x.txt. <promise>DONE</promise>"),
		}},
		Inputs: []e2e.Input{
			{Prompt: `/ralph-loop "Make x.txt" --max-iterations 5`},
			// StopFailure is fire-and-forget: Claude Code may print the turn's result before
			// the hook is done. The user's next prompt comes once status shows the pause (or
			// after 10 s, which fails the test).
			{Prompt: "Go on.", Wait: func(r *e2e.Result) bool {
				if len(r.Results()) < 1 {
					return false
				}
				mu.Lock()
				defer mu.Unlock()
				if since.IsZero() {
					since = time.Now()
				}
				paused, statusErr = env.Status(context.Background(), r.SessionID)
				return statusErr != nil || len(paused) > 0 && paused[0].Status == "PAUSED" || time.Since(since) > 10*time.Second
			}},
		},
		Env: []string{"CLAUDE_CODE_MAX_RETRIES=0"},
	})
	mu.Lock()
	defer mu.Unlock()
	if statusErr != nil || len(paused) == 0 {
		t.Fatalf("status after the refused turn: %v %v", paused, statusErr)
	}
	p := paused[0]
	if p.Status != "PAUSED" || p.Iteration != 2 || p.Pause == nil || p.Pause.Error != "rate_limit" || p.Pause.Until == nil {
		t.Fatalf("after the refused turn: %+v (pause %+v); want PAUSED at 2, a rate limit, until when", p, p.Pause)
	}
	if d := time.Until(*p.Pause.Until); d <= 0 || d > 45*time.Second+time.Minute {
		t.Errorf("paused until %v, not about 30 s after the refusal", p.Pause.Until)
	}
	contains(t, "why it paused", p.Pause.Why, "a rate limit", "try again in 30 seconds")
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 1)
	if n := len(res.Fake.MainRequests()); n != 4 {
		t.Errorf("%d agent requests, want 4 (the refused one among them)", n)
	}
	var actions []string
	for _, e := range l.Events {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, " "); got != "armed blocked paused resumed accepted" {
		t.Errorf("events %q", got)
	}
}

// TestStallBreaker: each iteration runs a command that changes no file of the work tree (a
// git repository), then stops without the promise. The first stop reads the work tree
// (nothing to compare with yet: progress); with --max-stalls 3 the three after it end the
// loop NO_PROGRESS, saying what they did, instead of running to --max-iterations.
func TestStallBreaker(t *testing.T) {
	env := newEnv(t)
	git := gitRepo(t, env)
	turns := []e2e.Turn{}
	for range 4 {
		turns = append(turns, e2e.Bash("Let me look.", "ls"), e2e.Text("Still looking."))
	}
	res := run(t, env, e2e.Session{
		Script:  e2e.Script{Turns: turns},
		Prompts: []string{`/ralph-loop "Fix the README" --max-iterations 10 --max-stalls 3`},
	})
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "NO_PROGRESS", 4, 4)
	contains(t, "the end reason", l.EndReason, "3 iterations in a row without progress (--max-stalls 3): 3 tool calls, none of which changed a file of")
	if n := len(res.Fake.MainRequests()); n != 8 {
		t.Errorf("%d agent requests, want 8", n)
	}
	if !hasNotice(res, "loop ended NO_PROGRESS at iteration 4/10") {
		t.Error("the user was not told")
	}
	if out := git("for-each-ref"); strings.Contains(out, "ralph-loop") {
		t.Errorf("the stall breaker made refs: %s", out)
	}
}

// TestCheckpoints: --checkpoint in a git repository records the work tree at arming and at
// each iteration's end under refs/ralph-loop/<loop>/<n>: "ralph-loop diff" shows what each
// iteration changed and "ralph-loop log" its diffstat, while HEAD, the index and the stash
// list stay as they were.
func TestCheckpoints(t *testing.T) {
	env := newEnv(t)
	git := gitRepo(t, env)
	head, index := git("rev-parse", "HEAD"), git("ls-files", "--stage")
	res := prompted(t, env, `/ralph-loop "Write two lines to a.txt" --max-iterations 5 --checkpoint`,
		e2e.Bash("First line.", "echo one > a.txt"),
		e2e.Text("One line so far."),
		e2e.Bash("Second line.", "echo two >> a.txt"),
		e2e.Text("Two lines. <promise>DONE</promise>"),
	)
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	if l.Checkpoints == nil || !strings.HasPrefix(l.Checkpoints.Refs, "refs/ralph-loop/") {
		t.Fatalf("checkpoints %+v", l.Checkpoints)
	}
	refs := git("for-each-ref", "--format=%(refname)", l.Checkpoints.Refs)
	if want := l.Checkpoints.Refs + "0\n" + l.Checkpoints.Refs + "1\n" + l.Checkpoints.Refs + "2\n"; refs != want {
		t.Errorf("refs %q, want %q", refs, want)
	}
	ctx := context.Background()
	d1, err := env.RalphLoopCmd(ctx, "diff", res.SessionID, "1")
	if err != nil || !strings.Contains(d1, "+++ b/a.txt") || !strings.Contains(d1, "+one") || strings.Contains(d1, "+two") {
		t.Errorf("diff 1: %q %v", d1, err)
	}
	d2, err := env.RalphLoopCmd(ctx, "diff", res.SessionID, "2")
	if err != nil || !strings.Contains(d2, " one\n+two") {
		t.Errorf("diff 2: %q %v", d2, err)
	}
	log, err := env.RalphLoopCmd(ctx, "log", "--session", res.SessionID)
	if err != nil || strings.Count(log, "a.txt | 1 +") != 2 {
		t.Errorf("log: %s %v", log, err)
	}
	if git("rev-parse", "HEAD") != head || git("ls-files", "--stage") != index || git("stash", "list") != "" {
		t.Error("HEAD, the index or the stash list changed")
	}
}

// TestNotify: a loop armed with --notify tells the user when it ends, through the desktop's
// notify-send (a stand-in on PATH records what it was given): how it ended, the iteration,
// the tool calls and what the model spent. A session without a loop is told nothing.
func TestNotify(t *testing.T) {
	env := newEnv(t)
	bin := filepath.Join(env.Root, "bin")
	os.MkdirAll(bin, 0o755)
	notified := filepath.Join(env.Root, "notified")
	if err := e2e.WriteProgram(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> \""+notified+"\"\n")); err != nil {
		t.Fatal(err)
	}
	path := []string{"PATH=" + bin + string(os.PathListSeparator) + filepath.Dir(env.RalphLoop) + string(os.PathListSeparator) + os.Getenv("PATH")}

	run(t, env, e2e.Session{Script: e2e.Script{Turns: []e2e.Turn{e2e.Text("Hello.")}}, Prompts: []string{"Say hello"}, Env: path})
	if _, err := os.Stat(notified); err == nil {
		t.Fatal("a session without a loop was notified")
	}
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Bash("On it.", "echo hi > x.txt"),
			e2e.Text("Made x.txt. <promise>DONE</promise>"),
		}},
		Prompts: []string{`/ralph-loop "Make x.txt" --max-iterations 5 --notify`},
		Env:     path,
	})
	expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 1, 1)
	got := e2e.Read(t, notified)
	contains(t, "the notification", string(got), "--app-name=ralph-loop\n--\nralph-loop: task done\n",
		"iteration 1/5, 1 tool call, spent ", " tokens", ": promise found\nMake x.txt\n")
	if strings.Count(string(got), "ralph-loop: ") != 1 {
		t.Errorf("notified more than once: %q", got)
	}
}
