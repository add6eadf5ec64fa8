// Package guard judges an agent's tool call, while its loop is active, by what the call
// does: it denies what would end or re-arm the loop, resume the session from inside, kill
// the host, or change the loop's state or the files that keep the loop going.
//
// The guard keeps the agent from ending its own loop: while a loop is active, a PreToolUse
// hook denies tool calls that would cancel or re-arm it (ralph-loop cancel, start, install,
// uninstall or hook, however the program is reached), resume the session through the host's
// CLI (which would hand it a prompt such as /cancel-ralph the user never typed), kill the
// host, or write, move or delete the state directory (or another protected path: the keep,
// the host's hook configuration), anything in it, or a directory above it. Only the user
// ends a loop: /cancel-ralph, or "ralph-loop cancel" typed outside the agent.
//
// Shell commands are parsed as bash parses them (mvdan.cc/sh): quotes, escapes, ~, $HOME,
// ${XDG_STATE_HOME}, variables set earlier in the same command, globs, brace expansion,
// "cd" earlier in the line, command substitution, wrappers such as timeout, env, sudo or
// xargs, and the command strings of bash -c, eval, watch, trap, su -c and find -exec.
// Paths are compared resolved with resolved (symbolic links followed in the existing part
// of each path and of the state directory), and as written. Reads are allowed.
//
// It is a guard against an agent that takes the easy way out, not a sandbox: a script file
// written and then run, a compiled program, a path built at run time from something the
// guard cannot know, or a request over the network gets through. Authority by process
// (package hook) is what stops those. docs/guard.md lists what is and is not covered.
package guard

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
)

// Kind is what a tool call does, as the host's adapter tells it.
type Kind int

// Kinds of tool calls.
const (
	// None: a tool the guard does not look at (reads, searches, web).
	None Kind = iota
	// Run runs Action.Command in a shell, in Action.Dir.
	Run
	// Write writes (creates, edits, replaces) the files Action.Paths.
	Write
	// Delete removes the files Action.Paths.
	Delete
	// Patch applies Action.Patch, a patch in apply_patch's form ("*** Begin Patch"), whose
	// paths are taken from Action.Dir; Action.Paths are files the tool names besides.
	Patch
)

// Action is one tool call, as the guard judges it.
type Action struct {
	Kind Kind
	// Tool is the host's own name for the tool, for messages ("Write", "apply_patch").
	Tool string
	// Command is the shell command (Run).
	Command string
	// Dir is the directory the command runs in and relative paths are taken from.
	Dir string
	// Paths are the files the tool writes or deletes (Write, Delete, Patch).
	Paths []string
	// Patch is the patch text (Patch).
	Patch string
	// Unsandboxed: the command asks to run outside the host's sandbox (Run).
	Unsandboxed bool
}

// Config is what the guard knows of the session whose tool calls it judges.
type Config struct {
	// StateDir is the loop's state directory.
	StateDir string
	// Home and StateHome are $HOME and $XDG_STATE_HOME as the hook sees them (the agent's
	// shell has the same); StateHome may be "".
	Home, StateHome string
	// CLI is the host's program ("claude"), SessionEnv the variable holding the session id
	// in the agent's shell, SessionID this session's id.
	CLI, SessionEnv, SessionID string
	// Server: the host runs an HTTP server that drives its sessions (opencode), which the
	// agent's shell can reach. ServerPorts are the ports it may listen on, as the host's
	// facts know them (none: its usual ones).
	Server      bool
	ServerPorts []string
	Words       inject.Words
	// Protected are more paths kept like the state directory: nothing in them is written,
	// and no directory above them deleted or moved (the keep, the host's hook files, the
	// binaries the hooks run).
	Protected []string
	// User is the user's name ($USER as the hook sees it; "": the name of the process's
	// user): chown to the user changes nothing for ralph-loop.
	User string
	// Path is $PATH as the hook sees it (the agent's shell has the same): $(command -v X)
	// and $(which X) are X found there.
	Path string
}

// maxDepth bounds the nesting of command strings (bash -c "eval '…'") the guard reads;
// deeper ones are judged by what they mention.
const maxDepth = 8

// maxRuns bounds the command strings read for one tool call (eval of a variable that
// evals itself twice would double at each level); past it, they are judged by what they
// mention.
const maxRuns = 256

