package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/install"
)

// installerNames lists the hosts ralph-loop installs into.
func installerNames() string {
	var names []string
	for _, h := range hosts.Installers() {
		names = append(names, h.Name)
	}
	return strings.Join(names, ", ")
}

func installCommand(add bool) *cli.Command {
	name, usage := "install", "add ralph-loop's hooks and slash commands to agent hosts' settings"
	usageText := "ralph-loop install [--host NAME] [--scope user|project|local] [--dir PATH] [--binary PATH] [--sandbox] [--force] [--dry-run]"
	desc := "Without --host, install acts on every supported host found on this machine (its CLI on PATH or " +
		"its configuration directory), one line per host. Settings files are edited in place: only ralph-loop's " +
		"entries are added, the rest stays byte for byte. At project scope the settings are committed and " +
		"shared: the hooks run the ralph-loop found on PATH, and do nothing but print one line on a machine " +
		"without it. The previous content of a changed file is backed up under $XDG_STATE_HOME/ralph-loop/install."
	flags := []cli.Flag{
		&cli.StringFlag{Name: "host", Usage: "the agent host: " + installerNames() + " (default: every one found)"},
		&cli.StringFlag{Name: "scope", Usage: "user (e.g. ~/.claude), project (committed, e.g. .claude/settings.json) or local (e.g. .claude/settings.local.json); default user"},
		&cli.StringFlag{Name: "dir", Usage: "the project directory (default: the current directory)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print what would change and change nothing"},
	}
	if add {
		flags = append(flags,
			&cli.StringFlag{Name: "binary", Usage: "the ralph-loop executable user- and local-scope hooks run (default: this one)"},
			&cli.BoolFlag{Name: "force", Usage: "add the hooks even when another scope of the host has them already"},
			&cli.BoolFlag{Name: "sandbox", Usage: "also turn on the host's sandbox for the agent's shell, with ralph-loop's files out of its reach (Claude Code; implies --host claude)"})
	} else {
		name, usage = "uninstall", "remove exactly what install added"
		usageText = "ralph-loop uninstall [--host NAME] [--scope user|project|local] [--dir PATH] [--dry-run]"
		desc = "Takes out, at the scope given, exactly what install added and nothing else: ralph-loop's hook entries " +
			"(known by their command line, wherever the binary has moved since), the settings install set if they " +
			"still hold its value, the command files it wrote if unchanged, and the files and directories it created; " +
			"every other byte of the settings stays as it is. Without --host, uninstall acts on every host ralph-loop " +
			"was installed into or whose CLI is found. A changed file is backed up first under " +
			"$XDG_STATE_HOME/ralph-loop/install, where the backups stay."
	}
	return &cli.Command{
		Name:         name,
		Usage:        usage,
		UsageText:    usageText,
		Description:  desc,
		OnUsageError: onUsageError,
		Flags:        flags,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("%s takes no arguments", name)
			}
			var given string // --binary, checked once before anything is written
			if add && cmd.String("binary") != "" {
				var err error
				if given, err = binaryPath(cmd.String("binary")); err != nil {
					return err
				}
			}
			var targets []*install.Target
			sandbox := add && cmd.Bool("sandbox")
			if sandbox && cmd.String("host") == "" {
				if err := cmd.Set("host", claude.Name); err != nil {
					return err
				}
			}
			auto := cmd.String("host") == ""
			if auto {
				for _, h := range hosts.Installers() {
					if h.Detected(os.Getenv) || !add && installed(h) {
						targets = append(targets, h)
					}
				}
				if len(targets) == 0 {
					return fmt.Errorf("found no supported agent CLI on this machine (looked for: %s); name one with --host", installerNames())
				}
			} else {
				h, ok := hosts.Installer(cmd.String("host"))
				if _, known := hosts.Lookup(cmd.String("host")); known && !ok {
					return fmt.Errorf("ralph-loop cannot %s itself for host %q (no installer); see the README for its setup", name, cmd.String("host"))
				}
				if !ok {
					return usagef("unknown host %q: supported hosts are: %s", cmd.String("host"), installerNames())
				}
				targets = append(targets, h)
			}
			scope := cmd.String("scope")
			if scope == "" {
				scope = install.ScopeUser
			}
			for _, h := range targets {
				if _, ok := h.Scope(scope); !ok {
					return usagef("unknown scope %q for %s: want %s", scope, h.Title, h.ScopeNames())
				}
			}
			opt, err := installOptions(scope, cmd.String("dir"))
			if err != nil {
				return err
			}
			opt.Force = cmd.Bool("force")
			opt.Sandbox, opt.KeepDir = sandbox, keepDir()
			var failed error
			for _, h := range targets {
				o := opt
				if add {
					if s, _ := h.Scope(scope); !s.Shared {
						if o.Binary = given; given == "" {
							if o.Binary, err = binaryPath(""); err != nil {
								return err
							}
						}
					}
				}
				if !cmd.Bool("dry-run") {
					if err := refuseUnhook(ctx, h, scope, o.Dir); err != nil {
						return err
					}
				}
				if sandbox && h.SandboxSays != "" {
					fmt.Fprintln(cmd.Root().Writer, h.SandboxSays)
				}
				plan, err := h.Do(ctx, o, add, cmd.Bool("dry-run"))
				if err == nil {
					err = report(cmd.Root().Writer, plan, cmd, auto)
				}
				if err != nil {
					if !auto {
						return err
					}
					fmt.Fprintf(cmd.Root().ErrWriter, "ralph-loop: error: %s: %v\n", h.Title, err)
					failed = exitError(1)
				}
			}
			return failed
		},
	}
}

