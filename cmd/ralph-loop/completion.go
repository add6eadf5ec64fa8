package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
)

// bashCompletion is "ralph-loop completion bash": a script of plain bash (3 and up), made
// from the commands and their flags, that needs no bash-completion package (urfave/cli's
// calls its _get_comp_words_by_ref, and completes nothing without it) and completes the
// values of --host and --scope.
func bashCompletion(w io.Writer, root *cli.Command) {
	var b strings.Builder
	b.WriteString("# bash completion for ralph-loop: source <(ralph-loop completion bash), e.g. in ~/.bashrc.\n")
	b.WriteString("_ralph_loop() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev= cmd= words= i\n")
	b.WriteString("  [ \"$COMP_CWORD\" -gt 0 ] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("  # --flag=value: bash splits it at the \"=\".\n")
	b.WriteString("  if [ \"$cur\" = \"=\" ]; then cur=; elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -gt 1 ]; then prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; fi\n")
	b.WriteString("  for ((i = 1; i < COMP_CWORD; i++)); do\n")
	b.WriteString("    case \"${COMP_WORDS[i]}\" in -*) ;; *) cmd=\"${COMP_WORDS[i]}\"; break ;; esac\n")
	b.WriteString("  done\n")
	b.WriteString("  case \"$cmd $prev\" in\n")
	installers := make([]string, 0)
	var scopes []string
	for _, h := range hosts.Installers() {
		installers = append(installers, h.Name)
		for _, s := range h.Scopes {
			if !slices.Contains(scopes, s.Name) {
				scopes = append(scopes, s.Name)
			}
		}
	}
	fmt.Fprintf(&b, "    \"install --host\" | \"uninstall --host\") words=%q ;;\n", strings.Join(installers, " "))
	fmt.Fprintf(&b, "    \"install --scope\" | \"uninstall --scope\") words=%q ;;\n", strings.Join(scopes, " "))
	fmt.Fprintf(&b, "    \"hook --host\" | \"start --host\") words=%q ;;\n", strings.Join(hosts.Names(), " "))
	b.WriteString("    *)\n      case \"$cmd\" in\n")
	var names []string
	for _, c := range root.Commands {
		if c.Hidden {
			continue
		}
		names = append(names, c.Names()...)
	}
	for _, c := range root.Commands {
		if c.Hidden {
			continue
		}
		words := flagWords(c)
		switch {
		case c.Name == "help":
			words = names // "ralph-loop help status"
		case len(c.Commands) > 0:
			for _, sub := range c.Commands {
				if !sub.Hidden {
					words = append(words, sub.Name) // the shells of "completion"
				}
			}
		}
		fmt.Fprintf(&b, "        %s) words=%q ;;\n", strings.Join(c.Names(), " | "), strings.Join(words, " "))
	}
	fmt.Fprintf(&b, "        *) words=%q ;;\n", strings.Join(append(names, flagWords(root)...), " "))
	b.WriteString("      esac ;;\n  esac\n")
	b.WriteString("  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n")
	b.WriteString("complete -o default -F _ralph_loop ralph-loop\n")
	io.WriteString(w, b.String())
}

// flagWords are a command's flags as typed (start's are the loop flags, which it parses
// itself).
func flagWords(c *cli.Command) []string {
	var out []string
	if c.Name == "start" {
		for _, f := range args.Flags {
			out = append(out, "--"+f.Name)
		}
		return append(out, "--help")
	}
	for _, f := range c.VisibleFlags() {
		for _, n := range f.Names() {
			if len(n) > 1 {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

// bashCompletionFirst makes the completion command print bashCompletion for bash, and
// urfave/cli's script for the other shells (each shell is a subcommand of it).
func bashCompletionFirst(c *cli.Command) {
	for _, sub := range c.Commands {
		if sub.Name == "bash" {
			sub.Action = func(_ context.Context, cmd *cli.Command) error {
				bashCompletion(cmd.Root().Writer, cmd.Root())
				return nil
			}
		}
	}
}

// unknownShell makes "ralph-loop completion SHELL" for a shell it has no script for (tcsh)
// a usage error naming the shells it has, where urfave/cli said "No help topic for 'tcsh'";
// without a shell it prints its help.
func unknownShell(c *cli.Command) {
	c.Action = func(_ context.Context, cmd *cli.Command) error {
		if cmd.NArg() == 0 {
			return cli.ShowSubcommandHelp(cmd)
		}
		var shells []string
		for _, sub := range cmd.Commands {
			if !sub.Hidden && sub.Name != "help" {
				shells = append(shells, sub.Name)
			}
		}
		return usageError{err: fmt.Errorf("no completion script for %q: ralph-loop has one for %s", cmd.Args().First(), orList(shells)),
			cmd: commandName(cmd)}
	}
}

// orList writes "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
