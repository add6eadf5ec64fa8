package main

import (
	"bytes"
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

	"github.com/rogpeppe/go-internal/diff"
	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// installerNames lists the hosts ralph-loop installs into.
func installerNames() string {
	var names []string
	for _, h := range hosts.Installers() {
		names = append(names, h.Name)
	}
	return strings.Join(names, ", ")
}

// installOptions are install's (or uninstall's) flags as given, and where it prints:
// installCommand fills them from the command line, installRun does the work (gh's Options
// and run function).
type installOptions struct {
	// Add: install (false: uninstall); Name is "install" or "uninstall", for messages.
	Add  bool
	Name string
	// Host is --host ("": every host found); Scope --scope ("": user); Dir --dir ("": the
	// current directory).
	Host, Scope, Dir string
	// Binary is --binary (install only: "" for this ralph-loop).
	Binary         string
	Force, Sandbox bool // install only
	Purge          bool // uninstall only
	DryRun         bool
	Stdout, Stderr io.Writer
}

func installCommand(add bool) *cli.Command {
	name, usage := "install", "add ralph-loop's hooks and slash commands to agent hosts' settings"
	usageText := "ralph-loop install [--host NAME] [--scope user|project|local] [--dir PATH] [--binary PATH] [--sandbox] [--force] [--dry-run]"
	desc := "Without --host, install acts on every supported host found on this machine (its CLI on PATH or " +
		"its configuration directory), and says, for each, every file it touched. Settings files are edited in place: only ralph-loop's " +
		"entries are added, the rest stays byte for byte. At project scope the settings are committed and " +
		"shared: the hooks run the ralph-loop found on PATH, and do nothing but print one line on a machine " +
		"without it. The previous content of a changed file is backed up under $XDG_STATE_HOME/ralph-loop/install."
	flags := []cli.Flag{
		&cli.StringFlag{Name: "host", Usage: "the agent host: " + installerNames() + " (default: every one found)"},
		&cli.StringFlag{Name: "scope", Usage: "user (e.g. ~/.claude), project (committed, e.g. .claude/settings.json) or local (e.g. .claude/settings.local.json); default user"},
		&cli.StringFlag{Name: "dir", Usage: "the project directory (default: the current directory)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print a unified diff of each file it would change, and change nothing"},
	}
	if add {
		flags = append(flags,
			&cli.StringFlag{Name: "binary", Usage: "the ralph-loop executable user- and local-scope hooks run (default: this one)"},
			&cli.BoolFlag{Name: "force", Usage: "add the hooks even when another scope of the host has them already"},
			&cli.BoolFlag{Name: "sandbox", Usage: "also turn on the host's sandbox for the agent's shell, with ralph-loop's files out of its reach (Claude Code; implies --host claude)"})
	} else {
		name, usage = "uninstall", "remove exactly what install added"
		usageText = "ralph-loop uninstall [--host NAME] [--scope user|project|local] [--dir PATH] [--dry-run] [--purge]"
		flags = append(flags, &cli.BoolFlag{Name: "purge", Usage: "also remove the backups, and once no install is left the loops' state and checkpoints: everything ralph-loop stores on this machine"})
		desc = "Takes out, at the scope given, exactly what install added and nothing else: ralph-loop's hook entries " +
			"(known by their command line, wherever the binary has moved since), the settings install set if they " +
			"still hold its value, the command files it wrote if unchanged, and the files and directories it created; " +
			"every other byte of the settings stays as it is. Without --host, uninstall acts on every host ralph-loop " +
			"was installed into or whose CLI is found. A changed file is backed up first under " +
			"$XDG_STATE_HOME/ralph-loop/install, where the backups stay, with the loops' state; uninstall says so, and " +
			"--purge removes them too (refused while a loop is active)."
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
			return installRun(ctx, installOptions{
				Add: add, Name: name,
				Host: cmd.String("host"), Scope: cmd.String("scope"), Dir: cmd.String("dir"),
				Binary: cmd.String("binary"), Force: cmd.Bool("force"), Sandbox: add && cmd.Bool("sandbox"),
				Purge: !add && cmd.Bool("purge"), DryRun: cmd.Bool("dry-run"),
				Stdout: cmd.Root().Writer, Stderr: cmd.Root().ErrWriter,
			})
		},
	}
}

