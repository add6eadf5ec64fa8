package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// ChatSuite is the suite a host shares with the others whose CLI runs one prompt headless
// against a scripted fake of the OpenAI Chat Completions API (fakechat): the claims every
// such host must meet, run on its real CLI. A host's suite fills it in once, with what its
// CLI does differently (its shell tool; its Env runs a prompt: ChatEnv), runs the shared
// scenarios, each in a test of its own, and checks what only that host does after each.
type ChatSuite[E ChatEnv] struct {
	// Suite is the host's suite; Host its name for ralph-loop ("qwen"), Title for people
	// ("Qwen Code").
	Suite       *Suite
	Host, Title string
	// NewEnv lays out a fresh Env of the host's under root.
	NewEnv func(root, bin, ralphLoop string) (E, error)
	// Shell is an answer with optional text, then a call of the host's shell tool.
	Shell func(text, command string) fakechat.Turn
}

// ChatEnv is a host's Env that ChatSuite runs: built on Base (it embeds it), with
// ralph-loop installing itself, and its CLI run headless on a prompt.
type ChatEnv interface {
	Installer
	World() *Base
	// Headless runs the CLI headless on p, against a fake serving its script.
	Headless(ctx context.Context, p Prompt) (*Ran, error)
}

// Prompt is one headless run of a host's CLI: a prompt against a fake serving Script, with
// more flags Args (a host's own tests: the shared scenarios pass none) and more environment
// Env.
type Prompt struct {
	Script fakechat.Script
	Prompt string
	Args   []string
	Env    []string
}

// Ran is what a headless run produced: the CLI's output and exit code, the fake it ran
// against, and Log, what the run's log line says of it (when each request came).
type Ran struct {
	Stdout, Stderr string
	Code           int
	Fake           *fakechat.Fake
	Log            string
}

// Installed is a fresh Env of the host's with ralph-loop installed by its own installer at
// scope; t skips unless the suite can run.
func (h ChatSuite[E]) Installed(t *testing.T, scope string) E {
	t.Helper()
	return Installed(t, h.Suite, h.NewEnv, scope)
}

// Prompt runs a prompt headless in e; t fails if the CLI could not be run to its end.
func (h ChatSuite[E]) Prompt(t *testing.T, e E, p Prompt) *Ran {
	t.Helper()
	r, err := e.Headless(context.Background(), p)
	return MustRun(t, h.Host, r, err)
}

// MustRun fails t, naming the CLI, when a run of it failed (err); otherwise it logs the run
// and returns it.
func MustRun(t testing.TB, cli string, r *Ran, err error) *Ran {
	t.Helper()
	if err != nil {
		stderr := ""
		if r != nil {
			stderr = r.Stderr
		}
		t.Fatalf("%s: %v\nstderr: %s", cli, err, stderr)
	}
	t.Logf("%s exit %d: %s\nstdout (tail): %s\nstderr: %s", cli, r.Code, r.Log, r.Stdout[max(len(r.Stdout)-2000, 0):], r.Stderr)
	return r
}

// Must is a host's run helper made of its Env's run: a run of the CLI named cli, t failing
// if it could not be run to its end (see MustRun).
func Must[E, R any](cli string, run func(e E, ctx context.Context, r R) (*Ran, error)) func(t testing.TB, e E, r R) *Ran {
	return func(t testing.TB, e E, r R) *Ran {
		t.Helper()
		res, err := run(e, context.Background(), r)
		return MustRun(t, cli, res, err)
	}
}

// ExpectLoop checks e's one loop: its status, iteration and tool calls, and that it is the
// host's.
func (h ChatSuite[E]) ExpectLoop(t testing.TB, e E, status string, iteration, tools int) Loop {
	t.Helper()
	l := OnlyLoop(t, e)
	ExpectLoop(t, l, h.Host, status, iteration, tools)
	return l
}

// Continuations checks that the agent got n user messages after a block, and returns them.
func Continuations(t testing.TB, f *fakechat.Fake, n int) []string {
	t.Helper()
	c := f.Continuations()
	if len(c) != n {
		t.Fatalf("%d continuations, want %d", len(c), n)
	}
	return c
}

// Requests checks that the fake had n agent requests.
func Requests(t testing.TB, f *fakechat.Fake, n int) {
	t.Helper()
	if got := len(f.MainRequests()); got != n {
		t.Errorf("%d agent requests, want %d", got, n)
	}
}

