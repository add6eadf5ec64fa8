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

// A work tree that takes longer to read than a stop may wait is read no more for the loop:
// the stop goes on without it (noted), and the stall breaker counts tool calls from then.
func TestSlowWorkTreeIsLeftAlone(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	env := Env{Store: state.NewStore(t.TempDir()), Now: func() time.Time { return t0 }}
	l := loop(func(l *state.Loop) { l.Cwd, l.MaxStalls = dir, 3 })
	armWork(context.Background(), env, &l)
	if l.Work.Repo == "" || l.Work.Tree == "" {
		t.Fatalf("armed without the work tree: %+v", l.Work)
	}
	// A git that takes a second, where a stop may wait 100 ms.
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nsleep 1\nexec "+gitPath+" \"$@\"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func(d time.Duration) { stopTreeTimeout = d }(stopTreeTimeout)
	stopTreeTimeout = 100 * time.Millisecond
	o := observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "a"}}}}
	recordWork(env, &l, &o)
	if o.Tree != "" || !strings.Contains(o.note, "git took more than 100ms") || l.Work.Repo != "" || l.Work.Note == "" {
		t.Errorf("after a slow read: tree %q, note %q, work %+v", o.Tree, o.note, l.Work)
	}
	o = observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "b"}}}}
	recordWork(env, &l, &o)
	if o.note != "" {
		t.Errorf("read again: %q", o.note)
	}
}
