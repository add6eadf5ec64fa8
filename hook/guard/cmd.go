package guard

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ralph-loop/ralph-loop/inject"
)

// This file judges one simple command, by what its program does with its arguments.

// cmdline is a simple command after expansion.
type cmdline struct {
	args  []field // the program and its arguments
	env   map[string]*field
	stdin *string // what it reads on stdin, when known
	// more: more arguments are added at run time (xargs with input the guard cannot see).
	more bool
}

// ralphSubs are the ralph-loop subcommands that can end, replace or unhook a loop.
var ralphSubs = map[string]bool{"cancel": true, "start": true, "install": true, "uninstall": true, "hook": true}

// readers only read the files they name (their output may still be redirected).
var readers = sync.OnceValue(func() map[string]bool {
	return set("cat tac head tail less more most ls ll dir vdir wc grep egrep fgrep rg ag ack jq stat file diff cmp " +
		"md5sum sha1sum sha256sum sha512sum b2sum cksum sum du df tree realpath readlink basename dirname echo printf test [ [[ " +
		"od hexdump xxd strings nl cut tr column fold fmt pr paste join comm bat batcat view rview nview zcat zless zmore xzcat " +
		"bzcat lzcat zstdcat base64 base32 true false pwd whoami id date sleep type which whence hash help man info " +
		"printenv locale uname hostname ps pgrep pidof lsof top htop free uptime file cal expr seq yes tput stty tty " +
		"look getent groups logname nproc arch env-show exit return break continue shift wait jobs fg bg disown " +
		"let local declare typeset readonly export set shopt umask ulimit alias unalias complete compgen source . history " +
		"go-doc tsort numfmt sha224sum sha384sum xmllint csvlook gron fzf namei lsattr getfacl")
})

// destroyers delete or change what they name: denied on the state directory and on every
// directory above it.
var destroyers = sync.OnceValue(func() map[string]bool {
	return set("rm rmdir unlink shred srm wipe truncate chmod chown chgrp chattr setfacl trash trash-put " +
		"trash-rm gio mount kioclient5 gvfs-rm gvfs-trash")
})

// writers write what they name: denied inside the state directory.
var writers = sync.OnceValue(func() map[string]bool {
	return set("touch mkdir mkfifo mknod tee sponge fallocate patch split csplit")
})

// editors may write the files they open (vim -R and view only read).
var editors = sync.OnceValue(func() map[string]bool {
	return set("vi vim nvim nano emacs emacsclient code codium subl ed ex micro hx helix kak joe pico gedit kate " +
		"mcedit ne jed mg gvim mvim")
})

// shells run a command string with -c, or what they read on stdin.
var shells = sync.OnceValue(func() map[string]bool {
	return set("sh bash zsh dash ksh mksh ash fish yash posh tcsh csh rbash")
})

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// exec judges one simple command.
func (s *shell) exec(c *cmdline) {
	if s.reason != "" || len(c.args) == 0 {
		return
	}
	prog, args := c.args[0], c.args[1:]
	for _, a := range args {
		s.rel(a) // every path the line names counts for xargs further on
	}
	if !prog.exact() {
		// A program named at run time ($RL, ${!H}) given ralph-loop's subcommand, on a line
		// that names ralph-loop.
		if len(args) > 0 && ralphSubs[args[0].text] && (strings.Contains(strings.ToLower(prog.src), "ralph") || strings.Contains(s.src, "ralph-loop")) {
			s.deny(inject.GuardCommand(args[0].text, s.g.words))
		}
		s.paths(c, args, inside)
		return
	}
	name := strings.TrimSuffix(filepath.Base(prog.text), ".exe")
	if a, ok := s.aliases[name]; ok && !strings.Contains(prog.text, "/") || ok && !knownProgram(name) {
		name = a // a copy or link of a program made earlier in the line, under another name
	}
	if s.g.server {
		switch {
		case netClients()[name]:
			s.netClient(name, c, args)
		case socketClients()[name]:
			s.socketClient(c, args)
		}
	}
	switch {
	case name == "ralph-loop" || s.ralphNames[name] || s.isRalph(prog.text, args):
		s.ralph(c, args)
	case s.g.cli != "" && name == s.g.cli:
		s.hostCLI(args)
	case program(name) != nil:
		program(name)(s, c, args)
	case shells()[name]:
		s.shellProg(c, args)
	case strings.HasPrefix(name, "python"):
		s.python(c, args)
	case readers()[name]:
	case destroyers()[name]:
		s.paths(c, args, inside|above)
	case editors()[name]:
		for _, a := range args {
			if a.text == "-R" || a.text == "-M" {
				return
			}
		}
		s.paths(c, args, inside)
	case writers()[name]:
		s.paths(c, args, inside)
	default:
		// A program the guard does not know: nothing inside the state directory, and a
		// program it is given to run (prlimit, unshare, chroot, screen…) judged as run.
		if s.launches(c, args) {
			return
		}
		s.paths(c, args, inside)
	}
}

// knownProgram reports whether the guard has a rule for a program of this name.
func knownProgram(name string) bool {
	return name == "ralph-loop" || program(name) != nil || shells()[name] || readers()[name] || destroyers()[name] ||
		editors()[name] || writers()[name] || strings.HasPrefix(name, "python")
}

// launches judges an unknown program's arguments as a command it runs, from the first one
// that names ralph-loop, a program that deletes, or a shell; it reports whether there was one.
func (s *shell) launches(c *cmdline, args []field) bool {
	for i, a := range args {
		if !a.exact() || strings.HasPrefix(a.text, "-") {
			continue
		}
		n := strings.TrimSuffix(filepath.Base(a.text), ".exe")
		if n == "ralph-loop" || s.ralphNames[n] || destroyers()[n] || shells()[n] || s.g.cli != "" && n == s.g.cli {
			s.exec(&cmdline{args: args[i:], env: c.env, stdin: c.stdin, more: c.more})
			return true
		}
	}
	return false
}

// paths denies when an argument, or the value of a --flag=value, stands to the state
// directory as mask says; with arguments added at run time, when the line names the state
// directory or a directory above it anywhere.
func (s *shell) paths(c *cmdline, args []field, mask rel) {
	if c.more && s.sawState {
		s.denyState()
		return
	}
	for _, a := range args {
		if s.rel(a)&mask != 0 {
			s.denyState()
			return
		}
		if i := strings.IndexByte(a.text, '='); i > 0 && a.exact() {
			if v := (field{text: a.text[i+1:]}); filepath.IsAbs(v.text) && s.rel(v)&mask != 0 {
				s.denyState()
				return
			}
		}
	}
}

// programs are the commands judged by their own rules. The table is made the first time the
// guard needs it, not when the program starts: every hook process would pay for it, and
// only a tool check of an active loop uses it.
var (
	programs     map[string]func(*shell, *cmdline, []field)
	programsOnce sync.Once
)

// program returns the rule of the command with that name (nil if none).
func program(name string) func(*shell, *cmdline, []field) {
	programsOnce.Do(makePrograms)
	return programs[name]
}

