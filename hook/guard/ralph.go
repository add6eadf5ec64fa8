package guard

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
)

// ralphSubs are the ralph-loop subcommands that can end, replace or unhook a loop.
var ralphSubs = []string{"cancel", "start", "install", "uninstall", "hook"}

// npx PACKAGE ARGS: the host's CLI when the package is named after it.
func (s *shell) npx(c *cmdline, args []field) {
	opts, _, rest := scan(args, "pc", []string{"package", "call", "node-options"}, true)
	if v, ok := hasOpt(opts, "-c", "--call"); ok {
		s.nested(field{text: v})
		return
	}
	if len(rest) == 0 {
		return
	}
	name := rest[0].text
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	name = filepath.Base(name)
	if s.g.cli != "" && strings.Contains(name, s.g.cli) {
		s.hostCLI(rest[1:])
		return
	}
	s.exec(&cmdline{args: append([]field{{text: name}}, rest[1:]...), env: c.env, stdin: c.stdin, more: c.more})
}

// goTool: "go run ./cmd/ralph-loop ARGS" is ralph-loop.
func (s *shell) goTool(c *cmdline, args []field) {
	if len(args) == 0 || args[0].text != "run" {
		s.paths(c, args, inside)
		return
	}
	_, _, rest := scan(args[1:], "CXop", []string{"exec", "tags", "ldflags", "gcflags", "mod", "modfile", "overlay", "pkgdir", "toolexec", "asmflags", "gccgoflags", "installsuffix", "pgo", "covermode", "coverpkg", "buildvcs", "compiler"}, true)
	if len(rest) == 0 {
		return
	}
	pkg, _, _ := strings.Cut(strings.TrimRight(rest[0].text, "/"), "@")
	base := filepath.Base(pkg)
	if pkg == "." {
		base = filepath.Base(s.cwds[0])
	}
	if base == "ralph-loop" || strings.HasSuffix(pkg, "/ralph-loop/cmd/ralph-loop") {
		s.ralph(c, rest[1:])
		return
	}
	s.paths(c, rest, inside)
}

// ralph judges ralph-loop itself: cancel, start, install, uninstall and hook act on loops;
// status, log, gc, version and --help read. A run whose XDG_STATE_HOME (or HOME) points
// at another state directory does not touch this loop (developing ralph-loop under a loop).
func (s *shell) ralph(c *cmdline, args []field) {
	// --npm-shebang PATH first: ralph-loop run as the interpreter of the npm package's
	// command, with that command's path (see cmd/internal/dist); the rest are its arguments.
	if len(args) >= 2 && args[0].text == inject.NPMShebang {
		args = args[2:]
	}
	sub := ""
	// help, version and dry are the values of --help, --version and --dry-run: like the CLI
	// (urfave/cli), a flag given more than once takes its last value, so "--help
	// --help=false" runs the command. A word the guard cannot know may be any flag.
	var help, version, dry, unknown bool
	for _, a := range args {
		t := a.text
		if t == "--" {
			break
		}
		if !a.exact() {
			unknown = true
			if sub == "" {
				sub = "?"
			}
			continue
		}
		if name, val, ok := boolFlag(t); ok {
			switch name {
			case "help", "h":
				help = val
			case "version", "v":
				version = version || sub == "" && val
			case "dry-run":
				dry = val
			}
			continue
		}
		if sub == "" && !strings.HasPrefix(t, "-") {
			sub = t
		}
	}
	if !unknown && (help || version) {
		return
	}
	if sub == "" && !c.more {
		return
	}
	if sub != "" && sub != "?" && !slices.Contains(ralphSubs, sub) {
		return
	}
	if dry && !unknown && (sub == "install" || sub == "uninstall") {
		return
	}
	if dir, fresh, ok := s.g.effectiveStateDir(c.env); fresh || ok && !s.g.isState(dir) {
		return
	}
	if sub == "" || sub == "?" {
		sub = "cancel"
	}
	s.deny(inject.GuardCommand(sub, s.g.words))
}