// installRun installs (or uninstalls) at a scope of each host o names, or of every one found,
// and reports what it did; after an uninstall, what is left behind (removed with --purge).
func installRun(ctx context.Context, o installOptions) error {
	var given string // --binary, checked once before anything is written
	if o.Add && o.Binary != "" {
		var err error
		if given, err = binaryPath(o.Binary); err != nil {
			return err
		}
	}
	if o.Sandbox && o.Host == "" {
		// The host whose installer can turn a sandbox on (Claude Code).
		for _, h := range hosts.Installers() {
			if _, ok := h.Host.(install.Sandboxer); ok {
				o.Host = h.Name
				break
			}
		}
	}
	auto := o.Host == ""
	targets, err := installTargets(o)
	if err != nil {
		return err
	}
	if len(targets) == 0 { // (none for install is an error)
		return nothingToUninstall(ctx, o)
	}
	if o.Scope == "" {
		o.Scope = install.ScopeUser
	}
	for _, h := range targets {
		if _, ok := h.Scope(o.Scope); !ok {
			return usagef("unknown scope %q for %s: want %s", o.Scope, h.Title, h.ScopeNames())
		}
	}
	opt, err := scopeOptions(o.Scope, o.Dir)
	if err != nil {
		return err
	}
	opt.Force = o.Force
	opt.Sandbox, opt.KeepDir, opt.ConfigDir = o.Sandbox, keepDir(), filepath.Dir(userSettings())
	if o.Purge && !o.DryRun {
		if err := purgeAllowed(); err != nil {
			return err
		}
	}
	var failed error
	for _, h := range targets {
		hopt, err := hostOptions(ctx, o, h, opt, given)
		if err != nil {
			return err
		}
		skipped, err := installOne(ctx, o, h, hopt, auto)
		if skipped {
			failed = exitError(1) // not installed, though asked: not done
		}
		if err != nil {
			if !auto {
				return err
			}
			fmt.Fprintf(o.Stderr, "ralph-loop: error: %s: %v\n", h.Title, err)
			failed = exitError(1)
		}
	}
	if !o.Add && !o.DryRun && failed == nil {
		return leftBehind(ctx, o.Stdout, o.Stderr, o.Purge)
	}
	return failed
}

// installTargets are the installers of the hosts o acts on: the one --host names, or without
// it every host found (and for uninstall every one installed).
func installTargets(o installOptions) ([]*install.Target, error) {
	if o.Host == "" {
		var targets []*install.Target
		for _, h := range hosts.Installers() {
			if h.Detected(os.Getenv) || !o.Add && installed(h) {
				targets = append(targets, h)
			}
		}
		if len(targets) == 0 && o.Add {
			return nil, fmt.Errorf("found no supported agent CLI on this machine (looked for: %s); name one with --host", installerNames())
		}
		return targets, nil
	}
	h, ok := hosts.Installer(o.Host)
	if _, known := hosts.Lookup(o.Host); known && !ok {
		return nil, fmt.Errorf("ralph-loop cannot %s itself for host %q (no installer); see the README for its setup", o.Name, o.Host)
	}
	if !ok {
		var names []string
		for _, h := range hosts.Installers() {
			names = append(names, h.Name)
		}
		return nil, unknownHost(o.Host, names)
	}
	return []*install.Target{h}, nil
}

// nothingToUninstall is uninstall's answer when no install is recorded and no host is
// found: done, and with --purge whatever ralph-loop left on the machine is removed.
func nothingToUninstall(ctx context.Context, o installOptions) error {
	// Nothing installed, nothing to take out: done (usage.md's exit codes).
	fmt.Fprintf(o.Stdout, "ralph-loop: nothing to uninstall: no install is recorded on this machine and no supported agent CLI is found (looked for: %s)\n", installerNames())
	if !o.Purge || o.DryRun {
		return nil
	}
	if err := purgeAllowed(); err != nil {
		return err
	}
	return leftBehind(ctx, o.Stdout, o.Stderr, true)
}

