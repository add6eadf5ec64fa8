package guard

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// This file reads a shell command the way bash would, far enough to judge it: words are
// expanded to fields (quotes removed, ~ and known variables spelled out, globs kept as
// patterns, what cannot be known marked), and each simple command is handed to exec.

// unknownMark stands for a part of a word the guard cannot know ($RANDOM, $(date)).
const unknownMark = "\x00"

// maxFields bounds the fields one word expands to (brace expansions, loops).
const maxFields = 64

// The guard's budget for one tool call: it answers within a bounded time and memory on any
// input, and past its budget denies the call as too complex to check (a command line that
// doubles a variable thirty times would otherwise take gigabytes).
const (
	// maxCommand is the longest command the guard reads.
	maxCommand = 1 << 20
	// maxExpand bounds the bytes of words the guard expands for one tool call.
	maxExpand = 4 << 20
	// maxSteps bounds the words expanded, commands judged, paths compared and file system
	// lookups made for one tool call.
	maxSteps = 20000
)

// field is one word after expansion.
type field struct {
	// text is the value; unknown parts are unknownMark. Glob characters are kept.
	text string
	// glob: the word has unquoted glob characters.
	glob bool
	// lead: the word starts with an unknown part (it may be any path at all).
	lead bool
	// fresh: the word is a new temporary directory ($(mktemp -d)).
	fresh bool
	// input: the word is made at run time from what a command read or printed ($(find …),
	// a variable set by read): it may be any path the line named.
	input bool
	// src is the word as written, for messages and for telling $PPID from a number.
	src string
	// proc, for <(…), is what its command prints, when the guard can tell.
	proc *string
}

// exact reports whether the field's value is fully known.
func (f field) exact() bool {
	return !f.glob && !f.fresh && !strings.Contains(f.text, unknownMark)
}

// shell is the guard's reading of one command line.
type shell struct {
	g    *guard
	cwds []string // the directories the command may be in (every cd seen is added)
	vars map[string][]field
	// exported are variables the children see; env holds their values where set here
	// (nil: unset).
	exported map[string]bool
	env      map[string]*field
	src      string
	depth    int
	runs     int // command strings read so far
	reason   string
	// sawState: some word of the command named the state directory or a directory above it.
	sawState bool
	// ralphNames are names a copy or link of ralph-loop was given earlier in the line;
	// aliases the names given to copies or links of other programs (a renamed rm).
	ralphNames map[string]bool
	aliases    map[string]string
	// oldCwds are the directories the command was in before its last cd ($OLDPWD, cd -).
	oldCwds []string
	// spent and steps are what the check has used of its budget; over is set past it.
	spent, steps int
	over         bool
}

// step counts one unit of work; past the budget the call is denied as too complex.
func (s *shell) step() bool {
	s.steps++
	if s.steps+s.g.lookups > maxSteps {
		s.tooComplex()
	}
	return !s.over
}

// spend counts n bytes of expansion; past the budget the call is denied as too complex.
func (s *shell) spend(n int) bool {
	s.spent += n
	if s.spent > maxExpand || n > maxExpand {
		s.tooComplex()
	}
	return !s.over
}

func (s *shell) tooComplex() {
	s.over = true
	s.reason = inject.GuardTooComplex(s.g.words) // over any other reason: nothing after it was read
}

// fits reports whether appending each of alts to each field of acc stays in the budget,
// and counts it.
func (s *shell) fits(acc, alts []field) bool {
	n := 0
	for _, a := range acc {
		n += len(a.text) * max(len(alts), 1)
	}
	for _, b := range alts {
		n += len(b.text) * len(acc)
	}
	return s.spend(n)
}

func (s *shell) deny(reason string) {
	if s.reason == "" {
		s.reason = reason
	}
}

func (s *shell) denyState() { s.deny(s.g.denial("")) }

