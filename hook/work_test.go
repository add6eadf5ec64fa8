package hook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// gitWrapper puts on PATH a git that logs each run to the returned file, after sleeping
// for delay, then runs the real one.
func gitWrapper(t *testing.T, delay string) string {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "runs")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$@\" >> "+log+"\nsleep "+delay+"\nexec "+gitPath+" \"$@\"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// The stall breaker alone runs no git when a loop is armed: the first stop after a tool call
// finds the work tree and records it. A work tree that then takes longer to read than a stop
// may wait is read no more for the loop: the stop goes on without it (noted), and the stall
// breaker counts tool calls from then.
func TestWorkTreeReadAtStops(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	env := Env{Store: state.NewStore(t.TempDir()), Now: func() time.Time { return t0 }}
	l := loop(func(l *state.Loop) { l.Cwd, l.MaxStalls = dir, 3 })
	runs := gitWrapper(t, "0")
	armWork(context.Background(), env, &l)
	if _, err := os.Stat(runs); err == nil || l.Work != (state.Work{}) {
		t.Fatalf("arming ran git, or recorded %+v", l.Work)
	}
	o := observed{}
	recordWork(env, &l, &o)
	if _, err := os.Stat(runs); err == nil {
		t.Fatal("a stop without tool calls ran git")
	}
	o = observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "a"}}}}
	recordWork(env, &l, &o)
	if l.Work.Repo == "" || len(o.Tree) != 40 || o.note != "" {
		t.Fatalf("the first stop after a tool call: tree %q, note %q, work %+v", o.Tree, o.note, l.Work)
	}

	gitWrapper(t, "1") // a git that takes a second, where a stop may wait 100 ms
	defer func(d time.Duration) { stopTreeTimeout = d }(stopTreeTimeout)
	stopTreeTimeout = 100 * time.Millisecond
	o = observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "b"}}}}
	recordWork(env, &l, &o)
	if o.Tree != "" || !strings.Contains(o.note, "git took more than 100ms") || l.Work.Repo != "" || l.Work.Note == "" {
		t.Errorf("after a slow read: tree %q, note %q, work %+v", o.Tree, o.note, l.Work)
	}
	o = observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "c"}}}}
	recordWork(env, &l, &o)
	if o.note != "" {
		t.Errorf("read again: %q", o.note)
	}
}