// installed reports whether install recorded an install for the host (uninstall acts on it
// even when the host's CLI is gone).
func installed(h *install.Target) bool {
	m, _ := filepath.Glob(filepath.Join(stateDir(), "install", h.Name+"-*", "record.json"))
	return len(m) > 0
}

func installOptions(scope, dir string) (install.Options, error) {
	opt := install.Options{Scope: scope, Now: time.Now(), Getenv: os.Getenv, StateDir: stateDir()}
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
		if scope != install.ScopeUser {
			return opt, fmt.Errorf("project directory %s does not exist", abs)
		}
		abs = ""
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
		return abs, checkBinary(abs)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the ralph-loop executable: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("this ralph-loop is a temporary build (go run); install it first (go install or make install) and run install from there")
	}
	if fromNPX(exe) {
		if npxBinary == "" {
			if npxBinary, err = npxGlobal(os.Stderr); err != nil {
				return "", err
			}
		}
		return npxBinary, nil
	}
	return filepath.Abs(exe)
}

// checkBinary makes sure the hooks will run a ralph-loop: an executable file at path that
// answers "version" as ralph-loop does.
func checkBinary(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("--binary %s: no such file", path)
	case err != nil:
		return fmt.Errorf("--binary %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return usagef("--binary %s is not a file", path)
	case fi.Mode().Perm()&0o111 == 0:
		return usagef("--binary %s is not executable", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "ralph-loop ") {
		if err != nil {
			return usagef("--binary %s is not ralph-loop (\"%s version\": %v)", path, filepath.Base(path), err)
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return usagef("--binary %s is not ralph-loop (\"%s version\" printed %q)", path, filepath.Base(path), first)
	}
	return nil
}

// npxBinary is the ralph-loop npm install -g put on PATH, once install run by npx did it.
var npxBinary string

// report prints what a plan did (or would do, with --dry-run): the changes one a line, or
// in brief (auto: several hosts), one line for the host.
func report(w io.Writer, plan *install.Plan, cmd *cli.Command, brief bool) error {
	h, scope := plan.Target, plan.Scope.Name
	verb := "installed"
	if !plan.Install {
		verb = "uninstalled"
	}
	dry := cmd.Bool("dry-run")
	where := fmt.Sprintf("for %s (%s scope)", h.Title, scope)
	if plan.Skipped != "" {
		fmt.Fprintf(w, "ralph-loop: not installed %s: %s; nothing changed (--force adds a second set)\n", where, plan.Skipped)
		return nil
	}
	changed := 0
	backups := false
	for _, c := range plan.Changes {
		if c.Action != "unchanged" {
			changed++
		}
		backups = backups || c.Backup != ""
	}
	switch {
	case dry:
		fmt.Fprintf(w, "ralph-loop: dry run, nothing written; %s %s would do:\n", strings.TrimSuffix(verb, "ed"), where)
	case changed == 0:
		fmt.Fprintf(w, "ralph-loop: already %s %s; nothing changed\n", verb, where)
		if brief {
			return nil
		}
	case brief:
		line := fmt.Sprintf("ralph-loop: %s %s: %s", verb, where, plan.Settings)
		if backups {
			line += "; backups in " + filepath.Join(plan.RecordDir, "backups")
		}
		fmt.Fprintln(w, line)
		return nil
	default:
		fmt.Fprintf(w, "ralph-loop: %s %s\n", verb, where)
	}
	for _, c := range plan.Changes {
		if c.Action == "unchanged" && c.Note == "" && !dry {
			continue
		}
		fmt.Fprintf(w, "  %s\n", c.Describe())
		if dry && c.Path == plan.Settings && c.Content != nil {
			fmt.Fprintf(w, "%s", indent(string(c.Content), "    | "))
			fmt.Fprintln(w)
		}
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if plan.Install && !dry {
		if plan.Scope.Shared {
			fmt.Fprintf(w, "hooks run: the ralph-loop on PATH (%s is shared: on a machine without ralph-loop the hooks only say how to get it)\n", plan.Settings)
			if !install.OnPath("ralph-loop", os.Getenv("PATH")) {
				fmt.Fprintln(w, "note: ralph-loop is not on PATH here; put it there (go install, or make install) for these hooks to run")
			}
		} else {
			run := plan.Command
			if b, ok := install.HookBinary(run, h.Name); ok {
				run = install.HookCommand(b, h.Name) // (and say how to get it back once it is gone)
			}
			fmt.Fprintf(w, "hooks run: %s\n", run)
		}
		if changed > 0 {
			arm := "/ralph-loop"
			if hh, ok := hosts.Lookup(h.Name); ok {
				arm = hh.Facts(os.Getenv, "").Words.Arm()
			}
			fmt.Fprintf(w, "Start a new %s session (settings are read at start), then type: %s \"TASK\" --max-iterations 20\n", h.Title, arm)
		}
	}
	return nil
}
