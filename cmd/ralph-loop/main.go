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
	"slices"
	"strings"

	"github.com/adrg/xdg"
	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// usageError marks errors in how a command was called (exit code 2). cmd is the command
// ("" for the root, or "status"), whose help the hint names.
type usageError struct {
	err error
	cmd string
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{err: fmt.Errorf(format, a...)} }

// exitError carries an exit code without a message (the message was printed already).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func main() {
	os.Args = shebangArgs(os.Args)
	os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// shebangArgs are the arguments of a ralph-loop the system ran as the interpreter of the npm
// package's command ("#!<this binary> --npm-shebang", see cmd/internal/dist): that command's
// path, as it was run, then its arguments. Any other argv is as it is.
func shebangArgs(argv []string) []string {
	if len(argv) >= 3 && argv[1] == inject.NPMShebang {
		return append([]string{argv[2]}, argv[3:]...)
	}
	return argv
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if h, ok := hookLine(argv); ok {
		return runHook(ctx, h, stdin, stdout, stderr)
	}
	app := newApp(stdin, stdout, stderr)
	if len(argv) > 1 && !strings.HasPrefix(argv[1], "-") && app.Command(argv[1]) == nil && !slices.Contains(builtin, argv[1]) {
		// An unknown command is named as such (before its flags are parsed as the root's).
		return exitCode(unknownCommand(app, argv[1]), stderr)
	}
	return exitCode(app.Run(ctx, argv), stderr)
}

// builtin are the commands urfave/cli adds as it runs.
var builtin = []string{"help", "h", "completion"}

// unknownCommand is the usage error for a command that does not exist, with the nearest
// one's name when the typo is small.
func unknownCommand(app *cli.Command, name string) error {
	names := slices.Clone(builtin)
	for _, c := range app.Commands {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	if best := nearest(strings.ToLower(name), names); best != "" {
		return usagef("unknown command %q; did you mean %q?", name, best)
	}
	return usagef("unknown command %q", name)
}

// nearest is the one of names that name is a small typo of, or that starts with name (at
// least 3 letters of it), "" if none is.
func nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD || d == bestD && best == "" && strings.HasPrefix(n, name) {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= max(1, len(name)/3) {
		return best
	}
	for _, n := range names {
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			return n
		}
	}
	return ""
}

// editDistance is the number of insertions, deletions, substitutions and transpositions of
// adjacent letters that make b of a.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// examples are shown at the end of each command's help (a function: the table is made only
// when the command-line parser is built, not by a hook).
func examples() map[string][]string {
	return map[string][]string{
		"start": {
			`ralph-loop start --session "$CLAUDE_CODE_SESSION_ID" --max-iterations 20 -- "make the tests pass"`,
			`ralph-loop start --session S1 --ulw --check "go test ./..." -- fix the flaky test`,
			`ralph-loop start --host gemini --session S2 -- port the lexer`,
		},
		"cancel":    {"ralph-loop cancel --session S1", "ralph-loop cancel --all"},
		"status":    {"ralph-loop status", "ralph-loop status --all --json"},
		"log":       {"ralph-loop log", "ralph-loop log --session S1 --follow"},
		"watch":     {"ralph-loop watch", "ralph-loop watch --session S1"},
		"diff":      {"ralph-loop diff 20261127T101500.000Z-1a2b3c4d", "ralph-loop diff S1 3"},
		"gc":        {"ralph-loop gc --older-than 30d --dry-run", "ralph-loop gc --older-than 30d"},
		"install":   {"ralph-loop install", "ralph-loop install --host claude --scope project --dry-run", "ralph-loop install --host codex --binary ~/go/bin/ralph-loop"},
		"uninstall": {"ralph-loop uninstall", "ralph-loop uninstall --host claude --scope project --dry-run"},
		"hook":      {"ralph-loop hook --host claude < event.json"},
		"completion": {
			`source <(ralph-loop completion bash)     # in ~/.bashrc`,
			`source <(ralph-loop completion zsh)      # in ~/.zshrc`,
			"ralph-loop completion fish > ~/.config/fish/completions/ralph-loop.fish",
		},
	}
}

// addExamples appends each command's examples to its help.
func addExamples(cmds []*cli.Command) {
	examples := examples()
	for _, c := range cmds {
		ex := examples[c.Name]
		if len(ex) == 0 {
			continue
		}
		if c.Description != "" {
			c.Description += "\n\n"
		}
		c.Description += "Examples:\n  " + strings.Join(ex, "\n  ")
	}
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
		help := "ralph-loop help"
		if usage.cmd != "" {
			help = "ralph-loop " + usage.cmd + " --help"
		}
		fmt.Fprintf(stderr, "ralph-loop: error: %s\nralph-loop: hint: run %q for usage\n", inject.Printable(usage.err.Error()), help)
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

// userSettings is the user's own settings file: $XDG_CONFIG_HOME/ralph-loop/settings.json
// (the prices of models; see args.UserSettings).
func userSettings() string {
	return filepath.Join(xdg.ConfigHome, "ralph-loop", "settings.json")
}

// keepDir is where ralph-loop keeps its own copy of every loop and the key that signs
// them: $XDG_DATA_HOME/ralph-loop, out of the way of what happens to the state directory.
func keepDir() string {
	return filepath.Join(xdg.DataHome, "ralph-loop")
}

func newStore() *state.Store {
	s := state.NewStore(stateDir())
	s.SetKeepDir(keepDir())
	s.Holder = lockHolder
	return s
}

// onUsageError makes a usage error of what urfave/cli found wrong in a command line: a flag
// it does not know is named as typed (long flags with two dashes), with the command's
// nearest flag.
func onUsageError(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		dash := "--"
		if len(name) == 1 {
			dash = "-"
		}
		var names []string
		for _, f := range cmd.VisibleFlags() {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
		err = fmt.Errorf("unknown flag %s%s", dash, name)
		if best := nearest(name, names); best != "" {
			err = fmt.Errorf("unknown flag %s%s (did you mean --%s?)", dash, name, best)
		}
	}
	return usageError{err, commandName(cmd)}
}

// commandName is a command's name below the root ("" for the root).
func commandName(cmd *cli.Command) string {
	var names []string
	for _, c := range cmd.Lineage() {
		if c.Root() != c {
			names = append([]string{c.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// namedUsage gives the usage errors of a command's action the command's name, for the hint.
func namedUsage(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.Action == nil {
			continue
		}
		action := c.Action
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			err := action(ctx, cmd)
			var u usageError
			if errors.As(err, &u) && u.cmd == "" {
				u.cmd = commandName(cmd)
				return u
			}
			return err
		}
	}
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
		// "ralph-loop completion bash|zsh|fish|pwsh" prints a completion script.
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print a shell completion script: bash, zsh, fish or pwsh"
			c.Description = "Prints a script that completes ralph-loop's commands and flags in the shell."
			addExamples([]*cli.Command{c})
			c.OnUsageError = onUsageError
			bashCompletionFirst(c)
			unknownShell(c)
		},
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
			watchCommand(),
			diffCommand(),
			pricesCommand(),
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
	addExamples(app.Commands)
	namedUsage(app.Commands)
	return app
}