// hostOptions are opt for one host: an install at a scope of this machine's own runs the
// binary given (or this one). Unless it is a dry run, a change that would unhook a running
// loop is refused.
func hostOptions(ctx context.Context, o installOptions, h *install.Target, opt install.Options, given string) (install.Options, error) {
	if o.Add {
		if s, _ := h.Scope(o.Scope); !s.Shared {
			if opt.Binary = given; given == "" {
				var err error
				if opt.Binary, err = binaryPath(""); err != nil {
					return opt, err
				}
			}
		}
	}
	if !o.DryRun {
		if err := refuseUnhook(ctx, h, o.Scope, opt.Dir); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// installOne installs (or uninstalls) at one host's scope with opt, and reports it; brief
// (several hosts): a plan that changed nothing is one line. skipped: an install added
// nothing because the hooks are at another scope already.
func installOne(ctx context.Context, o installOptions, h *install.Target, opt install.Options, brief bool) (skipped bool, err error) {
	if o.Sandbox && h.SandboxSays != "" {
		fmt.Fprintln(o.Stdout, h.SandboxSays)
	}
	plan, err := h.Do(ctx, opt, o.Add, o.DryRun)
	if err == nil {
		err = report(o.Stdout, plan, o.DryRun, brief)
	}
	return err == nil && plan.Skipped != "", err
}

// installed reports whether install recorded an install for the host (uninstall acts on it
// even when the host's CLI is gone).
func installed(inst *install.Target) bool {
	m, _ := filepath.Glob(filepath.Join(stateDir(), "install", inst.Name+"-*", "record.json"))
	return len(m) > 0
}

// scopeOptions are the install options for a scope and --dir (dir: "" for the current
// directory), with the state directory.
func scopeOptions(scope, dir string) (install.Options, error) {
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
	if err := isDir(abs); err != nil {
		if scope != install.ScopeUser {
			return opt, err
		}
		abs = ""
	}
	opt.Dir = abs
	return opt, nil
}

// isDir checks that --dir names a directory (a usage error if not).
func isDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("--dir %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("--dir %s: %w", dir, err)
	case !fi.IsDir():
		return usagef("--dir %s: not a directory", dir)
	}
	return nil
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
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", err
	}
	return stablePath(abs, os.Args[0], os.Getenv("PATH")), nil
}

// stablePath is the path the hooks name for the running binary exe, one that an upgrade of
// it leaves in place: the one through which the user reached it (arg0 as run, or found on
// PATH), when that is a link to the same file (a package manager's: Homebrew's bin symlink
// into its versioned Cellar, npm's global bin link under nvm), so that an upgrade, which puts
// a new versioned file behind the link and removes the old one, leaves the hooks working; or
// the same file through a "current" link beside its versioned directory (Scoop's
// apps/<app>/current, SDKMAN's); exe otherwise (a path with no version in it: npm's global
// lib, Volta's package image, go install's). A link of one shell's own (fnm's
// fnm_multishells/<pid>_<time>, gone with the shell) is never named: the directory it links
// to is, the node version's own.
func stablePath(exe, arg0, path string) string {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return exe
	}
	var candidates []string
	if strings.ContainsRune(arg0, filepath.Separator) {
		if a, err := filepath.Abs(arg0); err == nil {
			candidates = append(candidates, a)
		}
	} else if arg0 != "" {
		candidates = append(candidates, lookPaths(arg0, path)...)
	}
	candidates = append(candidates, lookPaths("ralph-loop", path)...)
	for _, c := range candidates {
		c = shellLinkResolved(c)
		if c == real {
			continue
		}
		if r, err := filepath.EvalSymlinks(c); err == nil && (r == real || npmCommandOf(r, real)) {
			return c
		}
	}
	if c := throughCurrent(real); c != "" {
		return c
	}
	return exe
}

// npmCommandOf reports whether the file at path is the npm package's command once its first
// run made it a script of the native binary real ("#!<real> --npm-shebang", see
// cmd/internal/dist): the command that runs this binary, which an upgrade leaves in place.
func npmCommandOf(path, real string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	line, _, ok := strings.Cut(string(head[:n]), "\n")
	interp, ok2 := strings.CutSuffix(strings.TrimPrefix(line, "#!"), " "+inject.NPMShebang)
	if !ok || !ok2 || !strings.HasPrefix(line, "#!") {
		return false
	}
	r, err := filepath.EvalSymlinks(interp)
	return err == nil && r == real
}

// shellLinkResolved is path with the link of one shell's own that it goes through resolved:
// fnm's fnm_multishells/<pid>_<time>, which "fnm env" makes for each shell, to the node
// version's installation. Any other path is returned as it is.
func shellLinkResolved(path string) string {
	const dir = "fnm_multishells"
	parts := strings.Split(path, string(filepath.Separator))
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] != dir {
			continue
		}
		link := strings.Join(parts[:i+2], string(filepath.Separator))
		if r, err := filepath.EvalSymlinks(link); err == nil {
			return filepath.Join(append([]string{r}, parts[i+2:]...)...)
		}
	}
	return path
}

