package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/state"
)

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show a loop's timeline: each iteration, what was found, the decisions and why, the checks",
		UsageText: "ralph-loop log [--session ID] [--follow]",
		Description: "Without --session, the session whose loop changed last (an active one first). With --follow, " +
			"new events are printed as they happen, until the loop ends or you press Ctrl-C.",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the session whose loops to show"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing events as they happen"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("log takes no arguments")
			}
			store := newStore()
			id := cmd.String("session")
			if id == "" {
				loops, err := allLoops(store)
				if len(loops) == 0 {
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.Root().Writer, "no ralph loops (state directory: %s)\n", store.Dir())
					return nil
				}
				id = loops[0].SessionID
			} else if err := state.ValidSessionID(id); err != nil {
				return usageError{err}
			}
			if cmd.Bool("follow") {
				ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
				defer stop()
				return follow(ctx, cmd.Root().Writer, store, id)
			}
			_, err := printLog(cmd.Root().Writer, store, id, 0)
			return err
		},
	}
}

// printLog prints a session's events from the n-th on, each loop introduced by a header,
// and returns how many events there are.
func printLog(w io.Writer, store *state.Store, id string, from int) (int, error) {
	events, err := store.Events(id)
	if err != nil {
		return 0, err
	}
	if from == 0 && len(events) == 0 {
		fmt.Fprintf(w, "session %s has no ralph loop events\n", id)
		return 0, nil
	}
	loops, _ := store.Loops(id)
	byID := map[string]state.Loop{}
	for _, l := range loops {
		byID[l.LoopID] = l
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	last := ""
	if from > 0 && from <= len(events) {
		last = events[from-1].LoopID
	}
	for _, e := range events[min(from, len(events)):] {
		if e.LoopID != last {
			tw.Flush()
			if l, ok := byID[e.LoopID]; ok {
				fmt.Fprintf(w, "loop %s in session %s (%s, %s): %s\n", l.LoopID, id, mode(l), statusWord(l, time.Now()), firstLine(l.Task, 70))
			} else {
				fmt.Fprintf(w, "loop %s in session %s\n", e.LoopID, id)
			}
			last = e.LoopID
		}
		fmt.Fprintf(tw, "  %s\t#%d\t%s\t%s\n", e.At.Local().Format("2006-01-02 15:04:05.000"), e.Iteration, e.Action, e.Reason)
	}
	tw.Flush()
	return len(events), nil
}

// follow prints the log, then new events as they come, until the session's loop is no
// longer active (or ctx ends).
func follow(ctx context.Context, w io.Writer, store *state.Store, id string) error {
	n, err := printLog(w, store, id, 0)
	if err != nil {
		return err
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		l, _ := store.Peek(id)
		if l != nil && l.Status != state.Active {
			// One more read: the final events may have come with the status.
			_, err := printLog(w, store, id, n)
			if err == nil {
				fmt.Fprintf(w, "loop %s\n", strings.ToLower(string(l.Status)))
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if n, err = printLog(w, store, id, n); err != nil {
			return err
		}
	}
}