// maxCwds bounds the working directories a command line may be in that the guard tracks.
const maxCwds = 16

// guard judges the tool calls of one session (see Config for its fields).
type guard struct {
	stateDir, home, stateHome  string
	path, user                 string
	cli, sessionEnv, sessionID string
	words                      inject.Words
	server                     bool
	serverPorts                []string

	// states are the state directory as given and resolved.
	states []string
	// kept are the state directory and the other protected paths, as given and resolved;
	// absent are protected files that do not exist, only kept from being written.
	kept, absent []string
	// files are the kept paths that are not directories.
	files map[string]bool
	// resolved remembers resolve's answers during one check.
	resolved map[string]string
	// hit is the protected path a call was last found to touch (see note).
	hit string
	// lookups counts the file system lookups of one check, for its budget.
	lookups int
	// dotglob: the command may have made globs match names that start with a dot (shopt -s
	// dotglob, GLOBIGNORE set).
	dotglob bool
}

func newGuard(cfg Config) *guard {
	g := &guard{stateDir: filepath.Clean(cfg.StateDir), home: cfg.Home, stateHome: cfg.StateHome, cli: cfg.CLI, path: cfg.Path, user: cfg.User,
		sessionEnv: cfg.SessionEnv, sessionID: cfg.SessionID, words: cfg.Words, server: cfg.Server, serverPorts: cfg.ServerPorts}
	g.states = []string{g.stateDir}
	if r := resolve(g.stateDir); r != g.stateDir {
		g.states = append(g.states, r)
	}
	g.kept = append([]string(nil), g.states...)
	for _, p := range cfg.Protected {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if _, err := os.Lstat(p); err != nil {
			// Not there (a scope the host's hooks are not installed at): writing it is
			// denied, deleting the directories above it is not.
			g.absent = append(g.absent, p)
			continue
		}
		g.kept = append(g.kept, p)
		r := resolve(p)
		if r != p {
			g.kept = append(g.kept, r)
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			if g.files == nil {
				g.files = map[string]bool{}
			}
			g.files[p], g.files[r] = true, true
		}
	}
	if g.user == "" {
		// $USER unset in the hook (and so in the agent's shell): chown to the user is
		// still known by the name of the process's user.
		g.user = userName(os.Getuid())
	}
	return g
}

// lookPath is the program a command named name runs, found on the hook's PATH as a shell
// would (name itself when it holds a slash or is not found).
func (g *guard) lookPath(name string) string {
	if name == "" || strings.ContainsRune(name, '/') {
		return name
	}
	for _, dir := range filepath.SplitList(g.path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return name
}

// Check returns why the tool call act must be denied, or "" when it may run.
func Check(cfg Config, act Action) string {
	return newGuard(cfg).check(act)
}

// check returns why a tool call must be denied, or "".
func (g *guard) check(act Action) string {
	g.hit, g.lookups, g.dotglob = "", 0, false
	switch act.Kind {
	case Write, Delete, Patch:
		paths := act.Paths
		if act.Kind == Patch {
			files := PatchFiles(act.Patch)
			if len(files) == 0 && g.mentions(act.Patch) {
				// Not a patch the guard can read, naming the state: judged by what it names.
				return g.denial(act.Tool)
			}
			paths = append(files, paths...)
		}
		for _, p := range paths {
			if p == "" {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(act.Dir, p)
			}
			r := g.relation(p)
			if r&inside != 0 || act.Kind != Write && r&above != 0 {
				return g.denial(act.Tool)
			}
		}
		return ""
	case Run:
		if act.Unsandboxed {
			// The host's sandbox keeps the agent's shell from writing what ralph-loop
			// trusts: while a loop runs, nothing leaves it.
			return inject.SandboxLeaveDenied(act.Tool, g.words)
		}
	default:
		return ""
	}
	if act.Command == "" {
		return ""
	}
	g.resolved = map[string]string{}
	defer func() { g.resolved = nil }()
	cwd := act.Dir
	if cwd == "" || !filepath.IsAbs(cwd) {
		cwd = "/"
	}
	s := &shell{g: g, cwds: []string{filepath.Clean(cwd)}, vars: map[string][]field{}, exported: map[string]bool{}, env: map[string]*field{}}
	s.run(act.Command, 0)
	return s.reason
}

// PatchFiles returns the files an apply_patch patch adds, updates, deletes or moves to, in
// order.
func PatchFiles(patch string) []string {
	var files []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), p); ok && strings.TrimSpace(f) != "" {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	return files
}