// run judges a command line; depth counts the command strings it is nested in.
func (s *shell) run(text string, depth int) {
	if s.reason != "" {
		return
	}
	s.runs++
	if len(text) > maxCommand {
		s.tooComplex()
		return
	}
	if depth > maxDepth || s.runs > maxRuns {
		if s.g.mentions(text) {
			s.deny(inject.GuardUnsure(s.g.words))
		}
		return
	}
	// bash reads any bytes; the parser wants UTF-8. A byte that is not UTF-8 names no
	// path of the guard's, so it may become U+FFFD.
	text = strings.ToValidUTF8(text, "\uFFFD")
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		if s.g.mentions(text) {
			s.deny(inject.GuardUnsure(s.g.words))
		}
		return
	}
	oldSrc, oldDepth := s.src, s.depth
	s.src, s.depth = text, depth
	s.stmts(f.Stmts, nil)
	s.src, s.depth = oldSrc, oldDepth
}

// stmts judges a list of statements. A cd in one holds for what runs after it only if it
// succeeded: after each statement the command may be in the directory from before it, or
// after it.
func (s *shell) stmts(sts []*syntax.Stmt, stdin *string) {
	for _, st := range sts {
		if s.reason != "" || !s.step() {
			return
		}
		before := s.cwds
		s.stmt(st, stdin)
		s.mergeCwds(before)
	}
}

// mergeCwds adds the directories in before to the possible working directories.
func (s *shell) mergeCwds(before []string) {
	cwds := append([]string(nil), before...)
	for _, c := range s.cwds {
		if len(cwds) >= maxCwds {
			break
		}
		if !slices.Contains(cwds, c) {
			cwds = append(cwds, c)
		}
	}
	s.cwds = cwds
}

// writeOps are the redirections that write their target.
var writeOps = []syntax.RedirOperator{syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob,
	syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob}

func (s *shell) stmt(st *syntax.Stmt, stdin *string) {
	if st == nil {
		return
	}
	for _, r := range st.Redirs {
		switch {
		case slices.Contains(writeOps, r.Op) || r.Op == syntax.DplOut:
			for _, f := range s.word(r.Word) {
				if r.Op == syntax.DplOut {
					if _, err := strconv.Atoi(f.text); err == nil || f.text == "-" {
						continue
					}
				}
				if s.rel(f)&inside != 0 {
					s.denyState()
				}
			}
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc:
			if r.Hdoc != nil {
				t := s.text(r.Hdoc)
				stdin = &t
			}
		case r.Op == syntax.WordHdoc:
			t := s.text(r.Word)
			stdin = &t
		default:
			s.word(r.Word)
			if r.Op == syntax.RdrIn {
				stdin = nil
			}
		}
	}
	s.command(st.Cmd, stdin)
}

func (s *shell) command(cmd syntax.Command, stdin *string) {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		s.call(x, stdin)
	case *syntax.BinaryCmd:
		// X && Y: Y runs only if X succeeded, in the directory X went to. X || Y, X | Y:
		// Y may run from where X began.
		before := s.cwds
		s.stmt(x.X, stdin)
		if x.Op != syntax.AndStmt {
			s.mergeCwds(before)
		}
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			stdin = s.output(x.X)
		}
		s.stmt(x.Y, stdin)
	case *syntax.Subshell:
		before := s.cwds
		s.stmts(x.Stmts, stdin)
		s.cwds = before
	case *syntax.Block:
		s.stmts(x.Stmts, stdin)
	case *syntax.IfClause:
		for c := x; c != nil; c = c.Else {
			s.stmts(c.Cond, stdin)
			s.stmts(c.Then, stdin)
		}
	case *syntax.WhileClause:
		s.stmts(x.Cond, stdin)
		s.stmts(x.Do, stdin)
	case *syntax.ForClause:
		s.forClause(x, stdin)
	case *syntax.CaseClause:
		s.word(x.Word)
		for _, it := range x.Items {
			s.stmts(it.Stmts, stdin)
		}
	case *syntax.FuncDecl:
		s.stmt(x.Body, stdin)
	case *syntax.DeclClause:
		s.declClause(x)
	case *syntax.TimeClause:
		s.stmt(x.Stmt, stdin)
	case *syntax.CoprocClause:
		s.stmt(x.Stmt, stdin)
	case nil:
	default:
		s.walkSubst(x)
	}
}

