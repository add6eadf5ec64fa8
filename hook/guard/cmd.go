package guard

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// This file judges one simple command, by what its program does with its arguments: the
// index of programs and the scanning of their options. The rules of each family of
// programs are in a file of their own: wrap.go (wrappers, the shell's builtins), copy.go
// (copies, archives, sync), find.go (find, xargs), git.go, code.go (interpreters and
// one-liners), ralph.go (ralph-loop and the host's CLI), server.go (the host's server).

// cmdline is a simple command after expansion.
type cmdline struct {
	args  []field // the program and its arguments
	env   map[string]*field
	stdin *string // what it reads on stdin, when known
	// more: more arguments are added at run time (xargs with input the guard cannot see).
	more bool
}

// readers only read the files they name (their output may still be redirected).
var readers = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("cat tac head tail less more most ls ll dir vdir wc grep egrep fgrep rg ag ack jq stat file diff cmp " +
		"md5sum sha1sum sha256sum sha512sum b2sum cksum sum du df tree realpath readlink basename dirname echo printf test [ [[ " +
		"od hexdump xxd strings nl cut tr column fold fmt pr paste join comm bat batcat view rview nview zcat zless zmore xzcat " +
		"bzcat lzcat zstdcat base64 base32 true false pwd whoami id date sleep type which whence hash help man info " +
		"printenv locale uname hostname ps pgrep pidof lsof top htop free uptime file cal expr seq yes tput stty tty " +
		"look getent groups logname nproc arch env-show exit return break continue shift wait jobs fg bg disown " +
		"let local declare typeset readonly export set shopt umask ulimit alias unalias complete compgen source . history " +
		"go-doc tsort numfmt sha224sum sha384sum xmllint csvlook gron fzf namei lsattr getfacl")
}}

// destroyers delete or change what they name: denied on the state directory and on every
// directory above it.
var destroyers = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("rm rmdir unlink shred srm wipe truncate chmod chown chgrp chattr setfacl trash trash-put " +
		"trash-rm gio mount kioclient5 gvfs-rm gvfs-trash")
}}

// writers write what they name: denied inside the state directory.
var writers = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("touch mkdir mkfifo mknod tee sponge fallocate patch split csplit")
}}

// editors may write the files they open (vim -R and view only read).
var editors = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("vi vim nvim nano emacs emacsclient code codium subl ed ex micro hx helix kak joe pico gedit kate " +
		"mcedit ne jed mg gvim mvim")
}}

// shells run a command string with -c, or what they read on stdin.
var shells = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("sh bash zsh dash ksh mksh ash fish yash posh tcsh csh rbash")
}}

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
		if len(args) > 0 && slices.Contains(ralphSubs, args[0].text) && (strings.Contains(strings.ToLower(prog.src), "ralph") || strings.Contains(s.src, "ralph-loop")) {
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
		case netClients.Get()[name]:
			s.netClient(name, c, args)
		case socketClients.Get()[name]:
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
	case shells.Get()[name]:
		s.shellProg(c, args)
	case strings.HasPrefix(name, "python"):
		s.python(c, args)
	case readers.Get()[name]:
	case destroyers.Get()[name]:
		s.paths(c, args, inside|above)
	case editors.Get()[name]:
		for _, a := range args {
			if a.text == "-R" || a.text == "-M" {
				return
			}
		}
		s.paths(c, args, inside)
	case writers.Get()[name]:
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
	return name == "ralph-loop" || program(name) != nil || shells.Get()[name] || readers.Get()[name] || destroyers.Get()[name] ||
		editors.Get()[name] || writers.Get()[name] || strings.HasPrefix(name, "python")
}

// launches judges an unknown program's arguments as a command it runs, from the first one
// that names ralph-loop, a program that deletes, or a shell; it reports whether there was one.
func (s *shell) launches(c *cmdline, args []field) bool {
	for i, a := range args {
		if !a.exact() || strings.HasPrefix(a.text, "-") {
			continue
		}
		n := strings.TrimSuffix(filepath.Base(a.text), ".exe")
		if n == "ralph-loop" || s.ralphNames[n] || destroyers.Get()[n] || shells.Get()[n] || s.g.cli != "" && n == s.g.cli {
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