// rel is how a path stands to the state directory.
type rel int

const (
	// inside: the state directory or a path in it (or a protected path, or one in it).
	inside rel = 1 << iota
	// above: a directory the state directory is in.
	above
	// inDir, with inside: the path is in the state directory or a protected directory, or
	// is one of them.
	inDir
	// onFile, with inside: the path is a protected file (a binary the hooks run, a hook
	// file), which a change of its owner or of modes that keep the owner's access leaves
	// as it works.
	onFile
)

// relation says how the absolute path p, as written and resolved, stands to the state
// directory.
func (g *guard) relation(p string) rel {
	var r rel
	for _, q := range []string{filepath.Clean(p), g.resolve(p)} {
		for _, s := range g.kept {
			switch {
			case within(q, s):
				r |= inside | g.kind(s)
				g.note(s)
			case within(s, q):
				r |= above
				g.note(s)
			}
		}
		for _, s := range g.absent {
			if q == s {
				r |= inside | onFile
				g.note(s)
			}
		}
	}
	return r
}

// kind is how a path inside the kept path s stands to it: in a directory (inDir), or the
// protected file itself (onFile).
func (g *guard) kind(s string) rel {
	if g.files[s] {
		return onFile
	}
	return inDir
}

// note remembers the protected path a call was last found to touch, for the message of a
// denial that follows.
func (g *guard) note(kept string) { g.hit = kept }

// denial is the reason for a call that would change a protected path: the state's own
// message, or the one for the keep or the host's hook files.
func (g *guard) denial(tool string) string {
	if g.hit != "" && !g.isState(g.hit) {
		return inject.GuardProtected(g.hit, g.stateDir, g.words)
	}
	if tool != "" {
		return inject.GuardFile(tool, g.stateDir, g.words)
	}
	return inject.GuardState(g.stateDir, g.words)
}

// patternRelation is relation for a glob pattern (an absolute, cleaned path whose unknown
// parts are unknownMark): the pattern stands as any path it may match would.
func (g *guard) patternRelation(pat string) rel {
	var r rel
	pats := []string{pat}
	if rp := resolvePattern(pat); rp != pat {
		pats = append(pats, rp)
	}
	for _, p := range pats {
		for _, s := range g.kept {
			if m := matchRelation(p, s, g.dotglob); m != 0 {
				if m&inside != 0 {
					m |= g.kind(s)
				}
				r |= m
				g.note(s)
			}
		}
	}
	return r
}

// matchRelation compares pattern p with path s component by component.
func matchRelation(p, s string, dotglob bool) rel {
	pc, sc := components(p), components(s)
	for i, c := range pc {
		if i == len(sc) {
			return inside
		}
		if strings.Contains(c, unknownMark) {
			// What follows is unknown: it may name s, above it or inside it.
			if ok, err := filepath.Match(strings.ReplaceAll(c, unknownMark, "*"), sc[i]); ok || err != nil {
				return inside | above
			}
			return 0
		}
		if !globMatch(c, sc[i], dotglob) {
			return 0
		}
	}
	if len(pc) == len(sc) {
		return inside
	}
	return above
}

// globMatch matches one component as bash does: a pattern that does not start with a dot
// matches no name that does, unless dotglob is on.
func globMatch(pat, name string, dotglob bool) bool {
	if !dotglob && strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") && pat != name {
		return false
	}
	ok, err := filepath.Match(pat, name)
	return ok || err != nil // a malformed pattern may match anything
}

