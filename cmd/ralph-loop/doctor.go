package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check ralph-loop's install: each host found, its hooks, the binary they run, trust, the loop here",
		UsageText: "ralph-loop doctor [--dir PATH]\n\n" +
			"Exit 0 when all is well; 1 with one line per problem on stderr, each saying what to do.",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "the project directory (default: the current directory)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("doctor takes no arguments")
			}
			dir := cmd.String("dir")
			if dir == "" {
				var err error
				if dir, err = os.Getwd(); err != nil {
					return fmt.Errorf("find the current directory: %w", err)
				}
			}
			dir, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if err := isDir(dir); err != nil {
				return err
			}
			d := &doctor{ctx: ctx, out: cmd.Root().Writer, getenv: os.Getenv, dir: dir,
				color: colorOK(cmd.Root().Writer, os.Getenv)}
			d.run()
			for _, p := range d.problems {
				fmt.Fprintf(cmd.Root().ErrWriter, "ralph-loop: problem: %s\n", inject.Printable(p))
			}
			if len(d.problems) > 0 {
				return exitError(1)
			}
			fmt.Fprintln(d.out, d.paint("32", "all is well"))
			return nil
		},
	}
}

// colorOK: colour only on a terminal, and never with NO_COLOR set (no-color.org).
func colorOK(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

type doctor struct {
	ctx      context.Context
	out      io.Writer
	getenv   func(string) string
	dir      string
	color    bool
	problems []string
	versions map[string]string // binary path -> its version (or "" when it does not run)
	scripts  map[string]bool   // the hosts whose hook script was looked at
}

func (d *doctor) paint(code, s string) string {
	if !d.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

var _ install.Report = (*doctor)(nil)

// Problem reports a problem, saying what to do.
func (d *doctor) Problem(format string, a ...any) {
	p := fmt.Sprintf(format, a...)
	d.problems = append(d.problems, p)
	fmt.Fprintf(d.out, "  %s %s\n", d.paint("31", "problem:"), p)
}

// Say reports a line of what doctor found.
func (d *doctor) Say(format string, a ...any) {
	fmt.Fprintf(d.out, "  "+format+"\n", a...)
}

func (d *doctor) run() {
	self, _ := os.Executable()
	fmt.Fprintf(d.out, "ralph-loop %s (%s)\n", getVersion(), self)
	any, hooked := false, false
	for _, h := range hosts.Installers() {
		found := h.FindHooks(d.dir, d.getenv)
		if !h.Detected(d.getenv) && len(found) == 0 {
			continue
		}
		any = true
		hooked = d.host(h, found) || hooked
		d.sandbox(h)
	}
	switch {
	case !any:
		fmt.Fprintln(d.out, "no agent host found")
		d.Problem("found no supported agent CLI on this machine (looked for: %s): install one, then run ralph-loop install", installerNames())
	case !hooked:
		d.Problem("ralph-loop's hooks are installed for no host: run ralph-loop install")
	}
	d.loopHere()
}

// host reports one host: its CLI against the version tested, its hooks, their binary and
// the trust the host needs. hooked: ralph-loop's hooks are there for it.
func (d *doctor) host(inst *install.Target, found []install.Found) (hooked bool) {
	fmt.Fprintf(d.out, "%s:\n", inst.Title)
	tested := hosts.Tested[inst.Name]
	cli, err := exec.LookPath(inst.CLI)
	switch {
	case inst.CLI == "" || err != nil:
		if len(found) > 0 {
			d.Problem("%s: ralph-loop's hooks are installed but %s is not on PATH: install %s, or remove the hooks: ralph-loop uninstall --host %s", inst.Title, inst.CLI, inst.Title, inst.Name)
		} else {
			d.Say("%s not on PATH (its configuration directory is here)", inst.CLI)
		}
	default:
		v := cliVersion(d.ctx, cli)
		line := fmt.Sprintf("%s %s", cli, v)
		switch {
		case tested == "":
			line += " (no version of it runs in ralph-loop's tests)"
		case strings.Contains(v, tested):
			line += " (the version tested)"
		default:
			line += " (tested: " + tested + ")"
		}
		d.Say("%s", line)
	}
	hh, _ := hosts.Lookup(inst.Name)
	if hh != nil {
		// The cap as the host's hooks would see it: Claude Code passes its settings' env on.
		getenv := d.getenv
		if e, ok := hh.(hosts.HookEnver); ok {
			getenv = e.HookEnv(d.getenv, d.dir)
		}
		if c := hh.Facts(getenv, d.dir).BlockCap; c > 0 {
			d.Say("block cap: the host ends a turn after %d stop blocks in a row", c)
		}
	}
	if pl, ok := hh.(hosts.Plugged); ok {
		for _, p := range pl.Plugins(d.getenv, d.dir) {
			d.plugin(inst, p)
			hooked = true
		}
	}
	if len(found) == 0 {
		if inst.Scopes[0].Settings == "" {
			// opencode, Kilo, pi: the hooks are a plugin's or an extension's file, which
			// doctor does not read.
			kind := "a " + inst.FilesKind
			if strings.HasPrefix(inst.FilesKind, "e") {
				kind = "an " + inst.FilesKind
			}
			if ps := plugins(inst, d.dir, d.getenv); len(ps) > 0 {
				d.Say("hooks: %s, %s; doctor does not check what it runs", kind, strings.Join(ps, ", "))
				return true
			}
			d.Say("hooks: %s (ralph-loop install --host %s writes it); doctor does not check it", kind, inst.Name)
			return false
		}
		if !hooked {
			d.Say("hooks: none found (ralph-loop install --host %s adds them)", inst.Name)
		}
		return hooked
	}
	var own []string
	for _, f := range found {
		if !f.Scope.Shared {
			own = append(own, f.Scope.Name)
		}
		d.hooks(inst, f)
		d.script(inst, f)
	}
	if len(own) > 1 {
		d.Problem("%s: ralph-loop's hooks are installed at %s scope at once, so every event is handled %d times: keep one (ralph-loop uninstall --host %s --scope %s)",
			inst.Title, strings.Join(own, " and "), len(own), inst.Name, own[len(own)-1])
	}
	if t, ok := hh.(hosts.Trusting); ok {
		t.Trust(d, d.getenv, d.dir, found)
	}
	return true
}

// plugin reports a plugin of the host's that runs ralph-loop's hooks (Claude Code's): its
// version and the binary its hooks run (the ralph-loop on PATH).
func (d *doctor) plugin(inst *install.Target, p install.Plugin) {
	what := fmt.Sprintf("the plugin %s %s (%s scope, %s)", p.ID, p.Version, p.Scope, p.Hooks)
	if len(inst.HooksIn(p.Hooks)) == 0 {
		d.Say("hooks: %s, which runs none of ralph-loop's hooks", what)
		return
	}
	bin, err := exec.LookPath("ralph-loop")
	if err != nil {
		d.Say("hooks: %s, run the ralph-loop on PATH: none here", what)
		d.Problem("%s: the hooks of %s run the ralph-loop on PATH and there is none, so they do nothing: %s", inst.Title, p.ID, inject.GetIt)
		return
	}
	if v, ok := d.version(bin); ok {
		d.Say("hooks: %s, run the ralph-loop on PATH, %s (version %s)", what, bin, v)
	} else {
		d.Say("hooks: %s, run the ralph-loop on PATH, %s (gone, or it does not run)", what, bin)
		d.Problem("%s: the hooks of %s run %s, which does not run: install ralph-loop again", inst.Title, p.ID, bin)
	}
	if p.Update != "" {
		d.Say("  %s", p.Update)
	}
}

// hooks reports one scope's hooks and the binary they run.
func (d *doctor) hooks(inst *install.Target, f install.Found) {
	bins := map[string]bool{}
	for _, c := range f.Commands {
		if b, ok := install.HookBinary(c, inst.Name); ok {
			bins[b] = true
		}
	}
	for b := range bins {
		where := b
		if b == "ralph-loop" {
			p, err := exec.LookPath("ralph-loop")
			if err != nil {
				d.Say("hooks: %s scope (%s), run the ralph-loop on PATH: none here", f.Scope.Name, f.Settings)
				d.Problem("%s: the %s-scope hooks in %s run the ralph-loop on PATH and there is none, so they do nothing: %s", inst.Title, f.Scope.Name, f.Settings, inject.GetIt)
				continue
			}
			where = p
		}
		v, ok := d.version(where)
		run := where
		if b == "ralph-loop" {
			run = "the ralph-loop on PATH, " + where
		}
		if ok {
			d.Say("hooks: %s scope (%s), run %s (version %s)", f.Scope.Name, f.Settings, run, v)
		} else {
			d.Say("hooks: %s scope (%s), run %s (gone, or it does not run)", f.Scope.Name, f.Settings, run)
		}
		switch {
		case !ok:
			d.Problem("%s: the %s-scope hooks in %s run %s, which is gone or does not run: install ralph-loop again and run ralph-loop install --host %s --scope %s, or ralph-loop uninstall --host %s --scope %s",
				inst.Title, f.Scope.Name, f.Settings, where, inst.Name, f.Scope.Name, inst.Name, f.Scope.Name)
		case v != getVersion():
			d.Problem("%s: the %s-scope hooks run %s, version %s, not this ralph-loop (%s): run ralph-loop install --host %s --scope %s from the one you mean to use",
				inst.Title, f.Scope.Name, where, v, getVersion(), inst.Name, f.Scope.Name)
		}
	}
}

// script reports the host's hook script, which the hooks of this version's form (marked
// install.Mark) read when ralph-loop cannot run: missing, or not this ralph-loop's, it is a
// problem (a loop's stops would be let through then).
func (d *doctor) script(inst *install.Target, f install.Found) {
	marked := false
	for _, c := range f.Commands {
		marked = marked || strings.HasSuffix(c, " "+install.Mark)
	}
	if !marked || d.scripts[inst.Name] {
		return
	}
	if d.scripts == nil {
		d.scripts = map[string]bool{}
	}
	d.scripts[inst.Name] = true
	path := install.ScriptPath(keepDir(), inst.Name)
	data, err := os.ReadFile(path)
	switch {
	case err != nil:
		d.Problem("%s: the hooks' script %s, which answers when ralph-loop cannot run, is missing: run ralph-loop install --host %s --scope %s",
			inst.Title, path, inst.Name, f.Scope.Name)
	case string(data) != inst.Script():
		d.Problem("%s: the hooks' script %s is not this ralph-loop's: run ralph-loop install --host %s --scope %s",
			inst.Title, path, inst.Name, f.Scope.Name)
	}
}

// version runs a binary's "version --short" (once per binary).
func (d *doctor) version(bin string) (string, bool) {
	if d.versions == nil {
		d.versions = map[string]string{}
	}
	v, seen := d.versions[bin]
	if !seen {
		ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
		out, err := exec.CommandContext(ctx, bin, "version", "--short").Output()
		cancel()
		if err == nil {
			v = strings.TrimSpace(string(out))
		}
		d.versions[bin] = v
	}
	return v, v != ""
}

// cliVersion is the first line a host CLI prints for --version: on its standard output, or
// where it prints nothing there, on its standard error (pi, whose input is not a terminal
// here, prints it there).
func cliVersion(ctx context.Context, cli string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, cli, "--version")
	var errOut strings.Builder
	c.Stderr = &errOut
	out, err := c.Output()
	if err != nil {
		return "(its --version failed)"
	}
	if strings.TrimSpace(string(out)) == "" {
		out = []byte(errOut.String())
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" {
		return "(its --version printed nothing)"
	}
	return inject.Printable(line)
}

// loopHere reports the active loops of the project at dir.
func (d *doctor) loopHere() {
	loops, err := allLoops(newStore())
	if err != nil {
		d.Problem("reading the loops: %v", err)
	}
	n := 0
	for _, l := range loops {
		if l.Status != state.Active || filepath.Clean(l.Cwd) != d.dir {
			continue
		}
		n++
		fmt.Fprintf(d.out, "loop here: %s session %s, iteration %d of %d, %s: %s\n", l.Host, l.SessionID, l.Iteration, l.MaxIterations,
			statusWord(l, time.Now()), firstLine(l.Task, 60))
		w := loopWords(&l)
		d.Say("protected by: %s", inject.ProtectionLine(&l, proc.Supported, w))
		if level, _ := inject.Protection(&l, proc.Supported); level != inject.ProtectedBySandbox {
			d.Say("still possible: %s", inject.Unprotected(w))
		}
	}
	if n == 0 {
		fmt.Fprintf(d.out, "loop here: none active in %s\n", d.dir)
	}
}

// plugins are the host's plugin files (opencode's, Kilo's) that exist, at every scope.
func plugins(inst *install.Target, dir string, getenv func(string) string) []string {
	if _, ok := inst.Host.(install.PluginFiler); len(inst.Scopes) == 0 || inst.Scopes[0].Settings != "" || !ok {
		return nil
	}
	var out []string
	for _, f := range inst.HookFiles(getenv, dir) {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	return out
}
