package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show a loop's timeline: each iteration, what was found, the decisions and why, the checks",
		UsageText: "ralph-loop log [--session ID] [--follow]",
		Description: "Without --session, the session whose loop changed last (an active one first). With --follow, " +
			"new events are printed as they happen, until the loop ends or you press Ctrl-C; before any loop exists, " +
			"it waits for the first one.",
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
			w := newTerminalWriter(cmd.Root().Writer)
			id := cmd.String("session")
			if id != "" {
				if err := state.ValidSessionID(id); err != nil {
					return usageError{err: err}
				}
			}
			if cmd.Bool("follow") {
				ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
				defer stop()
				var err error
				if id, err = waitForLoop(ctx, w, store, id); err != nil || id == "" {
					return err
				}
				return follow(ctx, w, store, id)
			}
			if id == "" {
				loops, err := allLoops(store)
				if len(loops) == 0 {
					if err != nil {
						return err
					}
					return fmt.Errorf("no ralph loops yet (state directory: %s); \"ralph-loop log --follow\" waits for the first", store.Dir())
				}
				id = loops[0].SessionID
			}
			n, err := printLog(w, store, id, 0)
			if err == nil && n == 0 {
				return fmt.Errorf("session %s has no ralph loop", id)
			}
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
	if len(events) == 0 {
		return 0, nil
	}
	loops, _ := store.Loops(id)
	byID := map[string]state.Loop{}
	for _, l := range loops {
		byID[l.LoopID] = l
	}
	last := ""
	if from > 0 && from <= len(events) {
		last = events[from-1].LoopID
	}
	for _, e := range events[min(from, len(events)):] {
		if e.LoopID != last {
			if l, ok := byID[e.LoopID]; ok {
				fmt.Fprintf(w, "loop %s in session %s (%s, %s, host %s): %s\n", l.LoopID, id, mode(l), statusWord(l, time.Now()), l.Host, firstLine(l.Task, 70))
			} else {
				fmt.Fprintf(w, "loop %s in session %s\n", e.LoopID, id)
			}
			last = e.LoopID
		}
		// Fixed columns, so that lines printed as they come (--follow) line up.
		fmt.Fprintf(w, "  %s  %-5s %-14s %s%s\n", e.At.Local().Format("2006-01-02 15:04:05.000"), fmt.Sprintf("#%d", e.Iteration), e.Action, e.Reason, eventSpent(e))
		if e.Checkpoint != "" {
			printStat(w, byID[e.LoopID], e)
		}
	}
	return len(events), nil
}

// printStat prints what the iteration a stop decided changed in the work tree, from its
// checkpoint (--checkpoint): git's diffstat against the checkpoint before.
func printStat(w io.Writer, l state.Loop, e state.Event) {
	const pad = "                                   "
	short := e.Checkpoint[:min(len(e.Checkpoint), 12)]
	if l.Work.Repo == "" {
		fmt.Fprintf(w, "%scheckpoint %s\n", pad, short)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	repo, err := loopRepo(l)
	stat := ""
	if err == nil {
		stat, err = worktree.Stat(ctx, repo, e.Checkpoint)
	}
	switch {
	case err != nil:
		fmt.Fprintf(w, "%scheckpoint %s: %v\n", pad, short, err)
	case strings.TrimSpace(stat) == "":
		fmt.Fprintf(w, "%scheckpoint %s: no file changed\n", pad, short)
	default:
		fmt.Fprintf(w, "%scheckpoint %s:\n", pad, short)
		for _, line := range strings.Split(strings.TrimRight(stat, "\n"), "\n") {
			fmt.Fprintf(w, "%s%s\n", pad, line)
		}
	}
}

// waitForLoop returns the session to follow: the one given, or the one whose loop changed
// last. Until there is a loop to follow, it waits (saying so once); "" when ctx ends first.
func waitForLoop(ctx context.Context, w io.Writer, store *state.Store, id string) (string, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	said := false
	for {
		if id != "" {
			if l, _ := store.Peek(id); l != nil {
				return id, nil
			}
		} else if loops, _ := allLoops(store); len(loops) > 0 {
			return loops[0].SessionID, nil
		}
		if !said {
			if id != "" {
				fmt.Fprintf(w, "waiting for a loop in session %s (Ctrl-C to stop)\n", id)
			} else {
				fmt.Fprintf(w, "waiting for a loop (state directory: %s; Ctrl-C to stop)\n", store.Dir())
			}
			said = true
		}
		select {
		case <-ctx.Done():
			return "", nil
		case <-tick.C:
		}
	}
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
				fmt.Fprintln(w, inject.LoopEnded(l))
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