func makePrograms() {
	programs = map[string]func(*shell, *cmdline, []field){
		"cd":        func(s *shell, c *cmdline, a []field) { s.cd(a) },
		"pushd":     func(s *shell, c *cmdline, a []field) { s.cd(a) },
		"unset":     (*shell).unset,
		"read":      (*shell).read,
		"mapfile":   (*shell).read,
		"readarray": (*shell).read,
		"npx":       (*shell).npx,
		"bunx":      (*shell).npx,
		"pnpx":      (*shell).npx,
		"eval":      func(s *shell, c *cmdline, a []field) { s.nested(joinFields(a)) },
		"trap":      (*shell).trap,
		"watch":     (*shell).watch,
		"xargs":     (*shell).xargs,
		"parallel":  (*shell).parallel,
		"find":      (*shell).find,
		"git":       (*shell).git,
		"go":        (*shell).goTool,
		"kill":      (*shell).kill,
		"pkill":     (*shell).kill,
		"killall":   (*shell).kill,
		"cp":        func(s *shell, c *cmdline, a []field) { s.copy(c, a, "cp") },
		"mv":        func(s *shell, c *cmdline, a []field) { s.copy(c, a, "mv") },
		"install":   func(s *shell, c *cmdline, a []field) { s.copy(c, a, "install") },
		"ln":        func(s *shell, c *cmdline, a []field) { s.copy(c, a, "ln") },
		"rsync":     (*shell).rsync,
		"tar":       (*shell).tar,
		"unzip":     (*shell).unzip,
		"zip":       (*shell).zip,
		"dd":        (*shell).dd,
		"sort":      (*shell).sortCmd,
		"uniq":      (*shell).uniq,
		"sed":       (*shell).sed,
		"gsed":      (*shell).sed,
		"perl":      func(s *shell, c *cmdline, a []field) { s.script(c, a, "eE", "i", "IMFlCdDx0") },
		"ruby":      func(s *shell, c *cmdline, a []field) { s.script(c, a, "e", "i", "IrCEFx0") },
		"node":      func(s *shell, c *cmdline, a []field) { s.script(c, a, "ep", "", "r") },
		"nodejs":    func(s *shell, c *cmdline, a []field) { s.script(c, a, "ep", "", "r") },
		"deno":      func(s *shell, c *cmdline, a []field) { s.script(c, a, "", "", "") },
		"bun":       func(s *shell, c *cmdline, a []field) { s.script(c, a, "e", "", "r") },
		"php":       func(s *shell, c *cmdline, a []field) { s.script(c, a, "rBRFE", "", "cdz") },
		"lua":       func(s *shell, c *cmdline, a []field) { s.script(c, a, "e", "", "l") },
		"awk":       (*shell).awk,
		"gawk":      (*shell).awk,
		"mawk":      (*shell).awk,
		"nawk":      (*shell).awk,
		"yq":        (*shell).yq,
		"chmod":     (*shell).chmod,
		"chown":     (*shell).chown,
		"set":       (*shell).setArgs,
		"shopt": func(s *shell, c *cmdline, a []field) {
			for _, f := range a {
				if f.text == "dotglob" || !f.exact() {
					s.g.dotglob = true
				}
			}
		},
		"source": (*shell).source,
		".":      (*shell).source,
		"make":   (*shell).makeCmd,
		"gmake":  (*shell).makeCmd,
		"gdb":    (*shell).gdb,
		"at":     (*shell).atCmd,
		"batch":  (*shell).atCmd,
		"tmux":   (*shell).tmux,
		// Codex's apply_patch, run through the shell with the patch as its argument or on
		// its stdin: every file it names.
		"apply_patch": (*shell).applyPatch,
		"applypatch":  (*shell).applyPatch,
		// Wrappers: run the command after their options.
		"timeout": func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "sk", []string{"signal", "kill-after"}, 1) },
		"nice":    func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "n", []string{"adjustment"}, 0) },
		"nohup":   func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"builtin": func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"exec":    func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "a", nil, 0) },
		"stdbuf":  func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "ioe", []string{"input", "output", "error"}, 0) },
		"ionice":  func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "cnp", []string{"class", "classdata", "pid"}, 0) },
		"chrt": func(s *shell, c *cmdline, a []field) {
			s.wrap(c, a, "TPD", []string{"sched-runtime", "sched-period", "sched-deadline"}, 1)
		},
		"setsid":   func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"time":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "fo", []string{"format", "output"}, 0) },
		"taskset":  func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 1) },
		"doas":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "uC", nil, 0) },
		"unbuffer": func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"chronic":  func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"fakeroot": func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "ls", nil, 0) },
		"strace":   func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "oepsaEuPXbI", nil, 0) },
		"ltrace":   func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "oepsaEuIlnA", nil, 0) },
		"catchsegv": func(s *shell, c *cmdline, a []field) {
			s.wrap(c, a, "", nil, 0)
		},
		"valgrind":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"firejail":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "", nil, 0) },
		"proxychains":  func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "f", nil, 0) },
		"proxychains4": func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "f", nil, 0) },
		"torsocks":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "uapPi", nil, 0) },
		"caffeinate":   func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "tw", nil, 0) },
		"xvfb-run":     func(s *shell, c *cmdline, a []field) { s.wrap(c, a, "nsfe", nil, 0) },
		"systemd-run": func(s *shell, c *cmdline, a []field) {
			s.wrap(c, a, "pEuM", []string{"property", "unit", "setenv", "machine", "uid", "gid", "nice", "working-directory", "slice", "description", "on-active", "on-calendar"}, 0)
		},
		"ssh":     (*shell).ssh,
		"command": (*shell).commandBuiltin,
		"env":     (*shell).envCmd,
		"sudo":    (*shell).sudo,
		"busybox": func(s *shell, c *cmdline, a []field) {
			s.exec(&cmdline{args: a, env: c.env, stdin: c.stdin, more: c.more})
		},
		"toybox": func(s *shell, c *cmdline, a []field) {
			s.exec(&cmdline{args: a, env: c.env, stdin: c.stdin, more: c.more})
		},
		"flock":   (*shell).flock,
		"su":      (*shell).su,
		"runuser": (*shell).su,
		"sg":      (*shell).sg,
		"script":  (*shell).scriptCmd,
	}
}

// scan splits args into options and operands. short lists the one-letter options that
// take a value, long the long ones that take the next word when not written with "=".
// With stop, options end at the first operand and rest is that operand and all after it
// (the command a wrapper runs); otherwise every operand is in ops.
func scan(args []field, short string, long []string, stop bool) (opts []opt, ops, rest []field) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			if stop {
				return opts, ops, args[i+1:]
			}
			return opts, append(ops, args[i+1:]...), nil
		case strings.HasPrefix(t, "--") && args[i].exact():
			name, val, hasVal := strings.Cut(t[2:], "=")
			o := opt{name: "--" + name, val: val, hasVal: hasVal}
			if !hasVal && contains(long, name) && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i].text, true
			}
			opts = append(opts, o)
		case len(t) > 1 && t[0] == '-' && args[i].exact():
			for j := 1; j < len(t); j++ {
				o := opt{name: "-" + t[j:j+1]}
				if strings.IndexByte(short, t[j]) >= 0 {
					if j+1 < len(t) {
						o.val, o.hasVal = t[j+1:], true
					} else if i+1 < len(args) {
						i++
						o.val, o.hasVal = args[i].text, true
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		default:
			if stop {
				return opts, ops, args[i:]
			}
			ops = append(ops, args[i])
		}
	}
	return opts, ops, nil
}

// opt is one option as scan read it: "-x" or "--name", with its value.
type opt struct {
	name, val string
	hasVal    bool
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func hasOpt(opts []opt, names ...string) (string, bool) {
	for _, o := range opts {
		if contains(names, o.name) {
			return o.val, true
		}
	}
	return "", false
}

// operands returns the operands of args (see scan).
func operands(args []field, short string, long []string) []field {
	_, ops, _ := scan(args, short, long, false)
	return ops
}

func joinFields(fs []field) field {
	var b strings.Builder
	f := field{}
	for i, x := range fs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.text)
		f.glob = f.glob || x.glob
	}
	f.text = b.String()
	return f
}

// nested judges a command string (bash -c, eval); its unknown parts read as an unknown
// variable.
func (s *shell) nested(f field) {
	if f.fresh {
		return
	}
	s.run(strings.ReplaceAll(f.text, unknownMark, "${__ralph_unknown__}"), s.depth+1)
}