// forClause reads a for loop: its variable holds the words it iterates over (any of them).
func (s *shell) forClause(x *syntax.ForClause, stdin *string) {
	if it, ok := x.Loop.(*syntax.WordIter); ok {
		var vals []field
		for _, w := range it.Items {
			vals = append(vals, s.word(w)...)
		}
		if len(it.Items) == 0 {
			vals = []field{{text: unknownMark, lead: true}}
		}
		s.vars[it.Name.Value] = capFields(vals)
	} else {
		s.walkSubst(x.Loop)
	}
	s.stmts(x.Do, stdin)
}

// declClause reads export, declare, local, readonly, typeset: the variables it assigns, and
// those it exports (export, or -x) into the environment of the commands that follow.
func (s *shell) declClause(x *syntax.DeclClause) {
	export := x.Variant.Value == "export"
	for _, a := range x.Args {
		if a.Naked && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-") {
			export = export || strings.Contains(a.Value.Lit(), "x")
			continue
		}
		if a.Name == nil {
			continue
		}
		if export {
			s.exported[a.Name.Value] = true
		}
		if !a.Naked {
			s.assign(a)
		} else if export {
			if v, ok := s.vars[a.Name.Value]; ok && len(v) > 0 {
				f := v[0]
				s.env[a.Name.Value] = &f
			}
		}
	}
}

// walkSubst judges the commands substituted anywhere in node ($(…), <(…)).
func (s *shell) walkSubst(node syntax.Node) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			s.stmts(x.Stmts, nil)
			return false
		case *syntax.ProcSubst:
			s.stmts(x.Stmts, nil)
			return false
		}
		return true
	})
}

// assign sets a variable for the rest of the command.
func (s *shell) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if name == "GLOBIGNORE" {
		s.g.dotglob = true // setting it makes globs match dot names
	}
	var vals []field
	if a.Value != nil {
		vals = s.word(a.Value)
	} else if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				vals = append(vals, s.word(e.Value)...)
			}
		}
	}
	if len(vals) == 0 {
		vals = []field{{}}
	}
	if a.Append || a.Index != nil {
		vals = []field{{text: unknownMark, lead: true}}
	}
	s.vars[name] = vals
	if s.exported[name] || name == "HOME" || name == "XDG_STATE_HOME" && s.g.stateHome != "" {
		f := vals[0]
		s.env[name] = &f
	}
}

// call judges a simple command.
func (s *shell) call(x *syntax.CallExpr, stdin *string) {
	if len(x.Args) == 0 {
		for _, a := range x.Assigns {
			s.assign(a)
		}
		return
	}
	env := s.childEnv()
	for _, a := range x.Assigns {
		if a.Name == nil {
			continue
		}
		var f field
		if a.Value != nil {
			if fs := s.word(a.Value); len(fs) > 0 {
				f = fs[0]
			}
		}
		env[a.Name.Value] = &f
	}
	var args []field
	for _, w := range x.Args {
		args = append(args, s.word(w)...)
	}
	s.exec(&cmdline{args: args, env: env, stdin: stdin})
}

func (s *shell) childEnv() map[string]*field {
	env := make(map[string]*field, len(s.env))
	for k, v := range s.env {
		env[k] = v
	}
	return env
}

// output is what a command writes to a pipe, when the guard can tell (echo, printf, a
// here-document through cat).
func (s *shell) output(st *syntax.Stmt) *string {
	if st == nil {
		return nil
	}
	x, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(x.Args) == 0 {
		return nil
	}
	var words []string
	for _, w := range x.Args {
		for _, f := range s.word(w) {
			words = append(words, f.text)
		}
	}
	switch filepath.Base(words[0]) {
	case "echo", "printf":
		args := words[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		t := strings.Join(args, " ")
		return &t
	case "cat":
		if len(words) == 1 {
			for _, r := range st.Redirs {
				if r.Hdoc != nil {
					t := s.text(r.Hdoc)
					return &t
				}
				if r.Op == syntax.WordHdoc {
					t := s.text(r.Word)
					return &t
				}
			}
		}
	}
	return nil
}

// text is a word's value as one string (here-documents, command strings).
func (s *shell) text(w *syntax.Word) string {
	var b strings.Builder
	for i, f := range s.word(w) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.text)
	}
	return b.String()
}

