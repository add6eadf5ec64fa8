package inject

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state"
)

// banned are words a newcomer misreads in what ralph-loop says: "wall" for what protects a
// loop's files, "spelling" for the guard's reading of a command, "strongest" for the best of
// those, and "keep" as a noun for ralph-loop's copies of its state ("the keep", "its keep").
// "wall-clock" (real time, as opposed to CPU time) is plain English and is left alone.
var banned = regexp.MustCompile(`(?i)\bwalls?\b|\bspelling\b|\bstrongest\b|\b(the|its|a|ralph-loop's) keep\b|\bkeep's\b`)

// bannedIn returns the banned words of text, "" if none.
func bannedIn(text string) string {
	text = strings.NewReplacer("wall-clock", "", "Wall-clock", "").Replace(text)
	return strings.Join(banned.FindAllString(text, -1), ", ")
}

// text is a string the source holds: a literal, or literals joined with + (a format given
// to fmt.Sprintf in pieces), as it will read.
type text struct {
	pos  token.Position
	text string
}

// sourceTexts returns every string of the Go files (tests left out) under dir, each run of
// literals joined with + read as one text: the texts the program can show, whatever
// function or constant holds them.
func sourceTexts(t *testing.T, dir string, recursive bool) []text {
	t.Helper()
	var out []text
	var files []*ast.File
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (!recursive || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	consts := constants(files)
	for _, f := range files {
		out = append(out, fileTexts(fset, f, consts)...)
	}
	return out
}

// constants are the string constants the files declare, by name, with the expressions
// that give them (read by fileTexts, so that a constant built from others reads whole).
func constants(files []*ast.File) map[string]ast.Expr {
	m := map[string]ast.Expr{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, name := range v.Names {
					if i < len(v.Values) {
						m[name.Name] = v.Values[i]
					}
				}
			}
		}
	}
	return m
}

// literal returns the string an expression is, when it is made of string literals and the
// constants of consts alone.
func literal(e ast.Expr, consts map[string]ast.Expr, depth int) (string, bool) {
	if depth > 20 {
		return "", false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return unquote(e.Value), true
		}
	case *ast.Ident:
		if c, ok := consts[e.Name]; ok {
			return literal(c, consts, depth+1)
		}
	case *ast.ParenExpr:
		return literal(e.X, consts, depth+1)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			x, ok1 := literal(e.X, consts, depth+1)
			y, ok2 := literal(e.Y, consts, depth+1)
			return x + y, ok1 && ok2
		}
	}
	return "", false
}

// fileTexts returns the texts of one parsed file (consts: the string constants of its
// package).
func fileTexts(fset *token.FileSet, f *ast.File, consts map[string]ast.Expr) []text {
	var out []text
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BinaryExpr:
			if n.Op != token.ADD {
				return true
			}
			// The whole chain a + b + c at once: runs of literals in it are one text each.
			var run []string
			var at token.Pos
			flush := func() {
				if len(run) > 0 {
					out = append(out, text{fset.Position(at), strings.Join(run, "")})
				}
				run = nil
			}
			for _, op := range operands(n) {
				if s, ok := literal(op, consts, 0); ok {
					if len(run) == 0 {
						at = op.Pos()
					}
					run = append(run, s)
					continue
				}
				flush()
				ast.Inspect(op, func(m ast.Node) bool { // literals nested in a call inside the chain
					if lit, ok := m.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out = append(out, text{fset.Position(lit.Pos()), unquote(lit.Value)})
					}
					return true
				})
			}
			flush()
			return false
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				out = append(out, text{fset.Position(n.Pos()), unquote(n.Value)})
			}
		}
		return true
	})
	return out
}

// operands flattens a chain of + into its operands, left to right.
func operands(e ast.Expr) []ast.Expr {
	if p, ok := e.(*ast.ParenExpr); ok {
		e = p.X
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		return append(operands(b.X), operands(b.Y)...)
	}
	return []ast.Expr{e}
}

func unquote(lit string) string {
	s, err := strconv.Unquote(lit)
	if err != nil {
		return lit
	}
	return s
}

// TestPlainWords reads every text a user or an agent reads for the banned words: every
// string of package inject, where those texts live, and of the commands and hooks that
// still hold a few of their own (cmd/ralph-loop, hook/..., state's warnings).
func TestPlainWords(t *testing.T) {
	own := sourceTexts(t, ".", false)
	// The scan sees the texts as they read, whole: a constant built from pieces, and a
	// format given to fmt.Sprintf in pieces. (Without these, a scan that found nothing
	// would pass.)
	if len(own) < 500 {
		t.Fatalf("found %d texts in package inject, want hundreds: the scan does not see them", len(own))
	}
	for _, want := range []string{SandboxSays, EndCancelCommand, ReasonFallbackCancel, GetIt} {
		if !containsText(own, want) {
			t.Errorf("the scan did not find %q whole", want)
		}
	}
	if !containsPrefix(own, ". No sandbox protects the loop's files (%s): ralph-loop refuses loop commands") {
		t.Error("the scan did not find ProtectionNotice's format whole")
	}
	texts := own
	for _, dir := range []string{"../cmd/ralph-loop", "../state"} {
		texts = append(texts, sourceTexts(t, dir, false)...)
	}
	texts = append(texts, sourceTexts(t, "../hook", true)...)
	for _, x := range texts {
		if b := bannedIn(x.text); b != "" {
			t.Errorf("%s: %q says %s: say what protects the loop, and what does not, in plain words", x.pos, x.text, b)
		}
	}
}