// ToolResult is the result of the last tool call the fake's n-th agent request (from 0)
// carries.
func ToolResult(t testing.TB, f *fakechat.Fake, n int) string {
	t.Helper()
	reqs := f.MainRequests()
	if n >= len(reqs) {
		t.Fatalf("no agent request %d (%d in all)", n+1, len(reqs))
	}
	var result string
	for _, m := range reqs[n].Messages {
		if m.Role == "tool" {
			result = m.Text
		}
	}
	return result
}

// BlockedThenPromise checks that "I'm done" without the promise is blocked and the task
// comes back; work and the promise then end the loop, after three agent requests. It
// returns the Env and the run, for the host's own checks (what reached the model with the
// prompt, what the user was shown).
func (h ChatSuite[E]) BlockedThenPromise(t *testing.T) (E, *Ran) {
	e := h.Installed(t, "user")
	r := h.Prompt(t, e, Prompt{Script: Done(h.Shell), Prompt: `/ralph-loop "Create x.txt containing hi" --max-iterations 5`})
	h.ExpectLoop(t, e, "PROMISE_ACCEPTED", 2, 1)
	c := Continuations(t, r.Fake, 1)
	Contains(t, "the continuation", c[0], "iteration 2/5", "the completion marker was not in your output",
		"<promise>DONE</promise>", "TASK:\nCreate x.txt containing hi")
	ReadFile(t, filepath.Join(e.World().Project, "x.txt"), "hi\n")
	Requests(t, r.Fake, 3)
	return e, r
}

// PromiseWithoutWork checks that the promise in the first answer, with no tool call, is
// rejected; the agent's attempt to cancel its own loop from the shell is denied by the
// guard (and is no work); after real work (the shell command work, which writes x.txt) the
// promise is accepted. It returns the Env, the run and the denied call's result.
func (h ChatSuite[E]) PromiseWithoutWork(t *testing.T, work string) (E, *Ran, string) {
	e := h.Installed(t, "user")
	r := h.Prompt(t, e, Prompt{
		Script: fakechat.Script{Turns: []fakechat.Turn{
			fakechat.Text("<promise>DONE</promise>"),
			h.Shell("Let me end this loop.", "ralph-loop cancel --all"),
			h.Shell("Fine, doing the work.", work),
			fakechat.Text("Now it is really done. <promise>DONE</promise>"),
		}},
		Prompt: `/ralph-loop "Create x.txt containing hi"`,
	})
	h.ExpectLoop(t, e, "PROMISE_ACCEPTED", 2, 1)
	c := Continuations(t, r.Fake, 1)
	Contains(t, "the continuation", c[0], "only 0 tool calls have been made")
	denied := ToolResult(t, r.Fake, 2)
	Contains(t, "the denied call's result", denied, "ralph-loop")
	ReadFile(t, filepath.Join(e.World().Project, "x.txt"), "hi\n")
	return e, r, denied
}

// NoLoopUntouched checks that a session without a loop is left alone: the answer reaches
// stdout, the run exits 0 after two agent requests, no user message of them holds any of
// marks (what a hook of ralph-loop's would add), and there is no loop. It returns the run.
func (h ChatSuite[E]) NoLoopUntouched(t *testing.T, marks ...string) *Ran {
	e := h.Installed(t, "user")
	r := h.Prompt(t, e, Prompt{
		Script: fakechat.Script{Turns: []fakechat.Turn{h.Shell("", "echo hi > x.txt"), fakechat.Text("Done: x.txt. <promise>DONE</promise>")}},
		Prompt: "Create x.txt containing hi",
	})
	if r.Code != 0 || !strings.Contains(r.Stdout, "Done: x.txt. <promise>DONE</promise>") {
		t.Errorf("exit %d, stdout %q", r.Code, r.Stdout)
	}
	Requests(t, r.Fake, 2)
	for _, q := range r.Fake.MainRequests() {
		for _, m := range q.Messages {
			for _, mark := range marks {
				if m.Role == "user" && strings.Contains(m.Text, mark) {
					t.Errorf("a hook added to a request: %q", m.Text)
				}
			}
		}
	}
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("status: %v %+v; want no loops", err, loops)
	}
	return r
}

