package guard

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

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
				// What {} names: any path under the root, unless the name tests on every
				// way to this action spare ralph-loop's names (then a path that is none
				// of its files, nor above one).
				match, glob := unknownMark, true
				if s.rel(r)&inside == 0 && s.findSpares(r, expr, j) {
					match, glob = sparedMark, r.glob
				}
				var cmd []field
				for _, a := range expr[j+1 : k] {
					if strings.Contains(a.text, "{}") {
						a.text = strings.ReplaceAll(a.text, "{}", strings.TrimRight(r.text, "/")+"/"+match)
						a.glob = a.glob || glob && r.glob
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
		return !s.findSpares(root, expr, -1)
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

// sparedMark stands for what find's {} names when its name tests spare every file of
// ralph-loop's: a name none of them has.
const sparedMark = "\x01find-match"

// findSpares reports whether a find expression's action can reach no file of ralph-loop's
// under root, a directory above them: on every way to the action, a -name or -iname test
// that no name of ralph-loop's matches (find ~ -name '.DS_Store' -delete, \( -name '*.pyc'
// -o -name __pycache__ \) -delete, -name __pycache__ -exec rm -rf {} +). The action is the
// expression's -delete (action < 0), or its -exec (and the like) at that index. A
// directory matched holds none of ralph-loop's files either: the names of the directories
// down to them are among ralph-loop's. Past a bound on how many names there are, or on an
// expression it cannot read, it cannot tell: false.
func (s *shell) findSpares(root field, expr []field, action int) bool {
	names, ok := s.keptNames(root)
	if !ok {
		return false
	}
	for _, n := range names {
		p := &findParser{expr: expr, name: n, action: action}
		_, may := p.list()
		if p.bad || p.i < len(expr) || may {
			return false
		}
	}
	return true
}

// madeNames are names of files and directories ralph-loop makes in its state directory
// (some only now and then).
var madeNames = []string{"ralph-loop", "sessions", "active", "history", "checks", "trash", "install", "backups", "loops",
	"loop.json", "loop.lock", "events.jsonl", "tools.jsonl", "said.jsonl", "record.json", "key", "cancel-typed",
	"fallback-stop.0", "task-0.md", "0-iteration-1-check-1.log", "loop.json.refused-0", ".loop.json.0.tmp", ".key.0.tmp",
	"settings.json.0.bak", "0.json", "state", "share", ".local"}

// keepNames are the names ralph-loop makes in a kept directory other than the state
// directory (the keep: its key, and a copy and a witness of each loop, in a directory per
// state directory).
var keepNames = []string{"ralph-loop", "loops", "key", ".key.0.tmp", "0.json", "0.active", ".0.json.0.tmp", "0"}

// keptNames are the names find from root may meet on its way to a file of ralph-loop's:
// of the kept paths under root (and the protected files not made yet), of the directories
// from root down to them, of everything in them, and the names ralph-loop makes in them
// (madeNames in the state directory, keepNames in another kept directory, none in a kept
// file: a binary). A root that is not one known path counts as the home directory, above
// every kept path. ok is false past 4096 names.
func (s *shell) keptNames(root field) (names []string, ok bool) {
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var tops []string
	if root.exact() {
		for _, p := range s.abs(root.text) {
			tops = append(tops, filepath.Clean(p), s.g.resolve(p))
		}
	}
	// top is the root that holds path k ("" when none does).
	top := func(k string) (string, bool) {
		if tops == nil {
			return s.g.home, true
		}
		for _, t := range tops {
			if within(k, t) {
				return t, true
			}
		}
		return "", false
	}
	// down adds the names of k and of the directories above it, up to top.
	down := func(k, top string) {
		for d := k; d != "/" && d != "." && (top == "" || within(d, top)); d = filepath.Dir(d) {
			add(filepath.Base(d))
		}
	}
	if tops == nil && s.g.sessionID != "" {
		add(s.g.sessionID)
	}
	count := 0
	for _, k := range s.g.kept {
		t, ok := top(k)
		if !ok {
			continue
		}
		down(k, t)
		s.addMade(k, tops == nil, add)
		if !walkNames(k, &count, add) {
			return nil, false
		}
	}
	for _, a := range s.g.absent {
		if t, ok := top(a); ok {
			down(a, t)
		}
	}
	return names, true
}

// addMade adds the names ralph-loop makes in the kept path k: madeNames in the state
// directory (or any, from the home directory), keepNames in another kept directory.
func (s *shell) addMade(k string, home bool, add func(string)) {
	fi, err := os.Lstat(k)
	switch {
	case home || s.g.isState(k):
		for _, n := range madeNames {
			add(n)
		}
		if s.g.sessionID != "" {
			add(s.g.sessionID)
		}
	case err == nil && fi.IsDir():
		for _, n := range keepNames {
			add(n)
		}
		if s.g.sessionID != "" {
			add(s.g.sessionID + ".json")
			add(s.g.sessionID + ".active")
		}
	}
}

// walkNames adds the names of everything in k (and k's own), counting them: false past 4096
// (count is the count so far) or when k cannot be walked.
func walkNames(k string, count *int, add func(string)) bool {
	err := filepath.WalkDir(k, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if *count++; *count > 4096 {
			return fs.SkipAll
		}
		add(e.Name())
		return nil
	})
	return err == nil && *count <= 4096
}

// findParser evaluates a find expression for one name: which results it may have, and
// whether -delete may run on the way (other tests may go either way).
type findParser struct {
	expr []field
	i    int
	name string
	bad  bool
	// action is the index in expr of the -exec (or the like) whose running is asked
	// about; < 0: -delete's.
	action int
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
// either outcome (or, options, as true). Like findOptions, made when first used.
var findArgs = lazy.Value[map[string]int]{Make: func() map[string]int {
	return map[string]int{
		"-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1, "-type": 1, "-xtype": 1,
		"-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1,
		"-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-perm": 1, "-size": 1, "-links": 1, "-inum": 1, "-samefile": 1,
		"-lname": 1, "-ilname": 1, "-fstype": 1, "-used": 1, "-context": 1,
		"-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0, "-nogroup": 0,
	}
}}

// findOptions are find's options and actions that are always true, and their arguments.
var findOptions = lazy.Value[map[string]int]{Make: func() map[string]int {
	return map[string]int{
		"-maxdepth": 1, "-mindepth": 1, "-regextype": 1, "-depth": 0, "-d": 0, "-xdev": 0, "-mount": 0, "-follow": 0,
		"-noleaf": 0, "-daystart": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-prune": 0, "-print": 0,
		"-print0": 0, "-ls": 0, "-true": 0, "-quit": 0, "-printf": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2,
	}
}}

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
		return either, p.action < 0
	case t == "-false":
		return maybeFalse, false
	case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
		at := p.i - 1
		for p.i < len(p.expr) && p.peek() != ";" && p.peek() != "+" {
			p.i++
		}
		p.i++
		return either, at == p.action
	}
	if n, ok := findArgs.Get()[t]; ok {
		p.i += n
		return either, false
	}
	if n, ok := findOptions.Get()[t]; ok {
		p.i += n
		return maybeTrue, false
	}
	p.bad = true
	return either, true
}