func containsText(texts []text, s string) bool {
	for _, x := range texts {
		if x.text == s {
			return true
		}
	}
	return false
}

func containsPrefix(texts []text, s string) bool {
	for _, x := range texts {
		if strings.HasPrefix(x.text, s) {
			return true
		}
	}
	return false
}

// TestPlainWordsCatches: the scan flags the old words wherever they are put back (a
// literal, a constant in pieces, a Sprintf format), and leaves plain English alone.
func TestPlainWordsCatches(t *testing.T) {
	const src = `package p
const a = ". Walls: the sandbox is off, so the process table and the guard " + "keep the agent away"
const b = "ralph-loop's state, its " + "keep, the binary the hooks run"
var c = fmt.Sprintf("strongest wall: %s", x)
var d = row("strongest wall", "spelling only")
var e = "Keep working on the task; ralph-loop's " + keep + " copy"
const keep = "keep"
var ok1 = "wall-clock budget from now, e.g. 45m"
var ok2 = "Keep working on the task, and keep going"
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var flagged []string
	for _, x := range fileTexts(fset, f, constants([]*ast.File{f})) {
		if b := bannedIn(x.text); b != "" {
			flagged = append(flagged, b)
		}
	}
	want := []string{"Walls", "its keep", "strongest, wall", "strongest, wall", "spelling", "ralph-loop's keep"}
	if strings.Join(flagged, "; ") != strings.Join(want, "; ") {
		t.Errorf("flagged %q, want %q", flagged, want)
	}
}

// The texts built from parts, rendered for every case they have: who ended a loop (every
// status), a notification's title (a title in words, not the status constant), and what
// protects a loop (every level, on a host with a sandbox and on one without).
func TestPlainWordsRendered(t *testing.T) {
	statuses := []state.Status{state.Active, state.Paused, state.PromiseAccepted, state.MaxIterationsReached, state.Cancelled,
		state.Superseded, state.SessionEnded, state.CutByHost, state.TimeBudgetExhausted, state.NoProgress, state.BudgetExhausted}
	bys := []string{state.ByPromise, state.ByLimit, state.ByHost, state.ByUser, state.ByTerminal, state.ByInside, state.ByCommand,
		state.ByNewLoop, state.BySessionEnd}
	gemini := Words{Name: "gemini", Display: "Gemini CLI"}
	var rendered []string
	for _, st := range statuses {
		l := loop("t")
		l.Status = st
		if st == state.Paused {
			l.Status, l.Pause = state.Active, &state.Pause{Why: "a rate limit"}
		}
		title := NotifyTitle(l)
		if strings.Contains(title, string(st)) || strings.Contains(title, "_") {
			t.Errorf("the notification's title for %s is %q: want it in words", st, title)
		}
		rendered = append(rendered, title)
		for _, by := range bys {
			l.EndedBy = by
			rendered = append(rendered, EndedBy(l))
		}
	}
	l := loop("t")
	l.Status, l.EndedBy = state.NoProgress, state.ByLimit
	if got := EndedBy(l); !strings.Contains(got, "stall breaker") {
		t.Errorf("a loop the stall breaker ended is shown ended by %q", got)
	}
	l.Status, l.EndedBy = state.Cancelled, state.ByTerminal
	if got := EndedBy(l); !strings.HasPrefix(got, "you, ") || !strings.Contains(got, "in a terminal") {
		t.Errorf("a loop cancelled from your terminal is shown ended by %q", got)
	}
	for _, sb := range []string{state.SandboxOn, SandboxOff, ""} {
		for _, owner := range []*state.Owner{nil, {PID: 1, Comm: "claude"}} {
			for _, w := range []Words{claude, gemini} {
				l := loop("t")
				l.Sandbox, l.Owner = sb, owner
				rendered = append(rendered, ProtectionNotice(l, true, w), ProtectionLine(l, true, w), ProtectionLine(l, false, w),
					Unprotected(w), DoctorSandbox(sb, w))
			}
		}
	}
	for _, s := range rendered {
		if b := bannedIn(s); b != "" {
			t.Errorf("%q says %s", s, b)
		}
	}
}