// wrap judges the command a wrapper runs: after its options (short and long take a
// value) and skip operands of its own.
func (s *shell) wrap(c *cmdline, args []field, short string, long []string, skip int) {
	opts, _, rest := scan(args, short, long, true)
	for _, o := range opts {
		switch o.name {
		case "-p", "--pid", "--all-tasks":
			if short == "cnp" || skip == 1 {
				return // ionice -p, chrt -p, taskset -p: an existing process
			}
		case "-o", "--output":
			if o.hasVal && s.rel(field{text: o.val})&inside != 0 { // time -o, strace -o
				s.denyState()
				return
			}
		}
	}
	if skip > len(rest) {
		return
	}
	rest = rest[skip:]
	// nice -5 reads as an option; a duration or priority as an operand.
	s.exec(&cmdline{args: rest, env: c.env, stdin: c.stdin, more: c.more})
}

// commandBuiltin: "command -v X" only looks X up.
func (s *shell) commandBuiltin(c *cmdline, args []field) {
	opts, _, rest := scan(args, "", nil, true)
	if _, ok := hasOpt(opts, "-v", "-V"); ok {
		return
	}
	s.exec(&cmdline{args: rest, env: c.env, stdin: c.stdin, more: c.more})
}

// envCmd: env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [COMMAND...]
func (s *shell) envCmd(c *cmdline, args []field) {
	opts, _, rest := scan(args, "uCS", []string{"unset", "chdir", "split-string"}, true)
	env := map[string]*field{}
	for k, v := range c.env {
		env[k] = v
	}
	for _, o := range opts {
		switch o.name {
		case "-i", "--ignore-environment":
			env["HOME"], env["XDG_STATE_HOME"] = nil, nil
		case "-u", "--unset":
			env[o.val] = nil
		case "-C", "--chdir":
			s.cd([]field{{text: o.val}})
		case "-S", "--split-string":
			s.nested(joinFields(append([]field{{text: o.val}}, rest...)))
			return
		}
	}
	for len(rest) > 0 && strings.Contains(rest[0].text, "=") && !strings.HasPrefix(rest[0].text, "=") {
		name, val, _ := strings.Cut(rest[0].text, "=")
		f := rest[0]
		f.text = val
		env[name] = &f
		rest = rest[1:]
	}
	s.exec(&cmdline{args: rest, env: env, stdin: c.stdin, more: c.more})
}

// sudo [options] [NAME=VALUE]... COMMAND
func (s *shell) sudo(c *cmdline, args []field) {
	_, _, rest := scan(args, "ugpCDrthUT", []string{"user", "group", "prompt", "close-from", "chdir", "role", "type", "host", "other-user", "command-timeout"}, true)
	env := map[string]*field{}
	for k, v := range c.env {
		env[k] = v
	}
	for len(rest) > 0 && strings.Contains(rest[0].text, "=") && !strings.HasPrefix(rest[0].text, "=") {
		name, val, _ := strings.Cut(rest[0].text, "=")
		f := rest[0]
		f.text = val
		env[name] = &f
		rest = rest[1:]
	}
	s.exec(&cmdline{args: rest, env: env, stdin: c.stdin, more: c.more})
}

// flock [options] FILE COMMAND... | flock [options] FILE -c STRING
func (s *shell) flock(c *cmdline, args []field) {
	opts, _, rest := scan(args, "wEc", []string{"timeout", "conflict-exit-code", "command"}, true)
	if v, ok := hasOpt(opts, "-c", "--command"); ok {
		s.nested(field{text: v})
		return
	}
	if len(rest) < 2 {
		return
	}
	rest = rest[1:]
	if rest[0].text == "-c" && len(rest) > 1 {
		s.nested(rest[1])
		return
	}
	s.exec(&cmdline{args: rest, env: c.env, stdin: c.stdin, more: c.more})
}

// su [options] [USER] -c STRING, runuser -u USER -- COMMAND
func (s *shell) su(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "csgGwu", []string{"command", "session-command", "shell", "group", "supp-group", "whitelist-environment", "user"}, false)
	if v, ok := hasOpt(opts, "-c", "--command", "--session-command"); ok {
		s.nested(field{text: v})
		return
	}
	if _, ok := hasOpt(opts, "-u", "--user"); ok && len(ops) > 0 {
		s.exec(&cmdline{args: ops, env: c.env, stdin: c.stdin})
	}
}

// sg GROUP [-c] COMMAND
func (s *shell) sg(c *cmdline, args []field) {
	if len(args) < 2 {
		return
	}
	rest := args[1:]
	if rest[0].text == "-c" {
		rest = rest[1:]
	}
	s.nested(joinFields(rest))
}

// script -c STRING
func (s *shell) scriptCmd(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "cEIOBTm", []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"}, false)
	if v, ok := hasOpt(opts, "-c", "--command"); ok {
		s.nested(field{text: v})
	}
	for _, o := range ops {
		if s.rel(o)&inside != 0 {
			s.denyState()
		}
	}
}

// shellProg: bash -c STRING [ARG0 ARGS...], bash SCRIPT, or bash reading stdin.
func (s *shell) shellProg(c *cmdline, args []field) {
	cmdString := false
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" || t == "-" {
			i++
			break
		}
		if strings.HasPrefix(t, "--") {
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
			continue
		}
		if len(t) > 1 && (t[0] == '-' || t[0] == '+') {
			cmdString = cmdString || strings.ContainsRune(t[1:], 'c')
			if strings.ContainsAny(t[1:], "oO") {
				i++
			}
			continue
		}
		break
	}
	switch {
	case cmdString && i < len(args):
		for j, a := range args[i+1:] { // $0, $1, …
			if j < 10 {
				s.vars[string(rune('0'+j))] = []field{a}
			}
		}
		if len(args) > i+2 {
			s.vars["@"] = args[i+2:]
			s.vars["*"] = args[i+2:]
		}
		s.nested(args[i])
	case i < len(args) && args[i].proc != nil:
		s.run(*args[i].proc, s.depth+1) // bash <(…): the script is what the command prints
	case i < len(args):
		// A script file: what it does is not read (see docs/guard.md).
		s.paths(c, args[i+1:], inside)
	case c.stdin != nil:
		s.run(*c.stdin, s.depth+1)
	}
}

// trap [-lp] [ACTION SIGNAL...]
func (s *shell) trap(c *cmdline, args []field) {
	ops := operands(args, "", nil)
	if len(ops) > 1 {
		s.nested(ops[0])
	}
}

// watch [options] COMMAND...: run through sh -c, or directly with -x.
func (s *shell) watch(c *cmdline, args []field) {
	opts, _, rest := scan(args, "nq", []string{"interval", "equexit"}, true)
	if len(rest) == 0 {
		return
	}
	if _, ok := hasOpt(opts, "-x", "--exec"); ok {
		s.exec(&cmdline{args: rest, env: c.env})
		return
	}
	s.nested(joinFields(rest))
}

func (s *shell) unset(c *cmdline, args []field) {
	for _, a := range operands(args, "", nil) {
		s.vars[a.text] = []field{{text: unknownMark, lead: true}}
		if a.text == "HOME" || a.text == "XDG_STATE_HOME" || s.exported[a.text] {
			s.env[a.text] = nil
		}
	}
}

// read sets its variables to what it reads.
func (s *shell) read(c *cmdline, args []field) {
	for _, a := range operands(args, "adinNptu", nil) {
		s.vars[a.text] = []field{{text: unknownMark, lead: true, input: true}}
	}
}

