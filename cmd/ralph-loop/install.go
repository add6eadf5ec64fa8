package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/install"
)

func installCommand(add bool) *cli.Command {
	name, usage := "install", "add ralph-loop's hooks and slash commands to an agent host's settings"
	if !add {
		name, usage = "uninstall", "remove exactly what install added"
	}
	return &cli.Command{
		Name:         name,
		Usage:        usage,
		UsageText:    "ralph-loop " + name + " --host claude [--scope user|project|local] [--dir PATH] [--dry-run] [--binary PATH]",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "the agent host: claude", Required: true},
			&cli.StringFlag{Name: "binary", Usage: "install: the ralph-loop executable the hooks run (default: this one)"},
			&cli.StringFlag{Name: "scope", Value: install.ScopeUser, Usage: "user (~/.claude), project (.claude/settings.json) or local (.claude/settings.local.json)"},
			&cli.StringFlag{Name: "dir", Usage: "the project directory (default: the current directory)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change and change nothing"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("%s takes no arguments", name)
			}
			if h := cmd.String("host"); h != claude.Name {
				return usagef("unknown host %q: supported hosts are: claude", h)
			}
			opt, err := installOptions(cmd.String("scope"), cmd.String("dir"))
			if err != nil {
				return err
			}
			var plan install.Plan
			if add {
				if opt.Binary, err = binaryPath(cmd.String("binary")); err != nil {
					return err
				}
				plan, err = install.Claude(opt)
			} else {
				plan, err = install.UninstallClaude(opt)
			}
			if err != nil {
				return err
			}
			return report(cmd, plan, opt, add)
		},
	}
}

func installOptions(scope, dir string) (install.Options, error) {
	opt := install.Options{Scope: scope, Now: time.Now()}
	switch scope {
	case install.ScopeUser:
		opt.ConfigDir = os.Getenv("CLAUDE_CONFIG_DIR")
		if opt.ConfigDir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return opt, fmt.Errorf("find the home directory: %w", err)
			}
			opt.ConfigDir = filepath.Join(home, ".claude")
		}
	case install.ScopeProject, install.ScopeLocal:
	default:
		return opt, usagef("unknown scope %q: want user, project or local", scope)
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return opt, fmt.Errorf("find the current directory: %w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return opt, fmt.Errorf("resolve %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return opt, fmt.Errorf("project directory %s does not exist", abs)
	}
	opt.Dir = abs
	return opt, nil
}

// binaryPath is the absolute path of the executable the hooks will run: the one given, or
// this one.
func binaryPath(given string) (string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", given, err)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the ralph-loop executable: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("this ralph-loop is a temporary build (go run); install it first (go install or make install) and run install from there")
	}
	return filepath.Abs(exe)
}

func report(cmd *cli.Command, plan install.Plan, opt install.Options, add bool) error {
	w := cmd.Root().Writer
	verb := "installed"
	if !add {
		verb = "uninstalled"
	}
	dry := cmd.Bool("dry-run")
	switch {
	case dry:
		fmt.Fprintf(w, "ralph-loop: dry run, nothing written; %s for Claude Code (%s scope) would do:\n", strings.TrimSuffix(verb, "ed"), opt.Scope)
	case !plan.Changed():
		fmt.Fprintf(w, "ralph-loop: already %s for Claude Code (%s scope); nothing changed\n", verb, opt.Scope)
	default:
		if err := plan.Apply(); err != nil {
			return err
		}
		fmt.Fprintf(w, "ralph-loop: %s for Claude Code (%s scope)\n", verb, opt.Scope)
	}
	for _, c := range plan.Changes {
		fmt.Fprintf(w, "  %s\n", c.Describe())
		if dry && c.Path == plan.Settings && c.Content != nil {
			fmt.Fprintf(w, "%s", indent(string(c.Content), "    | "))
			fmt.Fprintln(w)
		}
	}
	if add && !dry {
		fmt.Fprintf(w, "hooks run: %s\n", install.HookCommand(opt.Binary))
		if plan.Changed() {
			fmt.Fprintln(w, "Start a new Claude Code session (settings are read at start), then type: /ralph-loop \"TASK\" --max-iterations 20")
		}
	}
	return nil
}
