package hook

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// A loop's work tree is recorded, with git, for the stall breaker (--max-stalls: did the
// files change since the last stop?) and the checkpoints (--checkpoint: a commit of the
// files at each iteration's end, under refs/ralph-loop/<loop>/<n>). Both read the files
// through an index of the loop's own (see package worktree); the stall breaker's trees go
// to an object directory of the loop's own, so that without --checkpoint the repository
// gets nothing. Outside a git work tree nothing is recorded: the arming notice says so for
// --checkpoint, and the stall breaker counts an iteration with a tool call as progress.

// How long recording the work tree may take when a loop is armed (the prompt hook's own
// timeout is short) and at a stop; past it the record is given up, and the stall breaker
// counts tool calls instead.
var (
	armTreeTimeout  = 3 * time.Second
	stopTreeTimeout = 5 * time.Second
)

// workStore is where the loop keeps its index (and, without checkpoints, its objects).
func workStore(env Env, l *state.Loop) (worktree.Store, error) {
	dir, err := env.Store.WorkDir(l.SessionID, l.LoopID)
	if err != nil {
		return worktree.Store{}, err
	}
	s := worktree.Store{GitDir: filepath.Join(dir, "git"), Index: filepath.Join(dir, "index")}
	if !l.Checkpoint {
		s.Objects = filepath.Join(dir, "objects")
	}
	return s, nil
}

// snapshot records the loop's work tree now and returns its tree.
func snapshot(ctx context.Context, env Env, l *state.Loop, r worktree.Repo, timeout time.Duration) (string, error) {
	s, err := workStore(env, l)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tree, err := worktree.Snapshot(ctx, r, s)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w: git took more than %s", errSlow, timeout)
	}
	return tree, err
}

// errSlow means reading the work tree took longer than it may: a tree that large is not
// read again for the loop.
var errSlow = errors.New("the work tree is too slow to read")

// repoOf is the loop's git work tree, as it was found, with the git to run there.
func repoOf(env Env, l *state.Loop) worktree.Repo {
	r := worktree.Repo{Top: l.Work.Repo, GitDir: l.Work.GitDir, Objects: l.Work.Objects}
	if r.GitDir == "" && r.Top != "" {
		if f, err := worktree.Find(r.Top); err == nil {
			r.GitDir = f.GitDir // a loop armed by an older ralph-loop
		}
	}
	r.Git, _ = findGit(env, l)
	return r
}

// findGit finds the git the hooks run for the loop: on PATH, outside its project and what
// the agent may write (see programsFor).
func findGit(env Env, l *state.Loop) (string, error) {
	git, err := programsFor(env, l).Look("git")
	if err != nil {
		return "", fmt.Errorf("%w (%v)", worktree.ErrNoGit, err)
	}
	return git, nil
}

// armWork, for a loop with checkpoints, finds its git work tree and records it as it is at
// arming: checkpoint 0, and what the first iteration's progress is measured from. It is
// called inside the session's transaction, before the loop is saved. A loop with the stall
// breaker alone runs no git until a stop needs it (recordWork): arming stays as quick as
// it was.
func armWork(ctx context.Context, env Env, l *state.Loop) {
	if !l.Checkpoint {
		return
	}
	r, ok := findWork(env, l)
	if !ok {
		return
	}
	tree, err := snapshot(ctx, env, l, r, armTreeTimeout)
	if err != nil {
		// Not recorded now, it would not be later either: the loop goes without.
		l.Work = state.Work{Note: inject.NoteTreeFailed(err)}
		return
	}
	l.Work.Tree = tree
	if l.Checkpoint {
		s, err := workStore(env, l)
		if err != nil {
			l.Work.Note = inject.NoteTreeFailed(err)
			return
		}
		c, err := worktree.Commit(ctx, r, s.GitDir, worktree.Ref(l.LoopID, 0), tree, worktree.Head(ctx, r), inject.CheckpointMessage(l, 0), env.Now())
		if err != nil {
			l.Work.Note = inject.NoteTreeFailed(err)
			return
		}
		l.Work.Head = c
	}
}

// findWork finds the loop's git work tree (without running git) and the git to record it
// with, and keeps them in l.Work, or says in l.Work.Note why there is none.
func findWork(env Env, l *state.Loop) (worktree.Repo, bool) {
	r, err := worktree.Find(l.Cwd)
	if err == nil {
		l.Work.Repo = r.Top // the project the git must be outside of
		r.Git, err = findGit(env, l)
	}
	if err != nil {
		l.Work = state.Work{Note: inject.NoteNoWorkTree(l.Cwd, err)}
		return r, false
	}
	l.Work.Repo, l.Work.GitDir, l.Work.Objects = r.Top, r.GitDir, r.Objects
	return r, true
}

