package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/args"
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
			return err
		},
	}
}