func components(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if path == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve is resolve, remembered during a check.
func (g *guard) resolve(p string) string {
	if g.resolved == nil {
		return resolve(p)
	}
	r, ok := g.resolved[p]
	if !ok {
		var n int
		r, n = resolveN(p)
		g.lookups += n
		g.resolved[p] = r
	}
	return r
}

// resolve follows symbolic links in the longest existing part of path; the rest is joined
// on as written.
func resolve(path string) string {
	r, _ := resolveN(path)
	return r
}

// resolveN is resolve, with the number of file system lookups it made (for the budget).
func resolveN(path string) (string, int) {
	dir, rest, n := path, "", 0
	for n < 256 {
		n++
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), n
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	return filepath.Clean(path), n
}

// resolvePattern resolves the part of a pattern before its first glob character.
func resolvePattern(pat string) string {
	i := strings.IndexAny(pat, `*?[\`+unknownMark)
	if i < 0 {
		return resolve(pat)
	}
	j := strings.LastIndexByte(pat[:i], '/')
	if j <= 0 {
		return pat
	}
	return filepath.Join(resolve(pat[:j]), pat[j+1:])
}

// effectiveStateDir is the state directory a ralph-loop run with env uses: XDG_STATE_HOME
// if it is absolute, else $HOME/.local/state, as adrg/xdg reads them. ok is false when the
// guard cannot tell (a variable unset or built at run time): the run may use this loop's.
func (g *guard) effectiveStateDir(env map[string]*field) (dir string, fresh, ok bool) {
	xdg, set := g.stateHome, g.stateHome != ""
	if f, over := env["XDG_STATE_HOME"]; over {
		if f == nil {
			set = false
		} else if f.fresh {
			return "", true, true
		} else if !f.exact() {
			return "", false, false
		} else {
			xdg, set = f.text, f.text != ""
		}
	}
	if set && filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "ralph-loop"), false, true
	}
	home := g.home
	if f, over := env["HOME"]; over {
		if f == nil {
			return "", false, false
		} else if f.fresh {
			return "", true, true
		} else if !f.exact() {
			return "", false, false
		}
		home = f.text
	}
	if !filepath.IsAbs(home) {
		return "", false, false
	}
	return filepath.Join(home, ".local", "state", "ralph-loop"), false, true
}

// isState reports whether dir is this loop's state directory.
func (g *guard) isState(dir string) bool {
	for _, q := range []string{filepath.Clean(dir), resolve(dir)} {
		for _, s := range g.states {
			if q == s {
				return true
			}
		}
	}
	return false
}

// mentions reports whether text names the state directory or ralph-loop in a form the
// guard recognises without parsing it: for commands it cannot read.
func (g *guard) mentions(text string) bool {
	words := []string{"ralph-loop", ".local/state", "XDG_STATE_HOME"}
	words = append(words, g.kept...)
	if g.sessionEnv != "" {
		words = append(words, g.sessionEnv)
	}
	if g.sessionID != "" {
		words = append(words, g.sessionID)
	}
	for _, w := range words {
		if strings.Contains(text, w) {
			return true
		}
	}
	if g.home != "" {
		if rel, err := filepath.Rel(g.home, g.stateDir); err == nil && !strings.HasPrefix(rel, "..") && strings.Contains(text, rel) {
			return true
		}
	}
	return false
}

// mentionsState is mentions without the words that name ralph-loop only as a program:
// "ralph-loop" counts as a whole quoted string or a path's last or next-to-last part
// (…/ralph-loop', ralph-loop/sessions), not inside a pattern or a command line
// ('/ralph-loop/p', 'ralph-loop status').
func (g *guard) mentionsState(text string) bool {
	words := []string{".local/state", "XDG_STATE_HOME", "ralph-loop/sessions", "ralph-loop/keep", "ralph-loop/loops",
		"/ralph-loop'", `/ralph-loop"`, "'ralph-loop'", `"ralph-loop"`, "`ralph-loop`"}
	words = append(words, g.kept...)
	for _, w := range words {
		if strings.Contains(text, w) || strings.HasSuffix(text, "/ralph-loop") {
			return true
		}
	}
	if g.home != "" {
		if rel, err := filepath.Rel(g.home, g.stateDir); err == nil && !strings.HasPrefix(rel, "..") && strings.Contains(text, rel) {
			return true
		}
	}
	return false
}

// repoRoot is the git work tree dir is in: the nearest directory at or above it with a
// .git, or dir itself when there is none.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// userName is the name /etc/passwd gives uid ("" when it has none: a directory service's
// user). It is read as a file, as os/user does without cgo (which the static binary
// leaves out).
func userName(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	id := strconv.Itoa(uid)
	sc := bufio.NewScanner(io.LimitReader(f, 4<<20))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) > 2 && fields[2] == id && fields[0] != "" {
			return fields[0]
		}
	}
	return ""
}