// ProjectScope checks that, installed at project scope with the command file at
// commandFile (under the project), the hooks run the ralph-loop found on PATH, and the
// loop runs: blocked once, then accepted.
func (h ChatSuite[E]) ProjectScope(t *testing.T, commandFile string) {
	e := h.Installed(t, "project")
	if _, err := os.Stat(filepath.Join(e.World().Project, commandFile)); err != nil {
		t.Fatalf("no project command file: %v", err)
	}
	r := h.Prompt(t, e, Prompt{Script: Done(h.Shell), Prompt: `/ralph-loop "Create x.txt containing hi" --max-iterations 3`,
		Env: []string{"PATH=" + filepath.Dir(h.Suite.RalphLoop) + string(os.PathListSeparator) + os.Getenv("PATH")},
	})
	h.ExpectLoop(t, e, "PROMISE_ACCEPTED", 2, 1)
	Continuations(t, r.Fake, 1)
}

// Budget is the token budget scenario (see TokenBudget) on the host's CLI.
func (h ChatSuite[E]) Budget(t *testing.T, lastLate bool, after func(t *testing.T, name string, e Host)) {
	TokenBudget(t, h.Host, func(t *testing.T, script fakechat.Script, prompt string) (Host, *fakechat.Fake) {
		e := h.Installed(t, "user")
		return e, h.Prompt(t, e, Prompt{Script: script, Prompt: prompt}).Fake
	}, lastLate, after)
}

// SettingsSyntax is the settings syntax scenario (see the package function) on the host's
// CLI, whose settings file, the one install writes the hooks into, is settings(e).
func (h ChatSuite[E]) SettingsSyntax(t *testing.T, settings func(e E) string) {
	SettingsSyntax(t, h.Title, h.Host, func(t *testing.T, s Syntax, prompt string) Installer {
		e := h.Installed(t, "user")
		ApplySyntax(t, settings(e), s)
		h.Prompt(t, e, Prompt{Script: fakechat.Script{WhenDone: fakechat.Text("Still thinking, not done.")}, Prompt: prompt})
		return e
	})
}

// HookTime is make bench's figure for the host (see BenchHost): a loop of iterations
// iterations, each one shell call, then a text turn, with ralph-loop installed at project
// scope and its hooks timed; stop is the host's stop event, prepare (if not nil) readies
// each Env before the run.
func (h ChatSuite[E]) HookTime(t *testing.T, stop string, iterations int, prepare func(t *testing.T, e E)) {
	h.Suite.Bench(t, h.Title, h.Host, stop, iterations, func(t *testing.T, root, ralphLoop string) Loop {
		e, err := h.NewEnv(root, h.Suite.Bin, ralphLoop)
		if err != nil {
			t.Fatal(err)
		}
		BenchRepo(t, e.World().Project)
		if _, err := e.Install(context.Background(), "project"); err != nil {
			t.Fatal(err)
		}
		if prepare != nil {
			prepare(t, e)
		}
		turns := BenchTurns(iterations, h.Shell, fakechat.Text)
		h.Prompt(t, e, Prompt{Script: fakechat.Script{Turns: turns, WhenDone: fakechat.Text("Out of script.")}, Prompt: BenchPrompt(iterations)})
		return SessionLoop(t, e, OnlyLoop(t, e).SessionID)
	})
}

// SessionLoop is the loop of a session as status shows it, with its events.
func SessionLoop(t testing.TB, e Host, session string) Loop {
	t.Helper()
	out, err := e.RalphLoopCmd(context.Background(), "status", "--session", session, "--json")
	if err != nil {
		t.Fatal(err)
	}
	loops, err := DecodeStatus(out)
	if err != nil || len(loops) == 0 {
		t.Fatalf("status of session %s: %v", session, err)
	}
	return loops[0]
}

// Count runs in e a loop allowed n iterations that never promises: each iteration appends
// its number to progress.txt, then says it is still working.
func (h ChatSuite[E]) Count(t *testing.T, e E, n int) *Ran {
	t.Helper()
	var turns []fakechat.Turn
	for i := 1; i <= n; i++ {
		turns = append(turns, h.Shell("", fmt.Sprintf("echo %d >> progress.txt", i)), fakechat.Text(fmt.Sprintf("Iteration %d: still working.", i)))
	}
	return h.Prompt(t, e, Prompt{
		Script: fakechat.Script{Turns: turns, WhenDone: fakechat.Text("Out of script.")},
		Prompt: fmt.Sprintf(`/ralph-loop "Count to %d in progress.txt" --max-iterations %d`, n, n),
	})
}