// word expands a word to its fields.
func (s *shell) word(w *syntax.Word) []field {
	if w == nil {
		return nil
	}
	if s.over || !s.step() {
		return []field{{text: unknownMark, lead: true}}
	}
	src := ""
	if p, e := int(w.Pos().Offset()), int(w.End().Offset()); p >= 0 && e <= len(s.src) && p <= e {
		src = s.src[p:e]
	}
	syntax.SplitBraces(w)
	out := s.parts(w.Parts, false, []field{{}})
	for i := range out {
		out[i].src = src
		if strings.HasPrefix(out[i].text, unknownMark) {
			out[i].lead = true
		}
	}
	return out
}

// parts appends the expansion of parts to each of the fields in acc.
func (s *shell) parts(parts []syntax.WordPart, quoted bool, acc []field) []field {
	for i, p := range parts {
		if s.over {
			return []field{{text: unknownMark, lead: true}}
		}
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if !quoted && i == 0 && strings.HasPrefix(v, "~") {
				v = s.tilde(v)
			}
			text, glob := unquoteLit(v, quoted)
			if s.fits(acc, []field{{text: text}}) {
				acc = appendText(acc, text, glob)
			}
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				v = ansiC(v)
			}
			if s.fits(acc, []field{{text: v}}) {
				acc = appendText(acc, v, false)
			}
		case *syntax.DblQuoted:
			acc = s.parts(x.Parts, true, acc)
		case *syntax.ParamExp:
			acc = s.param(x, acc)
		case *syntax.CmdSubst:
			if alt := []field{s.cmdSubst(x)}; s.fits(acc, alt) {
				acc = appendFields(acc, alt)
			}
		case *syntax.ProcSubst:
			s.stmts(x.Stmts, nil)
			acc = appendText(acc, unknownMark, false)
			if len(x.Stmts) == 1 && len(acc) == 1 {
				acc[0].proc = s.output(x.Stmts[0])
			}
		case *syntax.ArithmExp:
			s.walkSubst(x)
			acc = appendText(acc, unknownMark, false)
		case *syntax.ExtGlob:
			acc = appendText(acc, "*", true)
		case *syntax.BraceExp:
			if x.Sequence {
				acc = appendText(acc, "*", true)
				continue
			}
			var alts []field
			for _, e := range x.Elems {
				alts = append(alts, s.parts(e.Parts, quoted, []field{{}})...)
			}
			if s.fits(acc, alts) {
				acc = appendFields(acc, alts)
			}
		default:
			acc = appendText(acc, unknownMark, false)
		}
	}
	return acc
}

func appendText(acc []field, text string, glob bool) []field {
	for i := range acc {
		acc[i].text += text
		acc[i].glob = acc[i].glob || glob
	}
	return acc
}

// appendFields appends each of alts to each field of acc (a product, capped: past
// maxFields the rest becomes a glob).
func appendFields(acc, alts []field) []field {
	if len(alts) == 0 {
		return acc
	}
	if len(acc)*len(alts) > maxFields {
		return appendText(acc, "*", true)
	}
	out := make([]field, 0, len(acc)*len(alts))
	for _, a := range acc {
		for _, b := range alts {
			f := a
			switch {
			case b.fresh && f.text == "" && !f.fresh:
				f.fresh = true
			case b.fresh:
				f.text += unknownMark
			default:
				f.text += b.text
			}
			f.glob = f.glob || b.glob
			f.input = f.input || b.input
			out = append(out, f)
		}
	}
	return out
}

func capFields(fs []field) []field {
	if len(fs) > maxFields {
		return []field{{text: unknownMark, lead: true}}
	}
	return fs
}

