package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// Host is a host suite's Env as its tests reach ralph-loop through it: the loops
// "ralph-loop status" reports, and any other ralph-loop command, run as the host runs it.
type Host interface {
	Status(ctx context.Context) ([]Loop, error)
	RalphLoopCmd(ctx context.Context, args ...string) (string, error)
}

// Installer is a Host whose ralph-loop installs itself at a scope ("user", "project").
type Installer interface {
	Host
	Install(ctx context.Context, scope string) (string, error)
}

// Installed is a fresh Env of s's host, laid out by newEnv in a directory of t's, with
// ralph-loop installed by its own installer at scope; t skips unless the suite can run.
func Installed[E Installer](t *testing.T, s *Suite, newEnv func(root, bin, ralphLoop string) (E, error), scope string) E {
	t.Helper()
	s.Need(t)
	e, err := newEnv(t.TempDir(), s.Bin, s.RalphLoop)
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

// Loops are e's loops as "ralph-loop status" reports them; t fails if it cannot.
func Loops(t testing.TB, e Host) []Loop {
	t.Helper()
	loops, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return loops
}

// OnlyLoop is e's one loop; t fails unless there is exactly one.
func OnlyLoop(t testing.TB, e Host) Loop {
	t.Helper()
	loops := Loops(t, e)
	if len(loops) != 1 {
		t.Fatalf("%d loops, want 1: %+v", len(loops), loops)
	}
	return loops[0]
}

// NoLoops checks that e has no loop.
func NoLoops(t testing.TB, e Host) {
	t.Helper()
	if loops := Loops(t, e); len(loops) != 0 {
		t.Errorf("%d loops, want none: %+v", len(loops), loops)
	}
}

// LogOnFailure has t log ralph-loop's log of e at its end if it failed.
func LogOnFailure(t testing.TB, e Host) {
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := e.RalphLoopCmd(context.Background(), "log")
			t.Logf("ralph-loop log:\n%s", out)
		}
	})
}

// WaitLoop polls "ralph-loop status" of e until the one loop satisfies ok, for up to 90 s.
func WaitLoop(t testing.TB, e Host, what string, ok func(Loop) bool) Loop {
	t.Helper()
	return PollLoop(t, what, 90*time.Second, func() (Loop, bool) {
		loops, err := e.Status(context.Background())
		if err != nil || len(loops) == 0 {
			return Loop{}, false
		}
		last := loops[0]
		// The events come with one session's status only.
		if out, err := e.RalphLoopCmd(context.Background(), "status", "--json", "--session", last.SessionID); err == nil {
			if ls, err := DecodeStatus(out); err == nil && len(ls) > 0 {
				last = ls[0]
			}
		}
		return last, true
	}, ok)
}

// PollLoop reads a loop with read every 250 ms until ok holds for it, and returns it; t
// fails, with the last loop read, if it does not within the time given. read says whether
// it read one.
func PollLoop(t testing.TB, what string, within time.Duration, read func() (Loop, bool), ok func(Loop) bool) Loop {
	t.Helper()
	deadline := time.Now().Add(within)
	var last Loop
	for time.Now().Before(deadline) {
		if l, found := read(); found {
			last = l
			if ok(last) {
				return last
			}
		}
		time.Sleep(250 * time.Millisecond) // read runs "ralph-loop status": a process each time
	}
	t.Fatalf("no loop %s within %ds; last seen: %s at %d/%d (%s)", what, int(within.Seconds()), last.Status, last.Iteration, last.MaxIterations, last.EndReason)
	return last
}

// Typist types into a host's TUI in tmux as a user does. Box reads the TUI's prompt box off
// a screen.
type Typist struct {
	*tmux.Session
	Box func(screen string) string
}

// Submit types text at the prompt and presses Enter once the box shows it.
func (u *Typist) Submit(t testing.TB, text string) {
	t.Helper()
	if err := u.Type(context.Background(), text); err != nil {
		t.Fatal(err)
	}
	u.Enter(t, text[:min(len(text), 20)])
}

