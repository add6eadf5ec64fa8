package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/spend"
)

func pricesCommand() *cli.Command {
	return &cli.Command{
		Name:      "prices",
		Usage:     "show the prices --max-cost counts with: the embedded table, dated, and this project's own",
		UsageText: "ralph-loop prices",
		Description: "USD per million tokens. A model is priced by its name as the host records it, without a provider prefix " +
			"or a dated suffix. Set a price (or override one) under \"prices\" in .ralph/settings.json: " +
			`{"prices": {"MODEL": {"input": 4, "cache_write": 5, "cache_read": 0.2, "output": 20}}}.`,
		OnUsageError: onUsageError,
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("prices takes no arguments")
			}
			w := newTerminalWriter(cmd.Root().Writer)
			fmt.Fprintf(w, "prices in USD per million tokens, read on %s from the providers' own pages named\n", spend.PricesDate)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "MODEL\tINPUT\tCACHE WRITE\tCACHE READ\tOUTPUT\tSOURCE")
			row := func(model string, p spend.Price, source string) {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", model, num(p.Input), num(p.CacheWrite), num(p.CacheRead), num(p.Output), source)
			}
			for _, e := range spend.Table() {
				row(e.Model, e.Price, e.Source)
			}
			cwd, _ := os.Getwd()
			cfg, err := args.Resolve(args.Parsed{}, projectDir(cwd))
			if err != nil {
				tw.Flush()
				if errors.Is(err, args.ErrSetting) {
					return usageError{err: err}
				}
				return err
			}
			models := make([]string, 0, len(cfg.Prices))
			for m := range cfg.Prices {
				models = append(models, m)
			}
			sort.Strings(models)
			for _, m := range models {
				row(m, cfg.Prices[m], "this project's settings")
			}
			return tw.Flush()
		},
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// projectDir is the project whose settings apply here: $CLAUDE_PROJECT_DIR, or cwd.
func projectDir(cwd string) string {
	if d := os.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return d
	}
	return cwd
}
