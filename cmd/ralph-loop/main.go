// Command ralph-loop keeps a coding agent working on a task, inside its current session,
// until it has really finished: it is the agent host's stop hook, and the tool to arm,
// inspect and cancel loops from a terminal.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// usageError marks errors in how a command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries an exit code without a message (the message was printed already).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	return exitCode(app.Run(ctx, argv), stderr)
}

// exitCode maps an error to the process exit code, printing it as one line.
func exitCode(err error, stderr io.Writer) int {
	var code exitError
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "ralph-loop: error: %s\nralph-loop: hint: run \"ralph-loop help\" for usage\n", inject.Printable(usage.err.Error()))
		return 2
	}
	// One line, escaped: errors name files and quote state a repository may have written.
	fmt.Fprintf(stderr, "ralph-loop: error: %s\n", inject.Printable(err.Error()))
	return 1
}

// stateDir is where loops are kept: $XDG_STATE_HOME/ralph-loop.
func stateDir() string {
	return filepath.Join(xdg.StateHome, "ralph-loop")
}

// keepDir is where ralph-loop keeps its own copy of every loop and the key that signs
// them: $XDG_DATA_HOME/ralph-loop, out of the way of what happens to the state directory.
func keepDir() string {
	return filepath.Join(xdg.DataHome, "ralph-loop")
}

func newStore() *state.Store {
	s := state.NewStore(stateDir())
	s.SetKeepDir(keepDir())
	s.Foreign = foreignLock
	return s
}

func onUsageError(_ context.Context, _ *cli.Command, err error, _ bool) error {
	return usageError{err}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	cli.VersionPrinter = func(cmd *cli.Command) {
		fmt.Fprintf(cmd.Root().Writer, "ralph-loop %s\n", cmd.Root().Version)
	}
	app := &cli.Command{
		Name:           "ralph-loop",
		Usage:          "keep a coding agent working on a task until it has really finished",
		Version:        getVersion(),
		Writer:         stdout,
		ErrWriter:      stderr,
		Reader:         stdin,
		OnUsageError:   onUsageError,
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("unknown command %q", cmd.Args().First())
			}
			return cli.ShowAppHelp(cmd)
		},
		Commands: []*cli.Command{
			hookCommand(),
			startCommand(),
			cancelCommand(),
			statusCommand(),
			logCommand(),
			gcCommand(),
			installCommand(true),
			installCommand(false),
			{
				Name:         "version",
				Usage:        "print the version, the commit and the build date",
				UsageText:    "ralph-loop version [--short]",
				OnUsageError: onUsageError,
				Flags:        []cli.Flag{&cli.BoolFlag{Name: "short", Usage: "print the version alone"}},
				Action: func(_ context.Context, cmd *cli.Command) error {
					if cmd.NArg() > 0 {
						return usagef("version takes no arguments")
					}
					b := getBuildInfo()
					if cmd.Bool("short") {
						fmt.Fprintln(cmd.Root().Writer, b.Version)
						return nil
					}
					fmt.Fprint(cmd.Root().Writer, b.String())
					return nil
				},
			},
			doctorCommand(),
		},
	}
	return app
}
