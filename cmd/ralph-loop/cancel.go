package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func cancelCommand() *cli.Command {
	return &cli.Command{
		Name:         "cancel",
		Usage:        "end a session's active loop, or every active loop",
		UsageText:    "ralph-loop cancel (--session ID | --all)",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the session whose loop to cancel"},
			&cli.BoolFlag{Name: "all", Usage: "cancel every active loop on this machine"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id, all := cmd.String("session"), cmd.Bool("all")
			if cmd.NArg() > 0 || (id == "") == !all {
				return usagef("cancel takes exactly one of --session ID and --all")
			}
			env := hookEnv(cmd)
			if err := refuseInside(ctx, commandLine(), env.Store); err != nil {
				return err
			}
			ids := []string{id}
			if all {
				var err error
				if ids, err = env.Store.Sessions(); err != nil {
					return err
				}
			} else if err := state.ValidSessionID(id); err != nil {
				return usageError{err: err}
			}
			w := newTerminalWriter(cmd.Root().Writer)
			n := 0
			for _, id := range ids {
				if all {
					// Only sessions with an active loop: no lock for the others.
					l, err := env.Store.Peek(id)
					if !errors.Is(err, state.ErrUnverified) && (err != nil || l == nil || l.Status != state.Active) {
						continue
					}
				} else if l, err := env.Store.Peek(id); err == nil && l == nil && !exists(env.Store.SessionDir(id)) {
					// A session ralph-loop never saw (nothing to lock, nothing created): not
					// there, as for status (exit 1; a typed id may be wrong).
					return fmt.Errorf("session %s has no ralph loop", id)
				}
				l, err := cancelSession(ctx, env, id)
				if err != nil {
					return err
				}
				if l != nil {
					n++
					fmt.Fprintf(w, "session %s: %s\n", id, inject.Cancelled(l))
				}
			}
			if n == 0 {
				if all {
					fmt.Fprintln(w, "no active ralph loops")
				} else {
					fmt.Fprintf(w, "session %s: %s\n", id, inject.NothingToCancel)
				}
			}
			return nil
		},
	}
}

// cancelSession ends session id's active loop as "ralph-loop cancel" does, once the command
// was let through (refuseInside), saying who ended it as far as ralph-loop can tell. It
// returns the loop as it ended, nil when it was not active.
func cancelSession(ctx context.Context, env hook.Env, id string) (*state.Loop, error) {
	by, why := cancelledBy(env.Store, id)
	l, err := hook.Cancel(ctx, env, id, by, why, false)
	if err != nil {
		return nil, fmt.Errorf("cancel the loop of session %s: %w", id, err)
	}
	return l, nil
}

// cancelledBy says who cancels session id's loop with this command, as far as ralph-loop can
// tell (it has not been refused): outside the session ("a terminal") only when the loop's
// host is known and the process table shows this command is not below it.
func cancelledBy(store *state.Store, id string) (by, why string) {
	l, err := store.Peek(id)
	var u *state.UnverifiedError
	if errors.As(err, &u) {
		l, err = u.Placeholder(), nil // its host, as its witness names it
	}
	switch {
	case proc.Supported && err == nil && l != nil && l.Owner != nil:
		return state.ByTerminal, inject.EndCancelTerminal
	case insideSession(id):
		// Where who runs it cannot be told, the session's variable is all there is to go on.
		return state.ByInside, inject.EndCancelInside
	case stdinTerminal():
		// The loop's host is not known yet (no hook of its session has run since "ralph-loop
		// start"), so no tool call of the agent has run since either (its tool hook would have
		// named the host): typed in a terminal, by the user.
		return state.ByTerminal, inject.EndCancelTerminal
	}
	return state.ByCommand, inject.EndCancelCommand
}

// insideSession reports whether this process runs inside the agent session id: a host's
// session variable (set in the agent's shell) names it. Such a cancel is not the user's
// /cancel-ralph, and the user is told about it at the session's next stop or prompt.
func insideSession(id string) bool {
	for _, h := range hosts.All {
		if v := h.Facts(os.Getenv, "").SessionEnv; v != "" && os.Getenv(v) == id {
			return true
		}
	}
	return false
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
