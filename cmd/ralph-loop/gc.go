package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func gcCommand() *cli.Command {
	return &cli.Command{
		Name:         "gc",
		Usage:        "remove finished loops (and their events, task files and check logs) older than a given age",
		UsageText:    "ralph-loop gc --older-than 30d [--dry-run]",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "age of the loops to remove, e.g. 30d, 12h", Required: true},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be removed, remove nothing"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("gc takes no arguments")
			}
			age, err := args.ParseDuration(cmd.String("older-than"))
			if err != nil {
				return usagef("--older-than: %v", err)
			}
			store := newStore()
			res, err := store.GC(ctx, time.Now().Add(-age), cmd.Bool("dry-run"))
			verb := "removed"
			if cmd.Bool("dry-run") {
				verb = "would remove"
			}
			fmt.Fprintf(cmd.Root().Writer, "ralph-loop: %s %d finished loops older than %s (%d whole sessions, %.1f MB); active loops are never removed\n",
				verb, res.Loops, cmd.String("older-than"), res.Sessions, float64(res.Bytes)/(1<<20))
			removeCheckpoints(ctx, cmd.Root().Writer, cmd.Root().ErrWriter, res.Checkpointed, verb, cmd.Bool("dry-run"))
			return err
		},
	}
}

// removeCheckpoints removes the checkpoint refs (refs/ralph-loop/<loop>/) of loops (those
// gc or uninstall --purge removed), in each loop's repository, and says so on w. A
// repository that is gone, or that git cannot change, is named in a warning on errW; the
// others go on.
func removeCheckpoints(ctx context.Context, w, errW io.Writer, loops []state.Loop, verb string, dryRun bool) {
	for _, l := range loops {
		if !l.Checkpoint || l.Work.Repo == "" {
			continue
		}
		prefix := worktree.RefPrefix + l.LoopID + "/"
		var n int
		repo, err := loopRepo(l)
		switch {
		case err != nil:
		case dryRun:
			var refs [][2]string
			refs, err = worktree.Refs(ctx, repo, prefix)
			n = len(refs)
		default:
			n, err = worktree.DeleteRefs(ctx, repo, prefix)
		}
		if err != nil {
			fmt.Fprintf(errW, "ralph-loop: warning: the checkpoints of loop %s in %s: %s\n", l.LoopID, inject.Printable(l.Work.Repo), inject.Printable(err.Error()))
			continue
		}
		if n > 0 {
			fmt.Fprintf(w, "ralph-loop: %s %s (%s*) in %s\n", verb, inject.Plural(n, "checkpoint ref", "checkpoint refs"), prefix, inject.Printable(l.Work.Repo))
		}
	}
}