// xargs [options] [COMMAND [ARGS...]]: the command gets more arguments from stdin, at
// the end or in place of the -I string.
func (s *shell) xargs(c *cmdline, args []field) {
	opts, _, rest := scan(args, "adEILnPs", []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}, true)
	if len(rest) == 0 {
		rest = []field{{text: "echo"}}
	}
	repl, replace := hasOpt(opts, "-I", "--replace")
	if v, ok := hasOpt(opts, "-i"); ok {
		repl, replace = v, true
	}
	if replace && repl == "" {
		repl = "{}"
	}
	_, file := hasOpt(opts, "-a", "--arg-file")
	unknown := field{text: unknownMark, lead: true, input: true}
	var items []field
	if c.stdin != nil && !file {
		for _, w := range strings.Fields(*c.stdin) {
			items = append(items, field{text: w})
		}
	}
	if !replace {
		if c.stdin == nil || file {
			s.exec(&cmdline{args: append(append([]field{}, rest...), unknown), env: c.env, more: true})
			return
		}
		s.exec(&cmdline{args: append(append([]field{}, rest...), items...), env: c.env})
		return
	}
	if c.stdin == nil || file {
		items = []field{unknown}
	}
	for _, it := range items {
		cmd := make([]field, len(rest))
		for i, a := range rest {
			if strings.Contains(a.text, repl) {
				a.text = strings.ReplaceAll(a.text, repl, it.text)
				a.lead = a.lead || it.lead && strings.HasPrefix(rest[i].text, repl)
				a.input = a.input || it.input
			}
			cmd[i] = a
		}
		s.exec(&cmdline{args: cmd, env: c.env, more: c.stdin == nil || file})
	}
}

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

// parallel [options] COMMAND ::: ARGS
func (s *shell) parallel(c *cmdline, args []field) {
	_, _, rest := scan(args, "jSX", []string{"jobs"}, true)
	var cmd, items []field
	for i, a := range rest {
		if a.text == ":::" || a.text == "::::" {
			cmd, items = rest[:i], rest[i+1:]
			break
		}
	}
	if cmd == nil {
		cmd = rest
		s.exec(&cmdline{args: append(append([]field{}, cmd...), field{text: unknownMark, lead: true}), env: c.env, more: true})
		return
	}
	for _, it := range items {
		s.exec(&cmdline{args: append(append([]field{}, cmd...), it), env: c.env})
	}
	if len(cmd) == 1 && len(items) == 0 {
		s.nested(cmd[0])
	}
}