// throughCurrent is real reached through a link named "current" beside one of its parent
// directories that leads to that directory (apps/ralph-loop/current -> 1.0.0), or "".
func throughCurrent(real string) string {
	dir, rest := filepath.Dir(real), filepath.Base(real)
	for i := 0; i < 4 && filepath.Dir(dir) != dir; i++ {
		cur := filepath.Join(filepath.Dir(dir), "current")
		if cur != dir {
			if a, err := os.Stat(cur); err == nil && a.IsDir() {
				if b, err := os.Stat(dir); err == nil && os.SameFile(a, b) {
					return filepath.Join(cur, rest)
				}
			}
		}
		dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest)
	}
	return ""
}

// nodeVersion names the node version manager (nvm, fnm) and the node version whose npm
// global directory holds path, if one does: a version manager has no link that follows
// every node version, so the hooks run it from that version's ("" when none).
func nodeVersion(path, nvmDir string) (manager, version string) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := 0; i+2 < len(parts); i++ {
		switch {
		case parts[i] == "versions" && parts[i+1] == "node" && i > 0 &&
			(parts[i-1] == ".nvm" || nvmDir != "" && strings.Join(parts[:i], "/") == filepath.ToSlash(filepath.Clean(nvmDir))):
			return "nvm", parts[i+2]
		case parts[i] == "node-versions" && parts[i+2] == "installation":
			return "fnm", parts[i+1]
		}
	}
	return "", ""
}

// lookPaths are the executables named name in the directories of path, in its order.
func lookPaths(name, path string) []string {
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
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

// unifiedDiff is what a change does to its file, as a unified diff (/dev/null for a file
// created or removed).
func unifiedDiff(c install.Change) []byte {
	from, to := c.Path, c.Path
	if c.Old == nil {
		from = "/dev/null"
	}
	if c.Action == "remove" {
		to = "/dev/null"
	}
	d := diff.Diff(from, c.Old, to, c.Content)
	_, d, _ = bytes.Cut(d, []byte("\n")) // its first line, "diff FROM TO", says it twice
	return d
}

// npxBinary is the ralph-loop npm install -g put on PATH, once install run by npx did it.
var npxBinary string

// report prints what a plan did (or would do, with --dry-run): every file it touched, one
// a line, and what the user is to know; brief (several hosts): a plan that changed nothing
// is one line.
func report(w io.Writer, plan *install.Plan, dry, brief bool) error {
	h, scope := plan.Target, plan.Scope.Name
	verb := "installed"
	if !plan.Install {
		verb = "uninstalled"
	}
	where := fmt.Sprintf("for %s (%s scope)", h.Title, scope)
	if plan.Skipped != "" {
		fmt.Fprintf(w, "ralph-loop: not installed %s: %s; nothing changed (--force adds a second set)\n", where, plan.Skipped)
		return nil
	}
	changed := 0
	for _, c := range plan.Changes {
		if c.Action != "unchanged" {
			changed++
		}
	}
	switch {
	case dry:
		fmt.Fprintf(w, "ralph-loop: dry run, nothing written; %s %s would do:\n", strings.TrimSuffix(verb, "ed"), where)
	case changed == 0:
		fmt.Fprintf(w, "ralph-loop: already %s %s; nothing changed\n", verb, where)
		if brief {
			return nil
		}
	default:
		fmt.Fprintf(w, "ralph-loop: %s %s\n", verb, where)
	}
	for _, c := range plan.Changes {
		if c.Action == "unchanged" && c.Note == "" && !dry {
			continue
		}
		fmt.Fprintf(w, "  %s\n", c.Describe())
		for _, what := range c.What {
			fmt.Fprintf(w, "            %s\n", what) // under the path: one line per change in the file
		}
		if dry && !c.Dir && c.Action != "unchanged" {
			w.Write(unifiedDiff(c))
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
			if b, ok := install.HookBinary(run, h.Name); ok {
				if manager, version := nodeVersion(b, os.Getenv("NVM_DIR")); manager != "" {
					fmt.Fprintf(w, "note: this ralph-loop is npm's under %s's node %s: the hooks run it through npm upgrades and node switches, "+
						"but removing that node version (%s uninstall %s) removes it, and loops are off until you install it again and run ralph-loop install\n",
						manager, version, manager, version)
				}
			}
		}
		if changed > 0 {
			arm := "/ralph-loop"
			if hh, ok := hosts.Lookup(h.Name); ok {
				arm = hh.Facts(os.Getenv, "").Words.Arm()
			}
			fmt.Fprintln(w, inject.AfterInstall(h.Title, h.FilesKind, h.Reload, arm))
		}
	}
	return nil
}
