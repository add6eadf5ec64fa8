package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/inject"
)

func startCommand() *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "arm a loop in a session from a script or another tool",
		UsageText: "ralph-loop start [--session ID] [--host NAME] [--ulw] [loop flags] [--] TASK...",
		Description: "Arms a loop like /ralph-loop (or, with --ulw, /ulw-loop) does, with the same loop flags and the project's " +
			".ralph/settings.json and .ralph/settings.local.json. " + startSessionHelp() +
			" The prompt contract the agent must follow is printed on stdout.\n\n" +
			"Loop flags:\n" + args.HelpLines(true) + "\n\n" + inject.HostNotes,
		SkipFlagParsing: true,
		OnUsageError:    onUsageError,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			words := make([]args.Word, 0, cmd.NArg())
			for _, a := range cmd.Args().Slice() {
				words = append(words, args.Word{Text: a})
			}
			p, err := args.Parse(words, args.Options{Session: true})
			if errors.Is(err, args.ErrHelp) {
				return cli.ShowSubcommandHelp(cmd)
			}
			if err != nil {
				return usageError{err: err}
			}
			h, session, err := startTarget(p, os.Getenv)
			if err != nil {
				return err
			}
			cwd, _ := os.Getwd()
			facts := h.Facts(os.Getenv, cwd)
			project := facts.ProjectDir
			if project == "" {
				project = cwd
			}
			if err := args.ReadTask(&p, cwd); err != nil {
				return err
			}
			cfg, err := args.Resolve(p, project)
			if err == nil {
				cfg.Prices, cfg.Unpriced, err = args.UserSettings(userSettings())
			}
			if errors.Is(err, args.ErrSetting) {
				return usageError{err: err} // exit 2, as the same value given as a flag
			}
			if err != nil {
				return err
			}
			env := hookEnv(cmd)
			if err := refuseInside(ctx, commandLine(), env.Store); err != nil {
				return err
			}
			req := hook.ArmRequest{
				SessionID: session,
				Host:      h.Name(),
				Cwd:       cwd,
				Config:    cfg,
				ArmedBy:   "start",
			}
			req.Settings, req.Sandbox, req.SandboxRoots = hook.Settings(facts, "", hook.Trusted(env.Store, facts, env.UserSettings))
			res, err := hook.Arm(ctx, env, req)
			if err != nil {
				return fmt.Errorf("start a loop in session %s: %w", session, err)
			}
			w := newTerminalWriter(cmd.Root().Writer)
			fmt.Fprintf(w, "%s (session %s)\n\n%s\n", inject.Armed(&res.Loop, res.Replaced, facts.Words, 0, 0), session, inject.Contract(&res.Loop, facts.Words))
			return nil
		},
	}
}

// sessionEnv is the variable in which h puts the session id in the agent's shell ("" when
// it puts none there).
func sessionEnv(h hook.Host) string {
	return h.Facts(func(string) string { return "" }, "").SessionEnv
}

// startTarget is the host and the session "ralph-loop start" arms. The host is --host, or
// else the one whose session variable is set (when several are, the one whose variable
// holds --session); the session is --session, or else that host's session variable.
// --session alone, with no host's variable set, names a Claude Code session, as start did
// when Claude Code was its only host.
func startTarget(p args.Parsed, getenv func(string) string) (hook.Host, string, error) {
	if p.Host != "" {
		h, err := lookupHost(p.Host)
		if err != nil {
			return nil, "", err
		}
		session := p.Session
		v := sessionEnv(h)
		if session == "" && v != "" {
			session = getenv(v)
		}
		if session == "" {
			if v == "" {
				return nil, "", usagef("no session: pass --session ID (%s puts no session id in the agent's shell)", hosts.Title(h))
			}
			return nil, "", usagef("no session: pass --session ID (inside %s, $%s is used)", hosts.Title(h), v)
		}
		return h, session, nil
	}
	var set []hook.Host // the hosts whose session variable is set
	for _, h := range hosts.All {
		if v := sessionEnv(h); v != "" && getenv(v) != "" {
			set = append(set, h)
		}
	}
	if p.Session != "" {
		if i := slices.IndexFunc(set, func(h hook.Host) bool { return getenv(sessionEnv(h)) == p.Session }); i >= 0 {
			return set[i], p.Session, nil
		}
		if len(set) == 1 {
			return set[0], p.Session, nil
		}
		if len(set) == 0 {
			return hosts.All[0], p.Session, nil
		}
	}
	switch len(set) {
	case 0:
		return nil, "", usagef("no session: pass --session ID, and --host NAME for a host other than %s (%s)", hosts.Title(hosts.All[0]), sessionVars("inside %s, $%s is used"))
	case 1:
		return set[0], getenv(sessionEnv(set[0])), nil
	}
	names := make([]string, len(set))
	for i, h := range set {
		names[i] = fmt.Sprintf("%s ($%s)", hosts.Title(h), sessionEnv(h))
	}
	return nil, "", usagef("the session variables of %s are set at once: pass --host NAME", strings.Join(names, " and "))
}

// sessionVars lists, in the host table's order, each host that puts the session id in the
// agent's shell, formatted with its title and variable ("inside %s, $%s is used").
func sessionVars(format string) string {
	var parts []string
	for _, h := range hosts.All {
		if v := sessionEnv(h); v != "" {
			parts = append(parts, fmt.Sprintf(format, hosts.Title(h), v))
		}
	}
	return strings.Join(parts, "; ")
}

// startSessionHelp says, from the host table, where start finds the session.
func startSessionHelp() string {
	var without []string
	for _, h := range hosts.All {
		if sessionEnv(h) == "" {
			without = append(without, hosts.Title(h))
		}
	}
	s := "--session defaults to the session variable of the host start runs in (" + sessionVars("$%[2]s in %[1]s") +
		"), and --host to that host (to " + hosts.All[0].Name() + " when none is set)."
	if len(without) > 0 {
		s += " " + strings.Join(without, ", ") + " put no session id in the agent's shell: pass --session and --host."
	}
	return s
}
