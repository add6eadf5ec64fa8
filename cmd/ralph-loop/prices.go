package main

import (
	"context"
	"errors"
	"fmt"
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
		Usage:     "show the prices --max-cost counts with: the embedded table, dated, and your own",
		UsageText: "ralph-loop prices",
		Description: "USD per million tokens. A model is priced by its name as the host records it, without a provider prefix " +
			"or a dated suffix. Set a price (or override one) under \"prices\" in your own settings, " + args.UserSettingsName +
			` ($XDG_CONFIG_HOME/ralph-loop/settings.json): {"prices": {"MODEL": {"input": 4, "cache_write": 5, "cache_read": 0.2, "output": 20}}}. ` +
			"A project's .ralph/settings.json never sets a price: the agent can write it. A model with no known price counts, " +
			`under --max-cost, at the highest price of each kind below, unless your settings say {"unpriced": "pause"}: then the loop ` +
			"waits for your price.",
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
			prices, _, err := args.UserSettings(userSettings())
			if err != nil {
				tw.Flush()
				if errors.Is(err, args.ErrSetting) {
					return usageError{err: err}
				}
				return err
			}
			models := make([]string, 0, len(prices))
			for m := range prices {
				models = append(models, m)
			}
			sort.Strings(models)
			for _, m := range models {
				row(m, prices[m], "your settings ("+args.UserSettingsName+")")
			}
			row("(no known price)", spend.Ceiling(prices), "the highest of each kind above: what an unpriced model counts at")
			return tw.Flush()
		},
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
