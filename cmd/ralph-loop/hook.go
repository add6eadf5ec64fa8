package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/notify"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/hook/program"
	"github.com/ralph-loop/ralph-loop/state"
)

func hookEnv(cmd *cli.Command) hook.Env { return hookEnvTo(cmd.Root().ErrWriter) }

// hookEnvTo is the environment of a hook that writes its errors to stderr.
func hookEnvTo(stderr io.Writer) hook.Env {
	store := newStore()
	store.Warn = func(msg string) { fmt.Fprintf(stderr, "ralph-loop: warning: %s\n", msg) }
	return hook.Env{
		Store:    store,
		Stderr:   stderr,
		Getenv:   os.Getenv,
		CatchUp:  hook.DefaultCatchUp,
		ToolWait: hook.DefaultToolWait,
		Started: func() time.Time {
			t, _ := hook.ProcessStart(func() time.Time { return time.Now().UTC() })
			return t
		},
		Caller: sync.OnceValues(proc.HookCaller),
		BinaryChanged: func() (time.Time, error) {
			exe, err := os.Executable()
			if err != nil {
				return time.Time{}, err
			}
			return state.ChangeTime(exe)
		},
		HookBinaries: hookBinaries,
		HookStamp:    hookStamp,
		UserSettings: userSettings(),
		Notify: func(title, body string, find program.Finder) (string, error) {
			return notify.Default(find.Look).Send(context.Background(), title, body)
		},
		Borrowed: os.Getenv(grokHookEvent) != "",
	}
}

// grokHookEvent is set by Grok Build (xAI) for the hooks it runs: by default it runs those
// of ~/.claude/settings.json and ~/.cursor/hooks.json, ralph-loop's among them, with input of
// its own (camelCase, no hook_event_name) that ralph-loop does not take (see
// hook.Env.Borrowed). Claude Code and Cursor never set it.
const grokHookEvent = "GROK_HOOK_EVENT"

// hookBinaries are the programs the host's hooks run (its settings at every scope), and
// this one, for the guard to keep.
func hookBinaries(host, projectDir string) []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	if inst, ok := hosts.Installer(host); ok {
		out = append(out, inst.Binaries(os.Getenv, projectDir)...)
	}
	return out
}

// hookStamp fingerprints what hookBinaries reads: $PATH (where a bare program name is
// found) and each file's identity, size, and modification and status change times (a file
// replaced, written or touched has new ones).
func hookStamp(host, projectDir string) string {
	inst, ok := hosts.Installer(host)
	if !ok {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", os.Getenv("PATH"), projectDir)
	for _, f := range inst.BinarySources(os.Getenv, projectDir) {
		fi, err := os.Stat(f)
		if err != nil {
			fmt.Fprintf(h, "%s\x00-\x00", f)
			continue
		}
		dev, ino, _ := devIno(fi)
		ct, _ := state.ChangeTime(f)
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00%d\x00%d\x00%v\x00", f, dev, ino, fi.Size(), fi.ModTime().UnixNano(), ct.UnixNano(), fi.Mode())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// deferred reports whether this hook was run by a shared scope's portable command
// ($RALPH_LOOP_SCOPE) while hooks at a scope of this machine's own answer the same event.
func deferred(h hook.Host) bool {
	scope := os.Getenv(install.ScopeEnv)
	if scope == "" {
		return false
	}
	inst, ok := hosts.Installer(h.Name())
	if !ok {
		return false
	}
	cwd, _ := os.Getwd()
	return inst.Defers(scope, h.Facts(os.Getenv, cwd).ProjectDir, os.Getenv)
}

// hookEventsHelp lists each host's events, one host a line, from the host table.
func hookEventsHelp() string {
	var b strings.Builder
	for _, h := range hosts.All {
		fmt.Fprintf(&b, "  --host %s (%s): %s\n", h.Name(), hosts.Title(h), strings.Join(hosts.Events(h), ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "answer one hook event of an agent host (run by the host, not by people)",
		UsageText: "ralph-loop hook --host claude < event.json",
		Description: "Reads one hook event as JSON on stdin and answers it on stdout in the host's protocol. " +
			"The events that go here, by host (other events are ignored):\n\n" + hookEventsHelp(),
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "the agent host: " + hostNames(), Required: true},
			// opencode's plugin asks once where the active markers are (state.Store.ActiveDir),
			// to run no hook for a tool call in a session without a loop.
			&cli.BoolFlag{Name: "active-dir", Usage: "print the directory whose files mark the sessions with an active loop, and exit", Hidden: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("hook takes no arguments")
			}
			h, err := lookupHost(cmd.String("host"))
			if err != nil {
				return err
			}
			if cmd.Bool("active-dir") {
				_, err := fmt.Fprintln(cmd.Root().Writer, newStore().ActiveDir())
				return err
			}
			if code := runHook(ctx, h, cmd.Root().Reader, cmd.Root().Writer, cmd.Root().ErrWriter); code != 0 {
				return exitError(code)
			}
			return nil
		},
	}
}

// runHook answers one hook event of host h: the hook command's work once its command line
// is read.
func runHook(ctx context.Context, h hook.Host, stdin io.Reader, stdout, stderr io.Writer) int {
	if deferred(h) {
		// A project's committed hooks, on a machine where ralph-loop's own hooks (user or
		// local scope) answer the same event: leave it to those.
		_, _ = io.Copy(io.Discard, stdin)
		return 0
	}
	return hook.Handle(ctx, hookEnvTo(stderr), h, stdin, stdout)
}

// hookLine returns the host of a command line that is exactly what install writes for a
// hook ("hook --host NAME", NAME a known host), for run to answer the event without the
// command-line parser: a host runs a hook at every event of a session, and building the
// commands' help and flags costs more than many events' work. Any other command line
// (another flag, a typo, help) goes through the parser, which says what is wrong with it.
func hookLine(argv []string) (hook.Host, bool) {
	if len(argv) != 4 || argv[1] != "hook" || argv[2] != "--host" {
		return nil, false
	}
	return hosts.Lookup(argv[3])
}