// find [-H -L -P] [ROOT...] [EXPRESSION]: -delete, -exec and -fprint act; the rest reads.
func (s *shell) find(c *cmdline, args []field) {
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			i++
		} else if t == "-D" {
			i += 2
		} else {
			break
		}
	}
	var roots []field
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") && t != "-" || t == "(" || t == "!" || t == ")" {
			break
		}
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []field{{text: "."}}
	}
	for _, r := range roots {
		s.rel(r)
	}
	expr := args[min(i, len(args)):]
	for j := 0; j < len(expr); j++ {
		switch expr[j].text {
		case "-delete":
			for _, r := range roots {
				if s.findReaches(r, expr) {
					s.denyState()
					return
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(expr) && expr[k].text != ";" && expr[k].text != "+" {
				k++
			}
			for _, r := range roots {
				var cmd []field
				for _, a := range expr[j+1 : k] {
					if strings.Contains(a.text, "{}") {
						a.text = strings.ReplaceAll(a.text, "{}", strings.TrimRight(r.text, "/")+"/"+unknownMark)
						a.glob = a.glob || r.glob
					}
					cmd = append(cmd, a)
				}
				s.exec(&cmdline{args: cmd, env: c.env})
			}
			j = k
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if j+1 < len(expr) && s.rel(expr[j+1])&inside != 0 {
				s.denyState()
				return
			}
		}
	}
}

// findReaches reports whether find from root with expression expr may delete in the state
// directory or a directory above it: root is there, or above it and -maxdepth lets find
// go as deep as the state directory (the directories above it are not empty, so -delete
// cannot remove them).
func (s *shell) findReaches(root field, expr []field) bool {
	r := s.rel(root)
	if r&inside != 0 || r == 0 {
		return r != 0
	}
	depth := -1
	for i, a := range expr {
		if a.text == "-maxdepth" && i+1 < len(expr) {
			if n, err := strconv.Atoi(expr[i+1].text); err == nil && expr[i+1].exact() {
				depth = n
			}
		}
	}
	if depth < 0 || !root.exact() {
		return !s.findSpares(expr)
	}
	for _, p := range s.abs(root.text) {
		for _, k := range s.g.kept {
			for _, q := range []string{filepath.Clean(p), s.g.resolve(p)} {
				if rel, err := filepath.Rel(q, k); err == nil && within(k, q) && len(components(rel)) <= depth {
					return true
				}
			}
		}
	}
	return false
}

// chown: to the user (by name, $USER, $(whoami), or uid), with or without a group, takes
// nothing away from the owner, above the state directory or not; any other owner is judged
// as a destroyer.
func (s *shell) chown(c *cmdline, args []field) {
	_, ops, _ := scan(args, "", []string{"from", "reference"}, false)
	if len(ops) < 2 {
		s.paths(c, ops, inside|above)
		return
	}
	owner, files := ops[0], ops[1:]
	user, _, _ := strings.Cut(owner.text, ":")
	if owner.exact() && s.g.user != "" && (user == s.g.user || user == strconv.Itoa(os.Getuid())) {
		s.paths(c, files, inside)
		return
	}
	s.paths(c, files, inside|above)
}

// findSpares reports whether a find expression's -delete can reach no file of ralph-loop's
// under a root above them: on every way to -delete, a -name or -iname test that no name of
// ralph-loop's matches (find ~ -name '.DS_Store' -delete, \( -name '*.pyc' -o -name
// __pycache__ \) -delete). ralph-loop's names are those under the kept paths now (and the
// directories down to them), and those it makes; past a bound on how many there are, or on
// an expression it cannot read, it cannot tell: false.
func (s *shell) findSpares(expr []field) bool {
	names, ok := s.keptNames()
	if !ok {
		return false
	}
	for _, n := range names {
		p := &findParser{expr: expr, name: n}
		_, may := p.list()
		if p.bad || p.i < len(expr) || may {
			return false
		}
	}
	return true
}

// madeNames are names of files and directories ralph-loop makes (some only now and then).
var madeNames = []string{"ralph-loop", "sessions", "active", "history", "checks", "trash", "install", "backups", "loops",
	"loop.json", "loop.lock", "events.jsonl", "tools.jsonl", "said.jsonl", "record.json", "key", "cancel-typed",
	"fallback-stop.0", "task-0.md", "0-iteration-1-check-1.log", "loop.json.refused-0", ".loop.json.0.tmp", ".key.0.tmp",
	"settings.json.0.bak", "0.json", "state", "share", ".local"}

// keptNames are the names of everything under the kept paths and of the directories from
// the home down to them, and the names ralph-loop makes; ok is false past 4096 of them.
func (s *shell) keptNames() (names []string, ok bool) {
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range madeNames {
		add(n)
	}
	if s.g.sessionID != "" {
		add(s.g.sessionID)
	}
	count := 0
	for _, k := range s.g.kept {
		for d := k; d != "/" && d != "." && (s.g.home == "" || within(d, s.g.home)); d = filepath.Dir(d) {
			add(filepath.Base(d))
		}
		err := filepath.WalkDir(k, func(_ string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if count++; count > 4096 {
				return fs.SkipAll
			}
			add(e.Name())
			return nil
		})
		if err != nil || count > 4096 {
			return nil, false
		}
	}
	return names, true
}

// findParser evaluates a find expression for one name: which results it may have, and
// whether -delete may run on the way (other tests may go either way).
type findParser struct {
	expr []field
	i    int
	name string
	bad  bool
}

// outcome is the results an expression may have: bit 1 true, bit 2 false.
type outcome int

const (
	maybeTrue  outcome = 1
	maybeFalse outcome = 2
	either             = maybeTrue | maybeFalse
)

func (p *findParser) peek() string {
	if p.i < len(p.expr) {
		return p.expr[p.i].text
	}
	return ""
}

// list: OR (, OR)*
func (p *findParser) list() (outcome, bool) {
	r, may := p.or()
	for p.peek() == "," {
		p.i++
		r2, may2 := p.or()
		r, may = r2, may || may2
	}
	return r, may
}

// or: AND (-o AND)*; the right side runs only when the left may be false.
func (p *findParser) or() (outcome, bool) {
	r, may := p.and()
	for p.peek() == "-o" || p.peek() == "-or" {
		p.i++
		r2, may2 := p.and()
		if r&maybeFalse != 0 {
			may = may || may2
			r = r&maybeTrue | r2
		}
	}
	return r, may
}

// and: NOT ([-a] NOT)*; the right side runs only when the left may be true.
func (p *findParser) and() (outcome, bool) {
	r, may := p.not()
	for {
		t := p.peek()
		if t == "" || t == ")" || t == "," || t == "-o" || t == "-or" {
			return r, may
		}
		if t == "-a" || t == "-and" {
			p.i++
		}
		r2, may2 := p.not()
		if r&maybeTrue != 0 {
			may = may || may2
			r = r&maybeFalse | r2
		} else {
			r = maybeFalse
		}
	}
}

func (p *findParser) not() (outcome, bool) {
	if t := p.peek(); t == "!" || t == "-not" {
		p.i++
		r, may := p.not()
		var n outcome
		if r&maybeTrue != 0 {
			n |= maybeFalse
		}
		if r&maybeFalse != 0 {
			n |= maybeTrue
		}
		return n, may
	}
	return p.primary()
}

// findArgs are how many arguments find's tests and options take that the parser reads as
// either outcome (or, options, as true).
var findArgs = map[string]int{
	"-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1, "-type": 1, "-xtype": 1,
	"-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1,
	"-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-perm": 1, "-size": 1, "-links": 1, "-inum": 1, "-samefile": 1,
	"-lname": 1, "-ilname": 1, "-fstype": 1, "-used": 1, "-context": 1,
	"-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0, "-nogroup": 0,
}

// findOptions are find's options and actions that are always true, and their arguments.
var findOptions = map[string]int{
	"-maxdepth": 1, "-mindepth": 1, "-regextype": 1, "-depth": 0, "-d": 0, "-xdev": 0, "-mount": 0, "-follow": 0,
	"-noleaf": 0, "-daystart": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-prune": 0, "-print": 0,
	"-print0": 0, "-ls": 0, "-true": 0, "-quit": 0, "-printf": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2,
}

func (p *findParser) primary() (outcome, bool) {
	t := p.peek()
	p.i++
	switch {
	case t == "(":
		r, may := p.list()
		if p.peek() != ")" {
			p.bad = true
			return either, true
		}
		p.i++
		return r, may
	case t == "-name" || t == "-iname":
		if p.i >= len(p.expr) || !p.expr[p.i].exact() {
			p.bad = true
			return either, true
		}
		pat, name := p.expr[p.i].text, p.name
		p.i++
		if t == "-iname" {
			pat, name = strings.ToLower(pat), strings.ToLower(name)
		}
		if ok, err := path.Match(pat, name); err != nil || ok {
			return maybeTrue, false
		}
		return maybeFalse, false
	case t == "-delete":
		return either, true
	case t == "-false":
		return maybeFalse, false
	case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
		for p.i < len(p.expr) && p.peek() != ";" && p.peek() != "+" {
			p.i++
		}
		p.i++
		return either, false
	}
	if n, ok := findArgs[t]; ok {
		p.i += n
		return either, false
	}
	if n, ok := findOptions[t]; ok {
		p.i += n
		return maybeTrue, false
	}
	p.bad = true
	return either, true
}

// git: clean, and stash of untracked files, in a work tree that holds the state directory.
func (s *shell) git(c *cmdline, args []field) {
	opts, _, rest := scan(args, "Cc", []string{"git-dir", "work-tree", "namespace", "exec-path", "config-env"}, true)
	dirs := append([]string(nil), s.cwds...)
	tree := ""
	for _, o := range opts {
		switch o.name {
		case "-c":
			// An alias ("!CMD"), a pager, an editor, an ssh command…: a command git runs.
			if k, v, ok := strings.Cut(o.val, "="); ok && (strings.HasPrefix(v, "!") || gitRuns(k)) {
				s.nested(field{text: strings.TrimPrefix(v, "!")})
			}
		case "-C":
			for i, d := range dirs {
				if filepath.IsAbs(o.val) {
					dirs[i] = filepath.Clean(o.val)
				} else {
					dirs[i] = filepath.Join(d, o.val)
				}
			}
		case "--work-tree":
			tree = o.val
		}
	}
	if len(rest) == 0 {
		return
	}
	sub, subArgs := rest[0].text, rest[1:]
	holds := func() []string {
		var out []string
		for _, d := range dirs {
			root := repoRoot(d)
			if tree != "" {
				root = tree
				if !filepath.IsAbs(root) {
					root = filepath.Join(d, root)
				}
			}
			if s.rel(field{text: root}) != 0 {
				out = append(out, d)
			}
		}
		return out
	}
	switch sub {
	case "clean":
		opts, ops, _ := scan(subArgs, "e", []string{"exclude"}, false)
		if _, dry := hasOpt(opts, "-n", "--dry-run"); dry {
			return
		}
		if len(ops) == 0 {
			ops = []field{{text: "."}} // git clean cleans from where it runs
		}
		for _, d := range holds() {
			for _, p := range ops {
				if !filepath.IsAbs(p.text) {
					p.text = d + "/" + p.text
				}
				if s.rel(p) != 0 {
					s.denyState()
					return
				}
			}
		}
	case "stash":
		opts, _, _ := scan(subArgs, "m", []string{"message"}, false)
		if _, ok := hasOpt(opts, "-u", "--include-untracked", "-a", "--all"); ok && len(holds()) > 0 {
			s.denyState()
		}
	}
}

// gitRuns reports whether a git setting names a command git runs.
func gitRuns(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"pager", "editor", "sshcommand", "fsmonitor", "askpass", "helper", "external", "textconv",
		"command", "program", "cmd", "driver", "proxy", "process", "clean", "smudge"} {
		if strings.HasSuffix(k, w) || strings.HasPrefix(k, "alias.") {
			return true
		}
	}
	return false
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
	if sub != "" && sub != "?" && !ralphSubs[sub] {
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

// copy judges cp, mv, install and ln: a destination inside the state directory, or one
// that puts a source's name there or above it; for mv, a source there or above.
func (s *shell) copy(c *cmdline, args []field, kind string) {
	short, long := "tS", []string{"target-directory", "suffix"}
	if kind == "install" {
		short, long = "tSmogZ", []string{"target-directory", "suffix", "mode", "owner", "group"}
	}
	opts, ops, _ := scan(args, short, long, false)
	var dest *field
	if v, ok := hasOpt(opts, "-t", "--target-directory"); ok {
		dest = &field{text: v}
	}
	_, noTarget := hasOpt(opts, "-T", "--no-target-directory")
	if kind == "install" {
		if _, ok := hasOpt(opts, "-d", "--directory"); ok {
			s.paths(c, ops, inside)
			return
		}
	}
	srcs := ops
	if dest == nil {
		switch {
		case len(ops) == 0:
			return
		case len(ops) == 1 && kind == "ln":
			dest = &field{text: "."}
		case len(ops) == 1:
			if kind == "mv" && s.rel(ops[0]) != 0 {
				s.denyState()
			}
			return
		default:
			srcs, dest = ops[:len(ops)-1], &ops[len(ops)-1]
		}
	}
	s.notePrograms(srcs, *dest)
	_, symbolic := hasOpt(opts, "-s", "--symbolic")
	_, link := hasOpt(opts, "-l", "--link")
	if kind == "ln" && !symbolic || kind == "cp" && link {
		// A hard link to a state file would let a later write through it change the state.
		for _, src := range srcs {
			if s.rel(src)&inside != 0 {
				s.denyState()
				return
			}
		}
	}
	if kind == "mv" {
		for _, src := range srcs {
			if s.rel(src) != 0 {
				s.denyState()
				return
			}
		}
	}
	s.destination(*dest, srcs, noTarget)
}

// destination denies writing dest inside the state directory, or a source's name into it
// or onto a directory above it.
func (s *shell) destination(dest field, srcs []field, noTarget bool) {
	r := s.rel(dest)
	if r&inside != 0 || noTarget && r&above != 0 {
		s.denyState()
		return
	}
	if noTarget || dest.lead || dest.fresh {
		return
	}
	for _, src := range srcs {
		base := filepath.Base(strings.TrimRight(src.text, "/"))
		if base == "." || base == "/" || base == "" {
			continue
		}
		j := field{text: strings.TrimRight(dest.text, "/") + "/" + base, glob: dest.glob || src.glob}
		if s.rel(j) != 0 {
			s.denyState()
			return
		}
	}
}

// rsync [options] SRC... DEST
func (s *shell) rsync(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "eBfTM", []string{"exclude", "include", "filter", "files-from", "exclude-from", "include-from",
		"rsh", "rsync-path", "temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "log-file",
		"password-file", "chmod", "chown", "suffix", "timeout", "bwlimit", "max-size", "min-size", "info", "debug",
		"out-format", "port", "sockopts", "address", "skip-compress", "usermap", "groupmap", "checksum-choice",
		"compress-choice", "iconv", "outbuf", "stop-after", "stop-at", "max-delete", "modify-window", "block-size",
		"contimeout", "protocol", "write-batch", "read-batch", "only-write-batch", "copy-as", "remote-option"}, false)
	if len(ops) < 2 {
		return
	}
	del := false
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--del") || o.name == "--remove-source-files" {
			del = true
		}
	}
	srcs, dest := ops[:len(ops)-1], ops[len(ops)-1]
	if _, ok := hasOpt(opts, "--remove-source-files"); ok {
		for _, src := range srcs {
			if s.rel(src) != 0 {
				s.denyState()
				return
			}
		}
	}
	if del && s.rel(dest) != 0 {
		s.denyState()
		return
	}
	var named []field
	for _, src := range srcs {
		if !strings.HasSuffix(src.text, "/") {
			named = append(named, src)
		}
	}
	s.destination(dest, named, false)
}