// recordWork records the loop's work tree at a stop, when the loop needs it: for a
// checkpoint at every stop; for the stall breaker only where the tree can decide (see
// treeNeeded), the first such stop finding the work tree (its tool calls count as
// progress: there is nothing to compare with yet). A record that fails is noted in the
// stop's event, and the stall breaker counts the tool calls instead.
func recordWork(env Env, l *state.Loop, o *observed) {
	o.Wrote = wroteFiles(o.Logged)
	need, deferred := treeNeeded(l, o.Observation)
	o.Deferred = deferred
	if !need {
		return
	}
	var r worktree.Repo
	if l.Work.Repo == "" {
		if l.Work.Note != "" || l.Checkpoint {
			return // looked for before: none, or too slow
		}
		var ok bool
		if r, ok = findWork(env, l); !ok {
			return
		}
	} else {
		r = repoOf(env, l)
	}
	tree, err := snapshot(context.Background(), env, l, r, stopTreeTimeout)
	if err != nil {
		o.note = joinNote(o.note, inject.NoteTreeFailed(err))
		if errors.Is(err, errSlow) {
			// Every stop would wait as long again: the loop goes on without (the stall
			// breaker counts tool calls; no more checkpoints).
			l.Work.Repo, l.Work.Note = "", inject.NoteTreeFailed(err)
		}
		return
	}
	o.Tree = tree
}

// treeNeeded says whether a stop reads the work tree (need) and, for the stall breaker,
// whether it leaves a tree that could tell to a later stop (deferred). A checkpoint needs
// it at every stop. The stall breaker reads it only when tool calls came that may have
// changed files, none of them a write tool's (its calls are progress as such), and only
// where it decides: to record the streak's start (the first such stop after progress), or
// at the stop that would make the streak --max-stalls long, which compares the files with
// those at its start. A loop that writes files with its tools at every iteration, or whose
// iterations make no tool calls, never runs git; one whose work is shell commands runs it
// twice per --max-stalls iterations at most.
func treeNeeded(l *state.Loop, o Observation) (need, deferred bool) {
	need = l.Checkpoint
	w := &l.Work
	if l.MaxStalls <= 0 || o.Wrote || w.Moved || w.Repo == "" && w.Note != "" {
		return need, false // no stall breaker; progress already; or no git to ask
	}
	if counted, waiting := newToolCalls(l, o); w.Tools+counted+waiting == 0 {
		return need, false // no tool call in the streak: nothing changed
	}
	if w.Tree == "" || w.Stalls+1 >= l.MaxStalls {
		return true, false
	}
	return need, !need
}

// newToolCalls counts the tool calls o shows that the loop has not counted yet, and those
// the host's transcript shows for the first time that wait for the tool log (waiting).
func newToolCalls(l *state.Loop, o Observation) (counted, waiting int) {
	if len(o.Logged) == 0 && len(o.ToolIDs) == 0 {
		return 0, 0
	}
	c := state.Loop{ToolCalls: l.ToolCalls, ToolIDs: l.ToolIDs, Unshown: l.Unshown, Unlogged: l.Unlogged}
	countCalls(&c, o)
	return c.ToolCalls - l.ToolCalls, newlyWaiting(l.Unlogged, c.Unlogged)
}

// newlyWaiting counts the ids in after that are not in before. Given a loop's calls waiting
// for the tool log (Unlogged) before a count and after it, it counts the calls the host's
// transcript showed at this stop that the log does not hold yet; given them the other way
// round, those the log now holds. Waiting calls ran (the transcript is the host's own
// record): a host that writes the log from a hook it runs in the background (Claude Code's
// PostToolUse) can have it a stop or more behind. For the stall breaker they are tool calls
// of the iteration that showed them; the loop counts them once both records hold them.
func newlyWaiting(before, after []string) int {
	n := 0
	for _, id := range after {
		if !slices.Contains(before, id) {
			n++
		}
	}
	return n
}

// wroteFiles reports whether uses hold a completed call of a tool that writes files (one
// the guard refused never ran).
func wroteFiles(uses []state.ToolUse) bool {
	for _, u := range uses {
		if u.Wrote && !u.Denied && !slices.ContainsFunc(uses, func(d state.ToolUse) bool { return d.Denied && d.ToolUseID == u.ToolUseID }) {
			return true
		}
	}
	return false
}

// recordCheckpoint commits the work tree as recorded at a stop (tree) as the checkpoint of
// iteration n, after the one before, and returns the commit ("" when the loop keeps none,
// or it failed: l.Work.Note says why).
func recordCheckpoint(env Env, l *state.Loop, n int, tree string) string {
	if !l.Checkpoint || l.Work.Repo == "" || tree == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTreeTimeout)
	defer cancel()
	s, err := workStore(env, l)
	if err != nil {
		l.Work.Note = inject.NoteTreeFailed(err)
		return ""
	}
	c, err := worktree.Commit(ctx, repoOf(env, l), s.GitDir, worktree.Ref(l.LoopID, n), tree, l.Work.Head, inject.CheckpointMessage(l, n), env.Now())
	if err != nil {
		l.Work.Note = inject.NoteTreeFailed(err)
		return ""
	}
	l.Work.Head, l.Work.Note = c, ""
	return c
}

// joinNote adds a note to the notes of a stop's event.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
