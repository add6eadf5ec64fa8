package guard

import (
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
)

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
