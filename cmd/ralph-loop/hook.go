package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
)

func hookEnv(cmd *cli.Command) hook.Env {
	return hook.Env{
		Store:   newStore(),
		Stderr:  cmd.Root().ErrWriter,
		Getenv:  os.Getenv,
		CatchUp: hook.DefaultCatchUp,
	}
}

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "answer one hook event of an agent host (run by the host, not by people)",
		UsageText: "ralph-loop hook --host claude < event.json",
		Description: "Reads one hook event as JSON on stdin and answers it on stdout in the host's protocol. " +
			"Claude Code's UserPromptSubmit, Stop, PostToolUse, PostToolUseFailure and SessionEnd go here, and Gemini CLI's " +
			"BeforeAgent, AfterAgent, BeforeTool, AfterTool, SessionStart and SessionEnd; other events are ignored.",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "the agent host: " + hostNames(), Required: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("hook takes no arguments")
			}
			h, err := lookupHost(cmd.String("host"))
			if err != nil {
				return err
			}
			if code := hook.Handle(ctx, hookEnv(cmd), h, cmd.Root().Reader, cmd.Root().Writer); code != 0 {
				return exitError(code)
			}
			return nil
		},
	}
}
