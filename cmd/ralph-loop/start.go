package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/inject"
)

func startCommand() *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "arm a loop in a session from a script or another tool",
		UsageText: "ralph-loop start [--session ID] [--ulw] [loop flags] [--] TASK...",
		Description: "Arms a loop like /ralph-loop (or, with --ulw, /ulw-loop) does, with the same loop flags and the project's " +
			".ralph/settings.json and .ralph/settings.local.json. --session defaults to $CLAUDE_CODE_SESSION_ID (set inside " +
			"Claude Code). The prompt contract the agent must follow is printed on stdout.\n\n" +
			"Loop flags:\n" + args.HelpLines(true),
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
				return usageError{err}
			}
			session := p.Session
			if session == "" {
				session = os.Getenv("CLAUDE_CODE_SESSION_ID")
			}
			if session == "" {
				return usagef("no session: pass --session ID (inside Claude Code, $CLAUDE_CODE_SESSION_ID is used)")
			}
			cwd, _ := os.Getwd()
			project := os.Getenv("CLAUDE_PROJECT_DIR")
			if project == "" {
				project = cwd
			}
			cfg, err := args.Resolve(p, project)
			if err != nil {
				return err
			}
			env := hookEnv(cmd)
			if err := refuseInside(ctx, commandLine(), env.Store); err != nil {
				return err
			}
			res, err := hook.Arm(ctx, env, hook.ArmRequest{
				SessionID: session,
				Host:      claude.Name,
				Cwd:       cwd,
				Config:    cfg,
				ArmedBy:   "start",
			})
			if err != nil {
				return fmt.Errorf("start a loop in session %s: %w", session, err)
			}
			w := newTerminalWriter(cmd.Root().Writer)
			fmt.Fprintf(w, "%s (session %s)\n\n%s\n", inject.Armed(&res.Loop, res.Replaced, claude.Words, 0, 0), session, inject.Contract(&res.Loop, claude.Words))
			return nil
		},
	}
}