// tar: extracting into the state directory, writing an archive there, --remove-files.
func (s *shell) tar(c *cmdline, args []field) {
	if len(args) > 0 && args[0].exact() && !strings.HasPrefix(args[0].text, "-") {
		a := args[0]
		a.text = "-" + a.text
		args = append([]field{a}, args[1:]...)
	}
	opts, ops, _ := scan(args, "fCbTXLVgKHN", []string{"file", "directory", "files-from", "exclude-from", "exclude",
		"blocking-factor", "label", "listed-incremental", "starting-file", "format", "newer", "transform", "owner", "group",
		"mode", "mtime", "use-compress-program", "to-command", "info-script", "new-volume-script", "rsh-command"}, false)
	var archive, dir *field
	write, extract, remove := false, false, false
	for _, o := range opts {
		switch o.name {
		case "-f", "--file":
			archive = &field{text: o.val}
		case "-C", "--directory":
			dir = &field{text: o.val}
		case "-c", "-r", "-u", "-A", "--create", "--append", "--update", "--catenate", "--concatenate", "--delete":
			write = true
		case "-x", "--extract", "--get":
			extract = true
		case "--remove-files":
			remove = true
		}
	}
	if write && archive != nil && s.rel(*archive)&inside != 0 {
		s.denyState()
		return
	}
	if extract {
		if dir == nil {
			dir = &field{text: "."}
		}
		if s.rel(*dir)&inside != 0 {
			s.denyState()
			return
		}
		if _, abs := hasOpt(opts, "-P", "--absolute-names"); abs {
			s.denyState() // members with absolute names go anywhere, the state included
			return
		}
		for _, o := range ops {
			if !filepath.IsAbs(o.text) {
				o.text = dir.text + "/" + o.text
			}
			if s.rel(o) != 0 {
				s.denyState() // members named on the line that are the state or above it
				return
			}
		}
	}
	if remove {
		for _, o := range ops {
			if dir != nil && !filepath.IsAbs(o.text) {
				o.text = dir.text + "/" + o.text
			}
			if s.rel(o) != 0 {
				s.denyState()
				return
			}
		}
	}
}

func (s *shell) unzip(c *cmdline, args []field) {
	opts, _, _ := scan(args, "dxP", nil, false)
	dir := field{text: "."}
	if v, ok := hasOpt(opts, "-d"); ok {
		dir = field{text: v}
	}
	if _, list := hasOpt(opts, "-l", "-t", "-v", "-p", "-Z"); !list && s.rel(dir)&inside != 0 {
		s.denyState()
	}
}

func (s *shell) zip(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "bnPtx", nil, false)
	if len(ops) == 0 {
		return
	}
	if s.rel(ops[0])&inside != 0 {
		s.denyState()
		return
	}
	if _, move := hasOpt(opts, "-m", "--move"); move {
		s.paths(c, ops[1:], inside|above)
	}
}

func (s *shell) dd(c *cmdline, args []field) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a.text, "of="); ok && s.rel(field{text: v, glob: a.glob})&inside != 0 {
			s.denyState()
			return
		}
	}
}

func (s *shell) sortCmd(c *cmdline, args []field) {
	opts, _, _ := scan(args, "otkSTz", []string{"output", "field-separator", "key", "buffer-size", "temporary-directory", "parallel", "files0-from", "batch-size", "compress-program", "random-source", "sort"}, false)
	if v, ok := hasOpt(opts, "-o", "--output"); ok && s.rel(field{text: v})&inside != 0 {
		s.denyState()
	}
}

func (s *shell) uniq(c *cmdline, args []field) {
	ops := operands(args, "fsw", []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"})
	if len(ops) > 1 && s.rel(ops[1])&inside != 0 {
		s.denyState()
	}
}

// sed: -i writes its files; a script that writes (w, e) is judged by what it mentions.
func (s *shell) sed(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "efl", []string{"expression", "file", "line-length"}, false)
	inPlace := false
	var scripts []string
	for _, o := range opts {
		switch {
		case o.name == "--in-place" || o.name == "-i":
			inPlace = true
		case o.name == "-e" || o.name == "--expression":
			scripts = append(scripts, o.val)
		}
	}
	if _, ok := hasOpt(opts, "-e", "--expression", "-f", "--file"); !ok && len(ops) > 0 {
		scripts, ops = append(scripts, ops[0].text), ops[1:]
	}
	if inPlace {
		s.paths(c, ops, inside)
		return
	}
	for _, sc := range scripts {
		for _, loc := range sedWrites().FindAllStringIndex(sc, 64) {
			cmd := sc[loc[1]-1]
			arg, _, _ := strings.Cut(sc[loc[1]:], "\n")
			arg = strings.TrimSpace(arg)
			if strings.HasPrefix(arg, "~") {
				arg = s.tilde(arg)
			}
			switch {
			case cmd == 'e' && s.codeMentions(sc):
				// e runs a command: the rest of the line, or the pattern space.
				s.denyState()
				return
			case cmd != 'e' && arg != "" && s.rel(field{text: arg})&inside != 0:
				s.denyState()
				return
			case cmd != 'e' && arg == "" && s.codeMentions(sc):
				s.denyState()
				return
			}
		}
	}
}

// script judges an interpreter's one-liner: code (the value of an option in codeOpts)
// that mentions the state directory and does something that writes; with an in-place
// option (inPlace), the files it is given are written.
func (s *shell) script(c *cmdline, args []field, codeOpts, inPlace, withArg string) {
	opts, ops, _ := scan(args, codeOpts+withArg, []string{"eval", "print", "require", "import"}, false)
	code, edit := false, false
	for _, o := range opts {
		if len(o.name) == 2 && strings.Contains(codeOpts, o.name[1:]) || o.name == "--eval" || o.name == "--print" {
			code = true
			s.judgeCode(o.val)
		}
		if len(o.name) == 2 && inPlace != "" && strings.Contains(inPlace, o.name[1:]) {
			edit = true
		}
	}
	if s.reason != "" {
		return
	}
	if edit {
		s.paths(c, ops, inside)
		return
	}
	if code && len(opts) > 0 && s.codeWrites(opts, codeOpts) {
		// The code writes or deletes what it is given: the paths after it.
		s.paths(c, ops, inside|above)
		return
	}
	switch {
	case code:
	case (len(ops) == 0 || ops[0].text == "-") && c.stdin != nil:
		s.judgeCode(*c.stdin) // the program on stdin
	case len(ops) > 0:
		s.paths(c, ops[1:], inside) // a script file and its arguments
	}
}