// boolFlag reads a boolean flag as urfave/cli does: "-name" or "--name" is true,
// "--name=value" is the value (a value strconv.ParseBool refuses is false here: the CLI
// stops with a usage error, but the guard does not count on it).
func boolFlag(arg string) (name string, val, ok bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return "", false, false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, v, hasVal := strings.Cut(name, "=")
	switch name {
	case "help", "h", "version", "v", "dry-run":
	default:
		return "", false, false
	}
	if !hasVal {
		return name, true, true
	}
	b, err := strconv.ParseBool(v)
	return name, err == nil && b, true
}

// hostCLI: the host's own CLI resuming or continuing a session would hand it a prompt the
// user never typed (such as /cancel-ralph).
func (s *shell) hostCLI(args []field) {
	first := true
	for _, a := range args {
		t := a.text
		if t == "--" {
			return
		}
		resume := false
		switch {
		case strings.HasPrefix(t, "--"):
			name, _, _ := strings.Cut(t[2:], "=")
			resume = name == "resume" || name == "continue" || name == "session" || name == "session-id" || name == "fork-session" || name == "last"
		case len(t) > 1 && t[0] == '-':
			resume = strings.ContainsAny(t[1:], "cr")
		default:
			resume = first && t == "resume" || s.g.sessionID != "" && t == s.g.sessionID
			first = false
		}
		if resume {
			s.deny(inject.GuardResume(s.g.cli, s.g.words))
			return
		}
	}
}

// kill, pkill, killall: ending the host ends the session and its loop.
func (s *shell) kill(c *cmdline, args []field) {
	cli := s.g.cli
	for _, a := range args {
		if strings.Contains(a.src, "PPID") || cli != "" && !a.exact() && strings.Contains(a.src, cli) ||
			filepath.Base(c.args[0].text) == "kill" && (a.text == "-1" || a.text == "0" || a.text == "-0") {
			s.deny(inject.GuardKill(cli, s.g.words))
			return
		}
	}
	if cli == "" || filepath.Base(c.args[0].text) == "kill" {
		return
	}
	for _, a := range operands(args, "sUugtPGFJ", []string{"signal", "euid", "uid", "group", "terminal", "parent", "pgroup", "pidfile", "session", "ns", "nslist"}) {
		if a.text == cli || strings.HasPrefix(a.text, cli+" ") || strings.Contains(a.text, "/"+cli) {
			s.deny(inject.GuardKill(cli, s.g.words))
			return
		}
	}
}

// isRalph reports whether a program under another name is ralph-loop: a link to it (made
// in an earlier call, or on PATH), or a program called with the arguments only ralph-loop
// takes ("cancel --all", "cancel --session ID", "hook --host H"), as a renamed copy would be.
func (s *shell) isRalph(prog string, args []field) bool {
	if len(args) == 0 || !slices.Contains(ralphSubs, args[0].text) {
		return false
	}
	for _, a := range args[1:] {
		t := a.text
		switch args[0].text {
		case "cancel":
			if t == "--all" || t == "--session" || strings.HasPrefix(t, "--session=") {
				return true
			}
		case "hook", "install", "uninstall":
			if t == "--host" || strings.HasPrefix(t, "--host=") {
				return true
			}
		}
	}
	path := prog
	if !strings.Contains(prog, "/") {
		p, err := exec.LookPath(prog)
		if err != nil {
			return false
		}
		path = p
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(s.cwds[0], path)
	}
	r, err := filepath.EvalSymlinks(path)
	return err == nil && strings.TrimSuffix(filepath.Base(r), ".exe") == "ralph-loop"
}

// notePrograms remembers copies and links of ralph-loop, and of the programs the guard has
// rules for (a renamed rm), made in the line, by their names.
func (s *shell) notePrograms(srcs []field, dest field) {
	for _, src := range srcs {
		base := strings.TrimSuffix(filepath.Base(src.text), ".exe")
		to := filepath.Base(strings.TrimRight(dest.text, "/"))
		if len(srcs) > 1 || to == "." || to == "/" {
			to = base // copied into a directory, under its own name
		}
		if base == "ralph-loop" {
			if s.ralphNames == nil {
				s.ralphNames = map[string]bool{}
			}
			s.ralphNames[to] = true
			continue
		}
		if !src.exact() || !knownProgram(base) || to == base {
			continue
		}
		if s.aliases == nil {
			s.aliases = map[string]string{}
		}
		s.aliases[to] = base
	}
}
