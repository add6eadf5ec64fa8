package hook

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/program"
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

// pathPrograms finds programs on $PATH outside the loop's project only: the tests' git
// wrappers live in temporary directories, which a hook skips.
func pathPrograms(dirs []string) program.Finder {
	return program.Finder{Path: os.Getenv("PATH"), Skip: dirs}
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
	env := Env{Store: state.NewStore(t.TempDir()), Now: func() time.Time { return t0 }, Programs: pathPrograms}
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

// The stall breaker asks git only where the work tree decides: a stop after a write tool's
// call, or after no tool call, reads nothing; after shell calls, the first stop of a
// possible streak reads the tree (its start) and the stop that would end the streak reads
// it again to compare, with none in between. Each case runs stops of one loop (--max-stalls
// 3) in a git work tree whose files are a counter the shell calls may change; it counts
// the trees read and checks where the loop ends. On a host that keeps two records of the
// calls (Claude Code: its transcript, and the tool log its PostToolUse hook writes in the
// background), the log may be a stop behind: a call the transcript shows, waiting for the
// log, is a call that ran, and the loop ends where it would with both on time.
func TestStallTreeReads(t *testing.T) {
	type stop struct {
		write, shell, change bool // a write tool's call; a shell call; the files changed
	}
	rep := func(n int, s stop) []stop {
		var out []stop
		for range n {
			out = append(out, s)
		}
		return out
	}
	write, same, changed, talk := stop{write: true, change: true}, stop{shell: true}, stop{shell: true, change: true}, stop{}
	tests := []struct {
		name       string
		checkpoint bool
		lag        int // the tool log this many stops behind the transcript
		stops      []stop
		reads      int
		stalledAt  int // the stop that ends the loop NO_PROGRESS (0: none)
		tools      int // the calls the streak that ended it says it made
	}{
		{"a write at every iteration", false, 0, rep(12, write), 0, 0, 0},
		{"talk only", false, 0, rep(3, talk), 0, 3, 0},
		{"writes, then talk", false, 0, append(rep(2, write), rep(3, talk)...), 0, 5, 0},
		{"shell calls that change nothing", false, 0, rep(6, same), 2, 4, 3},
		{"shell calls that change a file every time", false, 0, rep(12, changed), 4, 0, 0},
		{"a change in the streak delays its end", false, 0, []stop{same, changed, same, same, same, same, same}, 3, 7, 3},
		{"a write, then shell calls that change nothing", false, 0, append([]stop{write}, rep(5, same)...), 2, 5, 3},
		{"checkpoints read at every stop", true, 0, rep(5, write), 5, 0, 0},
		{"shell calls that change nothing, logged a stop late", false, 1, rep(6, same), 2, 4, 3},
		{"shell calls that change nothing, logged two stops late", false, 2, rep(6, same), 2, 4, 3},
		{"shell calls that change a file every time, logged a stop late", false, 1, rep(12, changed), 4, 0, 0},
		{"a change in the streak, logged a stop late", false, 1, []stop{same, changed, same, same, same, same, same}, 3, 7, 3},
		{"talk only, with the tool log late", false, 1, rep(3, talk), 0, 3, 0},
	}
	for _, tt := range tests {
		l := loop(func(l *state.Loop) {
			l.MaxIterations, l.MaxStalls, l.MinToolCalls = 50, 3, 0
			l.Checkpoint = tt.checkpoint
			l.Work.Repo = "/r"
		})
		files, reads, n := 0, 0, 0
		stalledAt := 0
		var late [][]state.ToolUse // the calls the log has not got yet, a stop's to an entry
		for i, s := range tt.stops {
			var o Observation
			var calls []state.ToolUse
			if s.write || s.shell {
				n++
				id := fmt.Sprintf("t%d", n)
				calls = []state.ToolUse{{LoopID: l.LoopID, ToolUseID: id, Wrote: s.write}}
			}
			o.Logged = calls
			if tt.lag > 0 {
				o.Record = RecordBoth
				for _, c := range calls {
					o.ToolIDs = append(o.ToolIDs, c.ToolUseID)
				}
				late = append(late, calls)
				o.Logged = nil
				if len(late) > tt.lag {
					o.Logged, late = late[0], late[1:]
				}
			}
			if s.change {
				files++
			}
			o.Now, o.Wrote = t0, wroteFiles(o.Logged)
			need, deferred := treeNeeded(&l, o)
			o.Deferred = deferred
			if need {
				reads++
				o.Tree = fmt.Sprintf("tree%d", files)
			}
			var v Verdict
			v, l = Decide(l, o)
			if v == Stalled {
				stalledAt = i + 1
				break
			}
			if v != Continue {
				t.Fatalf("%s: stop %d: %v", tt.name, i+1, v)
			}
		}
		if reads != tt.reads || stalledAt != tt.stalledAt {
			t.Errorf("%s: %d trees read, stalled at stop %d; want %d, %d", tt.name, reads, stalledAt, tt.reads, tt.stalledAt)
		}
		if stalledAt != 0 && l.Work.Tools != tt.tools {
			t.Errorf("%s: the streak made %d tool calls, want %d", tt.name, l.Work.Tools, tt.tools)
		}
	}
}

// A write the guard refused never ran: it is no progress.
func TestWroteFiles(t *testing.T) {
	if wroteFiles([]state.ToolUse{{ToolUseID: "a"}, {ToolUseID: "b", Wrote: true, Denied: true}}) {
		t.Error("a refused write counted")
	}
	if wroteFiles([]state.ToolUse{{ToolUseID: "b", Denied: true}, {ToolUseID: "b", Wrote: true}}) {
		t.Error("a write whose id the guard refused counted")
	}
	if !wroteFiles([]state.ToolUse{{ToolUseID: "a"}, {ToolUseID: "b", Wrote: true}}) {
		t.Error("a completed write did not count")
	}
}

// A PATH that names the project's bin/ first: the git the agent wrote there never runs; the
// work tree is read with the git found past it (issue 36: a bin/git planted by the agent's
// sandboxed shell ran at the next stop, outside the sandbox).
func TestPlantedGitOnPath(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "git"), []byte("#!/bin/sh\n: > '"+ran+"'\nexit 1\n"), 0o755)
	path := filepath.Join(dir, "bin") + string(os.PathListSeparator) + "bin" + string(os.PathListSeparator) + os.Getenv("PATH")
	t.Setenv("PATH", path)
	env := Env{Store: state.NewStore(t.TempDir()), Now: func() time.Time { return t0 }}
	l := loop(func(l *state.Loop) { l.Cwd, l.MaxStalls, l.Checkpoint = filepath.Join(dir), 3, true })
	t.Chdir(dir)
	armWork(context.Background(), env, &l)
	o := observed{Observation: Observation{Logged: []state.ToolUse{{ToolUseID: "a"}}}}
	recordWork(env, &l, &o)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the project's bin/git ran")
	}
	if len(o.Tree) != 40 || l.Work.Head == "" || o.note != "" {
		t.Errorf("the work tree was not recorded with the git past bin/: tree %q, head %q, note %q", o.Tree, l.Work.Head, o.note)
	}
}
