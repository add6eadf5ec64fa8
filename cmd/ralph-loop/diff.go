package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/program"
	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/state"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "print what a loop's iterations changed in the work tree, from its checkpoints (--checkpoint)",
		UsageText: "ralph-loop diff LOOP [N]",
		Description: "LOOP is a loop's id (as status and log show it) or a session's id (its last loop); a unique beginning " +
			"of either will do. With N, the patch of iteration N (against the checkpoint before it; 0 is the work tree " +
			"when the loop was armed, against HEAD); without it, the patch of the whole loop. Only for a loop armed " +
			"with --checkpoint, whose commits are under refs/ralph-loop/LOOP/ in its repository: git can take you back " +
			"to any of them (git restore --source=refs/ralph-loop/LOOP/N -- .).",
		OnUsageError: onUsageError,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() < 1 || cmd.NArg() > 2 {
				return usagef("diff takes a loop and at most one iteration")
			}
			n := -1
			if cmd.NArg() == 2 {
				v, err := strconv.Atoi(cmd.Args().Get(1))
				if err != nil || v < 0 {
					return usagef("%q is not an iteration", cmd.Args().Get(1))
				}
				n = v
			}
			l, err := findLoop(newStore(), cmd.Args().First())
			if err != nil {
				return err
			}
			if !l.Checkpoint || l.Work.Repo == "" {
				why := "it was not armed with --checkpoint"
				if l.Checkpoint {
					why = l.Work.Note
				}
				return fmt.Errorf("loop %s kept no checkpoints: %s", l.LoopID, why)
			}
			repo, err := loopRepo(l)
			if err != nil {
				return err
			}
			refs, err := worktree.Refs(ctx, repo, worktree.RefPrefix+l.LoopID+"/")
			if err != nil {
				return err
			}
			byN := map[int]string{}
			var have []int
			for _, r := range refs {
				if i, err := strconv.Atoi(r[0][strings.LastIndexByte(r[0], '/')+1:]); err == nil {
					byN[i] = r[1]
					have = append(have, i)
				}
			}
			slices.Sort(have)
			if len(have) == 0 {
				return fmt.Errorf("loop %s has no checkpoints left in %s (removed by gc, or by hand)", l.LoopID, l.Work.Repo)
			}
			w := cmd.Root().Writer
			if n >= 0 {
				c, ok := byN[n]
				if !ok {
					return fmt.Errorf("loop %s has no checkpoint %d: it has %s", l.LoopID, n, strings.Trim(fmt.Sprint(have), "[]"))
				}
				return worktree.Diff(ctx, repo, "", c, w)
			}
			return worktree.Diff(ctx, repo, byN[have[0]], byN[have[len(have)-1]], w)
		},
	}
}

// findLoop returns the loop id names: a loop's id, a session's id (its last loop), or a
// unique beginning of either, as status shows them. A beginning that names more than one
// is an error listing them.
func findLoop(store *state.Store, id string) (state.Loop, error) {
	loops, readErr := allLoops(store)
	for _, l := range loops {
		if l.LoopID == id {
			return l, nil
		}
	}
	if state.ValidSessionID(id) == nil {
		if ls, err := store.Loops(id); err == nil && len(ls) > 0 {
			return ls[0], nil
		}
	}
	// A beginning: of loops' ids, and of sessions' ids (each session its last loop).
	type match struct {
		loop state.Loop
		what string
	}
	var found []match
	seen := map[string]bool{}
	add := func(l state.Loop, what string) {
		if !seen[l.LoopID] {
			seen[l.LoopID] = true
			found = append(found, match{l, what})
		}
	}
	last := map[string]bool{} // each session's last loop, the one its id names
	for _, l := range loops {
		if !last[l.SessionID] {
			last[l.SessionID] = true
			if strings.HasPrefix(l.SessionID, id) {
				add(l, fmt.Sprintf("session %s (its last loop, %s)", l.SessionID, l.LoopID))
			}
		}
	}
	for _, l := range loops {
		if strings.HasPrefix(l.LoopID, id) {
			add(l, fmt.Sprintf("loop %s (session %s)", l.LoopID, l.SessionID))
		}
	}
	switch {
	case len(found) == 1:
		return found[0].loop, nil
	case len(found) > 1:
		var names []string
		for _, m := range found {
			names = append(names, m.what)
		}
		return state.Loop{}, usagef("%q is the beginning of more than one: %s; give more of it", id, strings.Join(names, ", "))
	case readErr != nil:
		return state.Loop{}, readErr
	}
	return state.Loop{}, fmt.Errorf("no loop or session %q (ralph-loop status --all lists them)", id)
}

// loopRepo is the git work tree a loop recorded, found again without git, with the git to
// run there: on PATH outside the loop's project, as the hooks find it (see package program). Its git reads no configuration the agent could have
// written (see package worktree).
func loopRepo(l state.Loop) (worktree.Repo, error) {
	r, err := worktree.Find(l.Work.Repo)
	if err == nil && r.Top != filepath.Clean(l.Work.Repo) {
		err = worktree.ErrNotRepo
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", l.Work.Repo, err)
	}
	git, err := program.For(os.Getenv, l.Cwd, l.Work.Repo).Look("git")
	if err != nil {
		return r, fmt.Errorf("%w (%v)", worktree.ErrNoGit, err)
	}
	r.Git = git
	return r, nil
}