// codeWrites reports whether the code given with one of codeOpts writes or runs something.
func (s *shell) codeWrites(opts []opt, codeOpts string) bool {
	for _, o := range opts {
		if len(o.name) == 2 && strings.Contains(codeOpts, o.name[1:]) || o.name == "--eval" || o.name == "--print" {
			if writes(o.val) || strings.Contains(o.val, "unlink") || strings.Contains(o.val, "rmSync") {
				return true
			}
		}
	}
	return false
}

// python [-c CODE | -m MODULE | SCRIPT] [ARGS...]
func (s *shell) python(c *cmdline, args []field) {
	opts, _, rest := scan(args, "cmWXQ", nil, true)
	for _, o := range opts {
		switch o.name {
		case "-c":
			s.judgeCode(o.val)
			if s.reason == "" && writes(o.val) {
				s.paths(c, rest, inside|above) // sys.argv: the paths the code is given
			}
			return
		case "-m":
			if o.val == "json.tool" {
				ops := operands(rest, "", []string{"indent", "sort-keys"})
				if len(ops) > 1 && s.rel(ops[1])&inside != 0 {
					s.denyState()
				}
				return
			}
			s.paths(c, rest, inside)
			return
		}
	}
	switch {
	case (len(rest) == 0 || rest[0].text == "-") && c.stdin != nil:
		s.judgeCode(*c.stdin) // the program on stdin
	case len(rest) > 0:
		s.paths(c, rest[1:], inside)
	}
}

func (s *shell) awk(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "fvFiEl", []string{"file", "assign", "field-separator", "include", "exec", "load"}, false)
	edit := false
	for _, o := range opts {
		if (o.name == "-i" || o.name == "--include") && o.val == "inplace" {
			edit = true
		}
	}
	if _, ok := hasOpt(opts, "-f", "--file", "-E", "--exec"); !ok && len(ops) > 0 {
		s.judgeCode(ops[0].text)
		ops = ops[1:]
	}
	if edit {
		s.paths(c, ops, inside)
	}
}

func (s *shell) yq(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "ospIe", []string{"output-format", "input-format", "indent", "expression"}, false)
	if _, ok := hasOpt(opts, "-i", "--inplace"); ok {
		s.paths(c, ops, inside)
	}
}

// chmod: a mode that takes none of the owner's access away (700 on the home, go-rwx, +x)
// changes nothing for ralph-loop above the state directory; any other, or any mode inside
// it (or on a binary the hooks run), is judged as a destroyer. A mode may look like an
// option (-x, -w): only -c, -f, -v and -R (and long options) are chmod's own.
func (s *shell) chmod(c *cmdline, args []field) {
	var mode *field
	var files []field
	ref := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			for _, f := range args[i+1:] {
				if mode == nil && !ref {
					mode = &f
					continue
				}
				files = append(files, f)
			}
			i = len(args)
		case t == "--reference":
			ref = true
			i++
		case strings.HasPrefix(t, "--reference="):
			ref = true
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && t[0] == '-' && strings.Trim(t[1:], "cfvR") == "":
		case mode == nil && !ref:
			mode = &args[i]
		default:
			files = append(files, args[i])
		}
	}
	if ref || mode == nil {
		s.paths(c, files, inside|above)
		return
	}
	if !mode.exact() || !keepsOwner(mode.text) {
		s.paths(c, files, inside|above)
		return
	}
	s.paths(c, files, inside)
}

// keepsOwner reports whether a chmod mode leaves the owner read, write and search access:
// an octal mode whose owner digit is 7, or symbolic clauses that only add, or that touch
// only the group and others.
func keepsOwner(mode string) bool {
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil {
		return n>>6&7 == 7
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+-=")
		if i < 0 {
			return false
		}
		who, op := clause[:i], clause[i]
		if op == '+' {
			continue
		}
		if who == "" || strings.ContainsAny(who, "ua") || strings.Trim(who, "go") != "" {
			return false
		}
	}
	return true
}

// setArgs: set -- ARGS (or set ARGS) gives the shell new positional parameters.
func (s *shell) setArgs(c *cmdline, args []field) {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" || t == "-" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			break
		}
		if t == "-o" || t == "+o" {
			i++
		}
	}
	if i > len(args) || i == len(args) && (len(args) == 0 || args[len(args)-1].text != "--") {
		return
	}
	rest := args[i:]
	for j := 1; j <= 9; j++ {
		if j <= len(rest) {
			s.vars[strconv.Itoa(j)] = []field{rest[j-1]}
		} else {
			s.vars[strconv.Itoa(j)] = []field{{}}
		}
	}
	s.vars["@"], s.vars["*"] = capFields(append([]field(nil), rest...)), capFields(append([]field(nil), rest...))
}

// source FILE: a file is read as a script the guard does not see; <(…) is what the command
// in it prints.
func (s *shell) source(c *cmdline, args []field) {
	if len(args) > 0 && args[0].proc != nil {
		s.run(*args[0].proc, s.depth+1)
	}
}

// makeCmd: make -f - (or /dev/stdin) reads its makefile on stdin; its recipes are commands.
func (s *shell) makeCmd(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "fCIjlo", []string{"file", "makefile", "directory", "include-dir", "jobs", "load-average", "old-file", "eval"}, false)
	for _, o := range opts {
		switch o.name {
		case "-f", "--file", "--makefile":
			if o.val == "-" || o.val == "/dev/stdin" {
				if c.stdin == nil {
					s.deny(inject.GuardUnsure(s.g.words))
					return
				}
				s.recipes(*c.stdin)
			}
		case "--eval":
			s.recipes(o.val)
		case "-C", "--directory":
			s.paths(c, []field{{text: o.val}}, inside)
		}
	}
	for _, op := range ops {
		if name, val, ok := strings.Cut(op.text, "="); ok && (name == "SHELL" || name == "MAKESHELL") {
			s.nested(field{text: val})
		}
	}
}

// recipes judges a makefile's recipe lines (a tab first) and its $(shell …) calls.
func (s *shell) recipes(mk string) {
	for _, line := range strings.Split(mk, "\n") {
		if strings.HasPrefix(line, "\t") {
			s.nested(field{text: strings.TrimLeft(strings.TrimSpace(line), "@-+")})
		} else if i := strings.Index(line, "$(shell "); i >= 0 {
			s.nested(field{text: strings.TrimSuffix(line[i+len("$(shell "):], ")")})
		}
		if s.reason != "" {
			return
		}
	}
}

// gdb: -ex "shell CMD" (or "!CMD") runs CMD.
func (s *shell) gdb(c *cmdline, args []field) {
	for i, a := range args {
		t := a.text
		v, ok := "", false
		switch {
		case (t == "-ex" || t == "--ex" || t == "-eval-command" || t == "--eval-command" || t == "-iex") && i+1 < len(args):
			v, ok = args[i+1].text, true
		case strings.HasPrefix(t, "--eval-command=") || strings.HasPrefix(t, "-eval-command="):
			_, v, ok = strings.Cut(t, "=")
		}
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if r, found := strings.CutPrefix(v, "shell "); found {
			s.nested(field{text: r})
		} else if r, found := strings.CutPrefix(v, "!"); found {
			s.nested(field{text: r})
		} else if strings.HasPrefix(v, "pipe ") || strings.HasPrefix(v, "python") {
			if s.g.mentions(v) {
				s.deny(inject.GuardUnsure(s.g.words))
			}
		}
	}
}