// Enter presses Enter once the prompt box shows head, and again if it still does a moment
// later (a completion menu took the first one).
func (u *Typist) Enter(t testing.TB, head string) {
	t.Helper()
	ctx := context.Background()
	if _, err := u.WaitUntil(ctx, "the typed text in the prompt box", 10*time.Second, func(screen string) bool {
		return strings.Contains(u.Box(screen), head)
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := u.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.WaitUntil(ctx, "an empty prompt box", 2*time.Second, func(screen string) bool {
		return !strings.Contains(u.Box(screen), head)
	}); err != nil {
		if err := u.Keys(ctx, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
}

// Await waits up to 90 s until the screen shows text, and returns the screen.
func (u *Typist) Await(t testing.TB, text string) string {
	t.Helper()
	screen, err := u.WaitFor(context.Background(), text, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return screen
}

// NoScreenErrors fails t if the screen shows what reads as a failure of ralph-loop's.
func NoScreenErrors(t testing.TB, screen string) {
	t.Helper()
	for _, bad := range []string{"Unknown command", "ralph-loop: error", "hook is not installed", "not cancelled", "did not run"} {
		if tmux.Contains(screen, bad) {
			t.Errorf("the screen shows %q:\n%s", bad, tmux.Trim(screen))
		}
	}
}

// BudgetRun is a host suite's headless run for TokenBudget: in a fresh Env with ralph-loop
// installed, the host CLI runs prompt to its end against a fake serving script; it returns
// the Env and the fake.
type BudgetRun func(t *testing.T, script fakechat.Script, prompt string) (Host, *fakechat.Fake)

// TokenBudget is the token budget scenario of a host run headless, its loops
// never promising: each agent request reports 2,000 prompt tokens of which 1,500 cached and
// 300 completion tokens, 2,300 tokens as the host records them; a loop with
// --max-iterations 4 ends BUDGET_EXHAUSTED by --max-tokens 5000 at the stop of its third
// iteration (6,900 >= 5,000), and a budget never reached changes nothing (4 iterations).
// lastLate: the host may record a turn's usage after the stop that ends the loop, so the
// last turn of a loop ended by its iterations may not count yet. after, if not nil, runs
// at the end of each case with its name ("tokens", "never reached").
func TokenBudget(t *testing.T, host string, run BudgetRun, lastLate bool, after func(t *testing.T, name string, e Host)) {
	perTurn := fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}
	for _, c := range []struct {
		name, flags, status string
		iteration           int
	}{
		{"tokens", "--max-tokens 5000", "BUDGET_EXHAUSTED", 3},
		{"never reached", "--max-tokens 1000000", "MAX_ITERATIONS_REACHED", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, fake := run(t, fakechat.Script{WhenDone: fakechat.Text("Still thinking."), Usage: &perTurn},
				`/ralph-loop "Think hard" --max-iterations 4 --min-tool-calls 0 `+c.flags)
			l := OnlyLoop(t, e)
			LogOnFailure(t, e)
			ExpectLoop(t, l, host, c.status, c.iteration, 0)
			if n := len(fake.MainRequests()); n != c.iteration {
				t.Errorf("%d agent requests, want %d", n, c.iteration)
			}
			if want := int64(c.iteration * 2300); l.Tokens != want && (!lastLate || c.status == "BUDGET_EXHAUSTED" || l.Tokens != want-2300) {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			if after != nil {
				after(t, c.name, e)
			}
		})
	}
}

// Ended is true once every loop of e has ended (and there is one).
func Ended(e Host) bool {
	loops, err := e.Status(context.Background())
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

// WriteProgram writes data to path as an executable file, with no process started
// meanwhile. A process forked from the test binary while the file is open for writing
// holds it open until it execs, and an exec of the file then fails with "text file busy"
// (ETXTBSY; golang.org/issue/22315): parallel tests fork all the time, and writing a copy
// of ralph-loop (11 MB) takes long enough to be caught.
func WriteProgram(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}

// Read is what the file at path holds; t fails if it cannot be read.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadFile checks that the file at path holds want.
func ReadFile(t testing.TB, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", filepath.Base(path), b, err, want)
	}
}

// LastUser is the last user message of the fake's n-th agent request (from 0).
func LastUser(t testing.TB, f *fakechat.Fake, n int) string {
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

// Until polls cond every 100 ms until it holds or within has passed, and reports whether
// it held.
func Until(within time.Duration, cond func() bool) bool {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Shown checks that the user was shown each of wants, waiting up to 10 s: shown is what
// the user has been shown so far (the host's notices, a line each), what its name ("the
// toasts").
func Shown(t testing.TB, what string, shown func() string, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		all := shown()
		missing := ""
		for _, want := range wants {
			if !strings.Contains(all, want) {
				missing = want
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the user was not shown %q; %s:\n%s", missing, what, all)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// SettingsSyntax runs the settings syntax scenario (see Syntax) on host's CLI, named title
// ("Qwen Code"): for each of Syntaxes, run lays out a fresh Env with ralph-loop installed at
// user scope, rewrites its settings file in the syntax, and runs prompt, a loop of 2
// iterations that never promises, against a fake that never does; the CLI read the file if
// the loop ran to its limit, and install must say the same of it.
func SettingsSyntax(t *testing.T, title, host string, run func(t *testing.T, s Syntax, prompt string) Installer) {
	for _, s := range Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			e := run(t, s, `/ralph-loop "Think it through" --max-iterations 2 --min-tool-calls 0`)
			loops, err := e.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			read := len(loops) > 0
			if read {
				ExpectLoop(t, loops[0], host, "MAX_ITERATIONS_REACHED", 2, 0)
			}
			_, err = e.Install(context.Background(), "user")
			CheckSyntaxClaim(t, title, s, read, err)
		})
	}
}