// unquoteLit removes the backslashes of a literal as bash does, and says whether it has
// unquoted glob characters.
func unquoteLit(v string, quoted bool) (string, bool) {
	var b strings.Builder
	glob := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !quoted || strings.IndexByte("$`\"\\", n) >= 0:
				b.WriteByte(n)
				i++
				continue
			}
		}
		if !quoted && (c == '*' || c == '?' || c == '[' && strings.IndexByte(v[i+1:], ']') >= 0) {
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// ansiC decodes the common escapes of $'…'.
func ansiC(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 < len(v) {
				if n, err := strconv.ParseUint(v[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
			b.WriteString(unknownMark)
		case '0', '1', '2', '3':
			if i+2 < len(v) {
				if n, err := strconv.ParseUint(v[i:i+3], 8, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
			b.WriteString(unknownMark)
		case 'u', 'U', 'c', 'e', 'E':
			b.WriteString(unknownMark)
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// tilde expands a leading ~, ~/…, ~+, ~user.
func (s *shell) tilde(v string) string {
	name, rest, _ := strings.Cut(v[1:], "/")
	if strings.Contains(v, "/") {
		rest = "/" + rest
	}
	switch name {
	case "":
		if s.g.home == "" {
			return unknownMark + rest
		}
		return s.g.home + rest
	case "+":
		return s.cwds[0] + rest
	case "-":
		return unknownMark + rest
	}
	if strings.ContainsAny(name, `*?[\'"$`) {
		return v
	}
	if home := homeOf(name, "/etc/passwd"); home != "" {
		return home + rest
	}
	return v
}

// homeOf is the home directory of the user with that name in the passwd file ("" if none).
// It reads the file itself: os/user would link the binary against the C library, and every
// hook process would pay for the dynamic loader.
func homeOf(name, passwd string) string {
	data, err := state.ReadRegular(passwd, 16<<20)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 7 && f[0] == name {
			return f[5]
		}
	}
	return ""
}

// param expands $NAME and ${…}.
func (s *shell) param(x *syntax.ParamExp, acc []field) []field {
	if w, ok := x.Index.(*syntax.Word); ok && x.Param != nil && (w.Lit() == "@" || w.Lit() == "*") &&
		!x.Excl && !x.Length && x.Slice == nil && x.Repl == nil && x.Exp == nil {
		// ${a[@]}: every element of an array set earlier in the line.
		if vals, ok := s.vars[x.Param.Value]; ok {
			if !s.fits(acc, vals) {
				return acc
			}
			return appendFields(acc, vals)
		}
	}
	if x.Param == nil || x.Excl || x.Length || x.Width || x.Slice != nil || x.Repl != nil || x.Index != nil {
		return appendText(acc, unknownMark, false)
	}
	vals, ok := s.lookup(x.Param.Value)
	if x.Exp != nil {
		switch x.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if !ok || len(vals) == 1 && vals[0].text == "" {
				if x.Exp.Word == nil {
					return acc
				}
				return s.parts(x.Exp.Word.Parts, true, acc)
			}
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		default:
			return appendText(acc, unknownMark, false)
		}
	}
	if !ok {
		return appendText(acc, unknownMark, false)
	}
	if !s.fits(acc, vals) {
		return acc
	}
	return appendFields(acc, vals)
}

// lookup returns a variable's possible values; ok is false when the guard cannot know it.
func (s *shell) lookup(name string) ([]field, bool) {
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	switch name {
	case "HOME":
		if s.g.home != "" {
			return []field{{text: s.g.home}}, true
		}
	case "XDG_STATE_HOME":
		if s.g.stateHome != "" {
			return []field{{text: s.g.stateHome}}, true
		}
		if s.g.home != "" {
			// Unset, it is empty; read as the directory it stands for, to be safe.
			return []field{{text: filepath.Join(s.g.home, ".local", "state")}}, true
		}
	case "USER", "LOGNAME":
		if s.g.user != "" {
			return []field{{text: s.g.user}}, true
		}
	case "PWD":
		return []field{{text: s.cwds[len(s.cwds)-1]}}, true
	case "OLDPWD":
		if len(s.oldCwds) > 0 {
			var fs []field
			for _, d := range s.oldCwds {
				fs = append(fs, field{text: d})
			}
			return fs, true
		}
	}
	if name != "" && name == s.g.sessionEnv && s.g.sessionID != "" {
		return []field{{text: s.g.sessionID}}, true
	}
	return nil, false
}

// cmdSubst judges the commands of $(…) and returns its value where it is a known form:
// $(which X), $(command -v X), $(mktemp …), $(pwd), $(echo …).
func (s *shell) cmdSubst(x *syntax.CmdSubst) field {
	s.stmts(x.Stmts, nil)
	unknown := field{text: unknownMark, input: true}
	if len(x.Stmts) != 1 {
		return unknown
	}
	c, ok := x.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return unknown
	}
	var words []string
	for _, w := range c.Args {
		for _, f := range s.word(w) {
			words = append(words, f.text)
		}
	}
	switch filepath.Base(words[0]) {
	case "which", "whence", "where":
		if len(words) == 2 {
			return field{text: s.g.lookPath(words[1])}
		}
	case "command", "type":
		if len(words) == 3 && (words[1] == "-v" || words[1] == "-p" || words[1] == "-P" || words[1] == "-V") {
			return field{text: s.g.lookPath(words[2])}
		}
	case "whoami":
		if len(words) == 1 && s.g.user != "" {
			return field{text: s.g.user}
		}
	case "id":
		if len(words) == 2 && (words[1] == "-un" || words[1] == "-nu") && s.g.user != "" {
			return field{text: s.g.user}
		}
	case "mktemp":
		return field{fresh: true}
	case "pwd":
		return field{text: s.cwds[len(s.cwds)-1]}
	case "dirname":
		if len(words) == 2 {
			return field{text: filepath.Dir(words[1])}
		}
	case "echo", "printf", "realpath", "readlink":
		args := words[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		if len(args) == 1 {
			return field{text: args[0]}
		}
	}
	return unknown
}

// rel is how a field, as a path, stands to the state directory: relative paths are taken
// from every directory the command may be in. Fields the guard cannot know are neither.
func (s *shell) rel(f field) rel {
	if !s.step() {
		return 0
	}
	if f.input && s.sawState {
		return inside | above
	}
	if f.lead || f.fresh || f.text == "" {
		return 0
	}
	var r rel
	for _, p := range s.abs(f.text) {
		if f.glob || strings.Contains(p, unknownMark) {
			r |= s.g.patternRelation(filepath.Clean(p))
		} else {
			r |= s.g.relation(p)
		}
	}
	if r != 0 {
		s.sawState = true
	}
	return r
}

// abs returns p made absolute from each possible working directory.
func (s *shell) abs(p string) []string {
	if filepath.IsAbs(p) {
		return []string{p}
	}
	out := make([]string, 0, len(s.cwds))
	for _, c := range s.cwds {
		out = append(out, c+"/"+p)
	}
	return out
}

// cd adds the directory a cd or pushd goes to.
func (s *shell) cd(args []field) {
	ops := operands(args, "", nil)
	var to field
	switch {
	case len(ops) == 0:
		to = field{text: s.g.home}
	case ops[0].text == "-" && len(s.oldCwds) > 0:
		s.cwds, s.oldCwds = s.oldCwds, s.cwds
		for _, c := range s.cwds {
			if s.g.relation(c) != 0 {
				s.sawState = true
			}
		}
		return
	case ops[0].text == "-" || !ops[0].exact():
		return
	default:
		to = ops[0]
	}
	if to.text == "" {
		return
	}
	// Where the command is once the cd has succeeded (see stmts for when it fails).
	var next []string
	for _, p := range s.abs(to.text) {
		if p = filepath.Clean(p); !slices.Contains(next, p) {
			next = append(next, p)
		}
	}
	s.oldCwds, s.cwds = s.cwds, next
	for _, c := range next {
		if s.g.relation(c) != 0 {
			s.sawState = true
		}
	}
}