// atCmd: at and batch run what they read on stdin, later.
func (s *shell) atCmd(c *cmdline, args []field) {
	if c.stdin != nil {
		s.run(*c.stdin, s.depth+1)
	}
	opts, _, _ := scan(args, "fqtmMlrdbuvc", nil, false)
	if v, ok := hasOpt(opts, "-f"); ok && s.g.mentions(v) {
		s.deny(inject.GuardUnsure(s.g.words))
	}
}

// tmux runs the command strings it is given (new-session 'CMD', send-keys 'CMD' Enter,
// run-shell, respawn-pane…).
func (s *shell) tmux(c *cmdline, args []field) {
	for _, a := range args {
		if strings.ContainsAny(a.text, " \t") || s.g.mentions(a.text) {
			s.nested(a)
		}
	}
	s.launches(c, args)
}

// applyPatch judges each file a patch adds, updates, deletes or moves to, from where the
// command runs.
func (s *shell) applyPatch(c *cmdline, args []field) {
	var patch string
	switch {
	case len(args) > 0:
		patch = joinFields(args).text
	case c.stdin != nil:
		patch = *c.stdin
	default:
		return // the patch is read at run time from a file or a pipe the guard cannot see
	}
	for _, f := range PatchFiles(patch) {
		if s.rel(field{text: f})&inside != 0 {
			s.denyState()
			return
		}
	}
}

// sedWrites finds sed's w, W and e commands (writing a file, running a command) in a
// script.
var sedWrites = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[;}\s/0-9$])[wWe]\b`) })

// writesCode are the words of code that changes files or runs commands, in the languages
// of the usual one-liners. The regular expressions are compiled when first needed, not in
// every hook process. A string's replace (s.replace(a, b)) is not one: see writes.
var writesCode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`rmtree|remove|unlink|rmdir|rename|truncate|chmod|chown|symlink|rm_r|rm_f|rmSync|` +
		`rmdirSync|writeFile|appendFile|createWriteStream|mkfifo|system|popen|Popen|subprocess|exec|spawn|move|copy|` +
		`write|print\s*>|printf\s*>|>|open\s*\([^)]*,\s*['"]?[wax+]|File\.open|FileUtils|shutil|` + "`")
})

// runsCode are the words of code that runs a command.
var runsCode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`system|popen|Popen|subprocess|exec|spawn|getline|\|\s*["']|` + "`")
})

// replaceCall finds a call of a method named replace.
var replaceCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\breplace\s*\(`) })

// writes reports whether code changes files or runs commands: a word of writesCode, or a
// replace that is not a string's (a path's replace takes one argument, a string's two).
func writes(code string) bool {
	if writesCode().MatchString(code) {
		return true
	}
	for _, loc := range replaceCall().FindAllStringIndex(code, 64) {
		if callArgs(code[loc[1]:]) < 2 {
			return true
		}
	}
	return false
}

// callArgs counts the arguments of a call whose text (after its opening parenthesis) is
// rest, skipping quoted strings and nested brackets.
func callArgs(rest string) int {
	depth, n, any := 0, 1, false
	var quote byte
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote, any = c, true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if !any {
					return 0
				}
				return n
			}
			depth--
		case c == ',' && depth == 0:
			n++
		case c != ' ' && c != '\t':
			any = true
		}
	}
	return n
}

// judgeCode denies a one-liner that names the state directory (or a directory above it)
// and writes or runs something, or runs a command (a string of the code) the guard denies.
func (s *shell) judgeCode(code string) {
	if s.g.server && s.g.serverCode(code) {
		s.deny(inject.GuardServer(s.g.cli, s.g.words))
		return
	}
	if s.codeMentionsState(code) && writes(code) {
		s.denyState()
		return
	}
	if !s.g.mentions(code) || !runsCode().MatchString(code) {
		return // ralph-loop named in a string that nothing runs (a pattern, a message)
	}
	// The commands it may run are among its strings: each alone, and each list of them
	// (subprocess.run(['ralph-loop', 'cancel'])). A string naming ralph-loop must name a
	// subcommand that only reads.
	for _, lit := range codeCommands(code) {
		if strings.Contains(lit, "ralph-loop") && !readOnlyRalph(lit) {
			s.deny(inject.GuardUnsure(s.g.words))
			return
		}
		s.nested(field{text: lit})
		if s.reason != "" {
			return
		}
	}
}

// withoutReads is code less its lists of strings that are a command that only reads
// ralph-loop (subprocess.run(['ralph-loop', 'status'])): they are not a mention of its state.
func withoutReads(code string) string {
	return codeList().ReplaceAllStringFunc(code, func(l string) string {
		var words []string
		for _, m := range quotedInCode().FindAllStringSubmatch(l, 256) {
			words = append(words, m[1]+m[2])
		}
		if readOnlyRalph(strings.Join(words, " ")) {
			return "[]"
		}
		return l
	})
}

// codeCommands are the strings of code, and its lists of strings joined by spaces, less
// the lists that only read ralph-loop.
func codeCommands(code string) []string {
	code = withoutReads(code)
	var out []string
	for _, m := range quotedInCode().FindAllStringSubmatch(code, 256) {
		out = append(out, m[1]+m[2])
	}
	for _, l := range codeList().FindAllString(code, 64) {
		var words []string
		for _, m := range quotedInCode().FindAllStringSubmatch(l, 256) {
			words = append(words, m[1]+m[2])
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}

// codeList matches a list or tuple of strings: ['a', "b"].
var codeList = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[\[(]\s*(?:'[^']*'|"[^"]*")(?:\s*,\s*(?:'[^']*'|"[^"]*"))*\s*,?\s*[\])]`)
})

// readOnlyRalph reports whether a command line that names ralph-loop runs one of its
// subcommands that only read (status, log, version, help), and nothing after it.
func readOnlyRalph(line string) bool {
	f := strings.Fields(line)
	for i, w := range f {
		if filepath.Base(w) != "ralph-loop" {
			continue
		}
		for _, a := range f[i+1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			return !ralphSubs[a] && (a == "status" || a == "log" || a == "version" || a == "help")
		}
		return false
	}
	return false
}

var quotedInCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'([^']*)'|"([^"]*)"`) })

// codeMentions reports whether code names the state directory, or a quoted string in it is
// a path there or above it.
func (s *shell) codeMentions(code string) bool {
	return s.g.mentions(code) || s.codeMentionsState(code)
}

// codeMentionsState reports whether code names the state directory (as a path, or its
// parts: ralph-loop as a string or a path component), or a quoted string in it is a path
// there or above it; ralph-loop named in a command string or a pattern is not.
func (s *shell) codeMentionsState(code string) bool {
	code = withoutReads(code)
	if s.g.mentionsState(code) {
		return true
	}
	for _, m := range quotedInCode().FindAllStringSubmatch(code, 64) {
		p := m[1] + m[2]
		if strings.HasPrefix(p, "~") {
			p = s.tilde(p)
		}
		if filepath.IsAbs(p) && s.rel(field{text: p, glob: strings.ContainsAny(p, "*?[")}) != 0 {
			return true
		}
	}
	return false
}

// isRalph reports whether a program under another name is ralph-loop: a link to it (made
// in an earlier call, or on PATH), or a program called with the arguments only ralph-loop
// takes ("cancel --all", "cancel --session ID", "hook --host H"), as a renamed copy would be.
func (s *shell) isRalph(prog string, args []field) bool {
	if len(args) == 0 || !ralphSubs[args[0].text] {
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

// ssh to this machine runs its command here, in the user's home.
func (s *shell) ssh(c *cmdline, args []field) {
	_, _, rest := scan(args, "BbcDEeFIiJLlmOoPpQRSWw", nil, true)
	if len(rest) < 2 {
		return
	}
	host := rest[0].text
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if host != "localhost" && host != "::1" && !strings.HasPrefix(host, "127.") && host != "0.0.0.0" {
		return
	}
	before := s.cwds
	if s.g.home != "" {
		s.cwds = []string{s.g.home}
	}
	s.nested(joinFields(rest[1:]))
	s.cwds = before
}
