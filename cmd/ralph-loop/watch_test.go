package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/internal/dash"
)

// watchWorld is a loop run through the engine (the stand-in host's payloads), and a
// watcher of its session.
type watchWorld struct {
	e *hosttest.Engine
	f hosttest.Claude
	s hosttest.Session
	w *watcher
}

func newWatchWorld(t *testing.T, session string) *watchWorld {
	e := hosttest.NewEngine(t, claude.Host{})
	e.Now = time.Now().UTC()
	e.Env["CLAUDE_PROJECT_DIR"] = ""
	s := hosttest.Session{ID: "s1", Cwd: e.Dir, Transcript: filepath.Join(e.Dir, "s1.jsonl")}
	return &watchWorld{e: e, f: hosttest.NewClaude(t, claude.Host{}, "Bash", nil), s: s, w: &watcher{store: e.Store, session: session}}
}

func (ww *watchWorld) handle(in []byte) {
	ww.e.T.Helper()
	if _, stderr, code := ww.e.Handle(in); code != 0 {
		ww.e.T.Fatalf("hook exit %d: %s", code, stderr)
	}
}

// TestWatchLockFree: the watcher reads a loop whose session lock another process holds,
// as status does, and shows it: it never waits for the lock (a hook holding it is never
// slowed by a dashboard).
func TestWatchLockFree(t *testing.T) {
	ww := newWatchWorld(t, "s1")
	ww.handle(ww.f.Prompt(ww.s, `/ralph-loop "Lock-free" --max-iterations 6`))
	fl := flock.New(filepath.Join(ww.e.Store.SessionDir("s1"), "loop.lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer fl.Unlock()
	snap := ww.w.read(time.Now())
	if snap == nil || len(snap.Loops) != 1 || snap.Problem != "" {
		t.Fatalf("read with the lock held elsewhere: %+v", snap)
	}
	if l := snap.Loops[0]; l.Iteration != 1 || l.MaxIterations != 6 || !l.Active || l.Decision != "armed" {
		t.Errorf("got %+v, want iteration 1/6, active, last decision armed", l)
	}
}

// TestWatchUpdates: the watcher sends the loops again only when they changed, and then
// with the new iteration, the tool calls logged since the stop, the last decision and the
// last checks.
func TestWatchUpdates(t *testing.T) {
	ww := newWatchWorld(t, "s1")
	if snap := ww.w.read(time.Now()); snap == nil || snap.Waiting != "waiting for a loop in session s1" {
		t.Fatalf("before the loop: %+v", snap)
	}
	ww.handle(ww.f.Prompt(ww.s, `/ralph-loop "Watch the checks" --max-iterations 6 --check "exit 3" --max-tokens 5000 --max-time 1h`))
	first := ww.w.read(time.Now())
	if first == nil || len(first.Loops) != 1 {
		t.Fatalf("after arming: %+v", first)
	}
	if again := ww.w.read(time.Now()); again != nil {
		t.Errorf("nothing changed, yet the loops were sent again: %+v", again)
	}
	ww.handle(ww.f.ToolUsed(ww.s, "toolu_1"))
	snap := ww.w.read(time.Now())
	if snap == nil || snap.Loops[0].ToolCalls != 1 {
		t.Fatalf("after a tool call logged: %+v", snap)
	}
	ww.handle(ww.f.Stop(ww.s, "done <promise>DONE</promise>"))
	snap = ww.w.read(time.Now())
	if snap == nil {
		t.Fatal("after the stop: nothing sent")
	}
	l := snap.Loops[0]
	want := dash.Loop{Iteration: 2, MaxIterations: 6, ToolCalls: 1, MinToolCalls: 1, MaxTokens: 5000, MaxTime: time.Hour, Decision: "blocked", Active: true}
	if l.Iteration != want.Iteration || l.ToolCalls != want.ToolCalls || l.MaxTokens != want.MaxTokens || l.MaxTime != want.MaxTime ||
		l.Decision != want.Decision || !l.Active {
		t.Errorf("after a promise whose check fails: got %+v, want %+v", l, want)
	}
	if !strings.Contains(l.Reason, "check 1/1 `exit 3` exited with code 3") {
		t.Errorf("last reason %q, want the failed check", l.Reason)
	}
	if len(l.Checks) != 1 || !strings.Contains(l.Checks[0], "`exit 3`") {
		t.Errorf("last checks %q, want the one that failed", l.Checks)
	}
	if l.Waiting != "the agent works on iteration 2" {
		t.Errorf("waiting %q", l.Waiting)
	}
}

// TestWatchEnded: a session watched whose loop ended is sent with Ended, for the dashboard
// to leave; the loops of the whole machine are never.
func TestWatchEnded(t *testing.T) {
	for _, session := range []string{"s1", ""} {
		ww := newWatchWorld(t, session)
		ww.handle(ww.f.Prompt(ww.s, `/ralph-loop "End me" --max-iterations 1 --min-tool-calls 0`))
		if snap := ww.w.read(time.Now()); snap == nil || snap.Ended {
			t.Fatalf("session %q, active: %+v", session, snap)
		}
		ww.handle(ww.f.Stop(ww.s, "not yet"))
		snap := ww.w.read(time.Now())
		if snap == nil || len(snap.Loops) != 1 || snap.Loops[0].Active || snap.Loops[0].Status != "MAX_ITERATIONS_REACHED" {
			t.Fatalf("session %q, ended: %+v", session, snap)
		}
		if snap.Ended != (session != "") {
			t.Errorf("session %q: Ended %v", session, snap.Ended)
		}
	}
}

// TestWatchChanges: with --checkpoint, the dashboard gets the last iteration's diffstat.
func TestWatchChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ww := newWatchWorld(t, "s1")
	repo := filepath.Join(ww.e.Dir, "repo")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "u")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "u@x")
	}
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	ww.s.Cwd = repo
	ww.handle(ww.f.Prompt(ww.s, `/ralph-loop "Grow a.txt" --checkpoint --max-iterations 4`))
	if snap := ww.w.read(time.Now()); snap == nil || snap.Loops[0].Changes != "" {
		t.Fatalf("before a stop: %+v", snap)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ww.handle(ww.f.ToolUsed(ww.s, "toolu_1"))
	ww.handle(ww.f.Stop(ww.s, "Grew it."))
	snap := ww.w.read(time.Now())
	if snap == nil || !strings.Contains(snap.Loops[0].Changes, "a.txt | 1 +") || !strings.Contains(snap.Loops[0].Changes, "1 file changed, 1 insertion(+)") {
		t.Errorf("after the first iteration: %+v", snap)
	}
}
