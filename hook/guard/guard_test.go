package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// guardWorld is a home directory with a loop's state in it, for the guard's tests: a git
// work tree in project, a directory outside any work tree in scratch, and the home itself
// a git work tree (dotfiles kept in git), so that a git clean there reaches the state.
type guardWorld struct {
	home, real, state, stateHome string
}

// The homes the guard is tried under.
const (
	// plainHome: HOME is a real path, XDG_STATE_HOME is set to $HOME/.local/state.
	plainHome = iota
	// linkedHome: HOME is reached through a symbolic link, XDG_STATE_HOME is unset.
	linkedHome
	// linkedXDG: HOME is a real path, XDG_STATE_HOME is $HOME/.local/state reached
	// through a symbolic link.
	linkedXDG
)

var homeNames = []string{plainHome: "plain home", linkedHome: "linked home", linkedXDG: "linked XDG_STATE_HOME"}

// newGuardWorld makes the world under a fresh temp dir, with HOME as mode says.
func newGuardWorld(t testing.TB, mode int) guardWorld {
	root := t.TempDir()
	real := filepath.Join(root, "real", "home")
	for _, d := range []string{".git", "project/.git", "scratch", ".local/state/ralph-loop/sessions/s1", ".local/share/ralph-loop/loops", ".local/bin", "bin"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"loop.json", "events.jsonl"} {
		if err := os.WriteFile(filepath.Join(real, ".local/state/ralph-loop/sessions/s1", f), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The binary the hooks run, and the keep, where a user's are.
	if err := os.WriteFile(filepath.Join(real, ".local/bin/ralph-loop"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, ".local/share/ralph-loop/key"), []byte("k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	real, _ = filepath.EvalSymlinks(real)
	// A link to ralph-loop under another name, as an agent could have made in an earlier call.
	if err := os.WriteFile(filepath.Join(real, "bin", "ralph-loop"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "bin", "ralph-loop"), filepath.Join(real, "bin", "rl")); err != nil {
		t.Fatal(err)
	}
	w := guardWorld{home: real, real: real}
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	switch mode {
	case linkedHome:
		w.home = filepath.Join(root, "link", "home")
		w.state = filepath.Join(w.home, ".local", "state", "ralph-loop")
	case linkedXDG:
		w.stateHome = filepath.Join(root, "link", "home", ".local", "state")
		w.state = filepath.Join(w.stateHome, "ralph-loop")
	default:
		w.stateHome = filepath.Join(w.home, ".local", "state")
		w.state = filepath.Join(w.stateHome, "ralph-loop")
	}
	return w
}

// testJudge returns the guard of a session s1 of Claude Code whose state is in stateDir.
func testJudge(stateDir, home, stateHome string) func(Action) string {
	cfg := Config{StateDir: stateDir, Home: home, StateHome: stateHome, CLI: "claude", SessionEnv: "CLAUDE_CODE_SESSION_ID", SessionID: "s1", User: "me"}
	return func(a Action) string { return Check(cfg, a) }
}

// tableJudge is testJudge with what the engine keeps besides the state directory (the keep,
// and the binary the hooks run in ~/.local/bin), for user as $USER ("": unset).
func (w guardWorld) tableJudge(user string) func(Action) string {
	cfg := Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "claude", SessionEnv: "CLAUDE_CODE_SESSION_ID", SessionID: "s1", User: user,
		Protected: []string{filepath.Join(w.home, ".local", "share", "ralph-loop"), filepath.Join(w.home, ".local", "bin", "ralph-loop")},
		Path:      filepath.Join(w.home, ".local", "bin") + ":/usr/bin:/bin"}
	return func(a Action) string { return Check(cfg, a) }
}

func (w guardWorld) expand(s string) string {
	return strings.NewReplacer("{H}", w.home, "{R}", w.real).Replace(s)
}

func (w guardWorld) bash(cmd string) Action {
	return Action{Kind: Run, Tool: "Bash", Command: w.expand(cmd), Dir: filepath.Join(w.home, "project")}
}

// TestGuardTable runs the table of denied and allowed commands under each kind of home, with
// the keep and the binary the hooks run kept as the engine keeps them, and with $USER set
// and unset.
func TestGuardTable(t *testing.T) {
	for mode, home := range homeNames {
		for _, user := range []string{"me", ""} {
			name := home + ", $USER " + map[string]string{"me": "set", "": "unset"}[user]
			w := newGuardWorld(t, mode)
			tableRows(t, name, w, w.tableJudge(user))
		}
	}
}

// tableRows runs the table's rows through judge.
func tableRows(t *testing.T, name string, w guardWorld, judge func(Action) string) {
	t.Helper()
	failed := 0
	for _, c := range append(append([]string{}, denyCommands...), stillDenied...) {
		if got := judge(w.bash(c)); got == "" {
			failed++
			t.Errorf("%s: %q allowed, want denied", name, c)
		}
	}
	for _, c := range append(append([]string{}, allowCommands...), stillAllowed...) {
		if got := judge(w.bash(c)); got != "" {
			failed++
			t.Errorf("%s: %q denied (%s), want allowed", name, c, got)
		}
	}
	t.Logf("%s: %d deny rows, %d allow rows, %d wrong", name, len(denyCommands), len(allowCommands), failed)
}

// TestGuardServerTable runs the server tables, and allowCommands, for opencode.
func TestGuardServerTable(t *testing.T) {
	w := newGuardWorld(t, plainHome)
	g := newGuard(Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "opencode", SessionID: "ses_abc123", Server: true, ServerPorts: []string{"41234"}, User: "me"})
	for _, c := range denyServerCommands {
		if got := g.check(w.bash(c)); got == "" {
			t.Errorf("%q allowed, want denied", c)
		}
	}
	for _, c := range append(append([]string{}, allowServerCommands...), allowCommands...) {
		if got := g.check(w.bash(c)); got != "" {
			t.Errorf("%q denied (%s), want allowed", c, got)
		}
	}
	t.Logf("%d deny rows, %d allow rows", len(denyServerCommands), len(allowServerCommands)+len(allowCommands))
}

// TestGuardFileTools covers the tools that write the file named in their input.
func TestGuardFileTools(t *testing.T) {
	for mode, name := range homeNames {
		w := newGuardWorld(t, mode)
		judge := testJudge(w.state, w.home, w.stateHome)
		os.Symlink(w.state, filepath.Join(w.real, "statelink"))
		file := func(tool, path string) Action {
			return Action{Kind: Write, Tool: tool, Paths: []string{w.expand(path)}, Dir: filepath.Join(w.home, "project")}
		}
		tests := []struct {
			in   Action
			deny bool
		}{
			{file("Write", "{H}/.local/state/ralph-loop/sessions/s1/loop.json"), true},
			{file("Write", "{R}/.local/state/ralph-loop/sessions/s1/loop.json"), true},
			{file("Write", "{R}/.local/state/ralph-loop/sessions/s2/new.json"), true},
			{file("Edit", "../.local/state/ralph-loop/sessions/s1/loop.json"), true},
			{file("Write", "{H}/statelink/sessions/s1/loop.json"), true},
			{file("Write", "{H}/.local/state/ralph-loop"), true},
			{file("MultiEdit", "{H}/project/main.go"), false},
			{file("Write", "{H}/.local/state/ralph-loop-other/x"), false},
			{file("Write", "{H}/.local/state/other/x"), false},
			{file("Write", "notes.md"), false},
			// Issue 16: every file of a patch, deletes above the state, the host's own names.
			{Action{Kind: Patch, Tool: "apply_patch", Dir: filepath.Join(w.home, "project"),
				Patch: w.expand("*** Begin Patch\n*** Add File: a.txt\n+a\n*** Add File: {H}/.local/state/ralph-loop/sessions/s1/loop.json\n+{}\n*** End Patch")}, true},
			{Action{Kind: Patch, Tool: "apply_patch", Dir: filepath.Join(w.home, "project"),
				Patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../.local/state/ralph-loop/x\n*** End Patch"}, true},
			{Action{Kind: Patch, Tool: "patch", Dir: filepath.Join(w.home, "project"),
				Patch: w.expand("--- a/x\n+++ {H}/.local/state/ralph-loop/sessions/s1/loop.json\n@@ -1 +1 @@\n")}, true},
			{Action{Kind: Delete, Tool: "Delete", Paths: []string{w.expand("{H}/.local")}}, true},
			{Action{Kind: Patch, Tool: "apply_patch", Dir: filepath.Join(w.home, "project"),
				Patch: "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Delete File: b.txt\n*** End Patch"}, false},
			{Action{Kind: Delete, Tool: "Delete", Paths: []string{w.expand("{H}/project/old.go")}}, false},
		}
		for _, tt := range tests {
			got := judge(tt.in)
			if tt.deny && !strings.Contains(got, tt.in.Tool+" of a file") {
				t.Errorf("%s: %s denied without the host's name for the tool: %q", name, tt.in.Tool, got)
			}
			if (got != "") != tt.deny {
				t.Errorf("%s: %s %q = %q, want deny %v", name, tt.in.Tool, tt.in.Paths, got, tt.deny)
			}
		}
	}
}

// FuzzGuard checks that any tool call is judged without a panic, with a reason from inject
// when denied, and that the judgement holds under wrappers: a denied simple command stays
// denied after "timeout 5 " or "nice ", or inside bash -c '…'; a quoted echo is allowed.
func FuzzGuard(f *testing.F) {
	for _, c := range denyCommands {
		f.Add(c, "Bash")
	}
	for _, c := range allowCommands {
		f.Add(c, "Bash")
	}
	f.Add("a 'b\\' \"c\\\" $(d) `e` > f 2>&1 <<EOF", "Bash")
	f.Add("../.local/state/ralph-loop/x", "Write")
	w := newGuardWorld(f, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	f.Fuzz(func(t *testing.T, cmd, tool string) {
		in := w.bash(cmd)
		if tool != "Bash" {
			in = Action{Kind: Write, Tool: tool, Paths: []string{cmd}, Dir: in.Dir}
		}
		got := judge(in)
		if got != "" && !strings.HasPrefix(got, "ralph-loop: ") {
			t.Fatalf("reason %q", got)
		}
		if tool != "Bash" {
			return
		}
		if !strings.Contains(cmd, "'") && judge(w.bash("echo '"+cmd+"'")) != "" {
			t.Errorf("echo '%s' denied", cmd)
		}
		if got == "" || !simpleCommand(cmd) {
			return
		}
		wrappers := []string{"timeout 5 " + cmd, "nice " + cmd}
		// bash -c gives the command positional parameters of its own ($0 is "bash"): a
		// command that uses them is another command there.
		if !positional.MatchString(cmd) {
			wrappers = append(wrappers, "bash -c '"+strings.ReplaceAll(cmd, "'", `'\''`)+"'")
		}
		for _, wrapped := range wrappers {
			if judge(w.bash(wrapped)) == "" {
				t.Errorf("%q denied, %q allowed", cmd, wrapped)
			}
		}
	})
}

// positional matches a use of the shell's positional parameters ($0, ${1}, $@, $#, $*).
var positional = regexp.MustCompile(`\$\{?[0-9@*#]`)

// simpleCommand reports whether cmd is one simple command a wrapper can run as it is:
// a program (no assignments, no compound command, no comment) and its arguments.
func simpleCommand(cmd string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 || strings.ContainsAny(cmd, "#\n") {
		return false
	}
	st := f.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || st.Negated || st.Background || st.Coprocess {
		return false
	}
	// The wrapped program must be one a wrapper can run: not a shell builtin or keyword.
	switch c.Args[0].Lit() {
	case "", "cd", "pushd", "popd", "eval", "exec", "export", "unset", "trap", "source", ".", "set", "builtin",
		"command", "alias", "read", "local", "declare", "typeset", "readonly", "time", "coproc":
		return false
	}
	return true
}

// TestGuardBounded: command strings that multiply (an eval of a variable that evals itself
// ten times) are read up to a bound, then judged by what they mention.
func TestGuardBounded(t *testing.T) {
	w := newGuardWorld(t, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	bomb := `a='` + strings.Repeat(`eval "$a";`, 10) + `'; eval "$a"`
	if got := judge(w.bash(bomb)); got != "" {
		t.Errorf("%q denied: %s", bomb, got)
	}
	for _, after := range []string{"; ralph-loop cancel --all", "; bash -c 'ralph-loop cancel --all'", "; rm -rf ~/.local/state"} {
		if got := judge(w.bash(bomb + after)); got == "" {
			t.Errorf("%q allowed after the bound", after)
		}
	}
}

func BenchmarkGuard(b *testing.B) {
	w := newGuardWorld(b, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	cmds := append(append([]string{}, denyCommands...), allowCommands...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		judge(w.bash(cmds[i%len(cmds)]))
	}
}

// TestGuardStateInProject: with XDG_STATE_HOME inside the project's git work tree, git clean
// and git stash of untracked files would take the state with them.
func TestGuardStateInProject(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	stateHome := filepath.Join(project, ".state")
	state := filepath.Join(stateHome, "ralph-loop")
	for _, d := range []string{".git", "src", ".state/ralph-loop/sessions/s1"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	judge := testJudge(state, filepath.Join(root, "home"), stateHome)
	tests := []struct {
		cmd  string
		deny bool
	}{
		{"git clean -fdx", true},
		{"git clean -fd", true},
		{"git clean -fdX .", true},
		{"cd src && git clean -fdx ..", true},
		{"git stash --include-untracked", true},
		{"git stash push -a -m wip", true},
		{"rm -rf .state", true},
		{"rm -rf .st*", true},
		{"git clean -fdx src/", false},
		{"cd src && git clean -fdx", false},
		{"git clean -n -fdx", false},
		{"git clean --dry-run -x", false},
		{"git stash", false},
		{"git stash pop", false},
		{"rm -rf src/build", false},
	}
	for _, tt := range tests {
		got := judge(Action{Kind: Run, Tool: "Bash", Command: tt.cmd, Dir: project})
		if (got != "") != tt.deny {
			t.Errorf("%q = %q, want deny %v", tt.cmd, got, tt.deny)
		}
	}
}

// TestGuardBudget: a short command whose dead branch doubles a variable again and again
// (issue 16: 28 doublings took 12–18 s and 5 GB, 29 crashed the hook) is denied as too
// complex, within a bounded amount of memory, and so is any command past the budget.
func TestGuardBudget(t *testing.T) {
	w := newGuardWorld(t, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	bombs := []string{
		"if false; then x=aa; " + strings.Repeat("x=$x$x; ", 26) + "fi; echo ok",
		"x=a; " + strings.Repeat(`x="$x$x"; `, 26) + "true",
		"x=a; " + strings.Repeat(`x=${x}${x}; `, 26) + ": \"$x\"",
		"x=a; for i in $(seq 29); do x=$x$x; done; " + strings.Repeat("y=$x$x$x$x; x=$y; ", 14) + "echo",
		"x=a; " + strings.Repeat("x=$x$x$x$x$x$x$x$x; ", 10) + "echo \"$x\"",
		"x=/tmp/$(printf a); " + strings.Repeat("x=$x/$x; ", 26) + "rm -rf \"$x\"",
	}
	for _, cmd := range bombs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got := judge(w.bash(cmd))
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Errorf("%q: %d MB allocated, want a bounded amount", cmd, alloc>>20)
		}
		if !strings.Contains(got, "too complex to check; split the command") {
			t.Errorf("%q = %q, want denied as too complex", cmd, got)
		}
	}
	long := "echo " + strings.Repeat("a", maxCommand)
	if got := judge(w.bash(long)); !strings.Contains(got, "too complex") {
		t.Errorf("a %d-byte command = %q, want denied as too complex", len(long), got)
	}
	var paths strings.Builder
	paths.WriteString("rm -f")
	for i := 0; i < 9000; i++ {
		fmt.Fprintf(&paths, " /no/such/dir%d/a/b/c/d/e/f/g/h", i)
	}
	if got := judge(w.bash(paths.String())); !strings.Contains(got, "too complex") {
		t.Errorf("9000 paths to resolve = %q, want denied as too complex", got)
	}
	many := strings.Repeat("echo a b c d e f g h; ", maxSteps/8)
	if got := judge(w.bash(many)); !strings.Contains(got, "too complex") {
		t.Errorf("%d commands = %q, want denied as too complex", maxSteps/8, got)
	}
}

// BenchmarkGuardLarge measures the guard on large commands at its budget: many paths to
// resolve, many commands, many directories.
func BenchmarkGuardLarge(b *testing.B) {
	w := newGuardWorld(b, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	var paths strings.Builder
	paths.WriteString("rm -f")
	for i := 0; i < 9000; i++ {
		fmt.Fprintf(&paths, " /no/such/dir%d/a/b/c/d/e/f/g/h", i)
	}
	cmds := []string{paths.String(), strings.Repeat("echo a b c d e f g h; ", 2400), strings.Repeat("cd /tmp/x$RANDOM/y; ", 3000) + "rm -rf *"}
	for _, c := range cmds {
		b.Run(fmt.Sprint(len(c)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				judge(w.bash(c))
			}
		})
	}
}

// BenchmarkGuardBudget measures the guard on a command past its budget (issue 16's 280-byte
// doubling, 29 times).
func BenchmarkGuardBudget(b *testing.B) {
	w := newGuardWorld(b, linkedHome)
	judge := testJudge(w.state, w.home, w.stateHome)
	cmd := w.bash("if false; then x=aa; " + strings.Repeat("x=$x$x;", 29) + "fi; echo ok")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		judge(cmd)
	}
}

func TestPatchFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: dir/b.go\n*** Move to: dir/c.go\n@@\n-a\n+b\n*** Delete File: d\r\n*** End Patch"
	got := PatchFiles(patch)
	want := []string{"a.txt", "dir/b.go", "dir/c.go", "d"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGuardProtected: the keep (ralph-loop's copies of the loop's state) and the host's hook
// files are kept like the state directory, in file tools, patches and the shell; reading
// them, and writing beside them, is allowed.
func TestGuardProtected(t *testing.T) {
	w := newGuardWorld(t, plainHome)
	keep := filepath.Join(w.home, ".local", "share", "ralph-loop")
	hooks := filepath.Join(w.home, ".codex", "hooks.json")
	project := filepath.Join(w.home, "project")
	// The keep and the user's hook files exist (a loop was written, the hooks installed); the
	// project's settings file does not.
	for _, f := range []string{filepath.Join(keep, "key"), hooks, filepath.Join(w.home, ".codex", "config.toml")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "codex", SessionID: "s1",
		Protected: []string{keep, hooks, filepath.Join(w.home, ".codex", "config.toml"), filepath.Join(project, ".gemini", "settings.json")}}
	run := func(cmd string) Action { return Action{Kind: Run, Tool: "Bash", Command: w.expand(cmd), Dir: project} }
	file := func(kind Kind, path string) Action {
		return Action{Kind: kind, Tool: "apply_patch", Paths: []string{w.expand(path)}, Dir: project}
	}
	patch := func(p string) Action {
		return Action{Kind: Patch, Tool: "apply_patch", Patch: "*** Begin Patch\n*** Add File: a.txt\n+a\n" + w.expand(p) + "\n*** End Patch", Dir: project}
	}
	deny := []Action{
		run(`rm -rf ~/.local/share/ralph-loop`),
		run(`rm -rf ~/.local/share`),
		run(`echo '{}' > ~/.codex/hooks.json`),
		run(`sed -i '/ralph-loop/d' ~/.codex/hooks.json`),
		run(`rm ~/.codex/config.toml`),
		run(`mv ~/.codex ~/.codex.off`),
		run(`mkdir -p .gemini && echo '{"hooksConfig":{"enabled":false}}' > .gemini/settings.json`),
		run(`cp /tmp/x ~/.local/share/ralph-loop/key`),
		run("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {H}/.codex/hooks.json\n@@\n-a\n+b\n*** End Patch\nEOF"),
		file(Write, "{H}/.codex/hooks.json"),
		file(Write, ".gemini/settings.json"),
		file(Delete, "{H}/.local/share/ralph-loop/key"),
		file(Delete, "{H}/.codex"),
		patch("*** Delete File: {H}/.codex/hooks.json"),
		patch("*** Update File: notes.md\n*** Move to: {H}/.local/share/ralph-loop/loops/x.json"),
	}
	allow := []Action{
		run(`cat ~/.codex/hooks.json`),
		run(`jq . ~/.codex/config.toml`),
		run(`ls -la ~/.local/share/ralph-loop`),
		run(`echo x > ~/.codex/notes.txt`),
		run(`rm -rf ~/.local/share/other-app`),
		file(Write, "{H}/.codex/AGENTS.md"),
		file(Write, ".gemini/commands/x.toml"),
		file(Delete, "{H}/.local/share/other/x"),
		patch("*** Add File: {H}/project/b.txt"),
		// A protected file that is not there is kept from being written, not its directories.
		run(`rm -rf *`),
		run(`git clean -fdx`),
		run(`rm -rf .gemini/commands`),
	}
	for _, a := range deny {
		if got := Check(cfg, a); got == "" {
			t.Errorf("%v %q %q %q allowed, want denied", a.Kind, a.Command, a.Paths, a.Patch)
		} else if !strings.Contains(got, "keeps this loop going") && !strings.Contains(got, w.state) {
			t.Errorf("%q: reason %q names neither the protected path nor the state", a.Command, got)
		}
	}
	for _, a := range allow {
		if got := Check(cfg, a); got != "" {
			t.Errorf("%v %q %q %q denied (%s), want allowed", a.Kind, a.Command, a.Paths, a.Patch, got)
		}
	}
}

// FuzzAction checks that any action of any kind is judged without a panic, within the
// budget, with a reason from inject when denied, and that a patch is denied when any one of
// its files is (the same file alone, or first, is).
func FuzzAction(f *testing.F) {
	f.Add(int(Patch), "apply_patch", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: ../.local/state/ralph-loop/x\n*** End Patch", "b.txt")
	f.Add(int(Write), "write", "", "../.local/state/ralph-loop/sessions/s1/loop.json")
	f.Add(int(Delete), "Delete", "", "..")
	f.Add(int(Run), "bash", "curl -X DELETE localhost:4096/session/x", "")
	f.Add(int(Run), "bash", "x=a; x=$x$x; x=$x$x; echo $x", "")
	w := newGuardWorld(f, linkedHome)
	cfg := Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "opencode", SessionID: "s1", Server: true,
		Protected: []string{filepath.Join(w.home, ".config", "opencode", "plugins", "ralph-loop.js")}}
	dir := filepath.Join(w.home, "project")
	f.Fuzz(func(t *testing.T, kind int, tool, text, path string) {
		act := Action{Kind: Kind(kind), Tool: tool, Command: text, Patch: text, Paths: []string{path}, Dir: dir}
		got := Check(cfg, act)
		if got != "" && !strings.HasPrefix(got, "ralph-loop: ") {
			t.Fatalf("reason %q", got)
		}
		if act.Kind != Patch {
			return
		}
		for _, file := range PatchFiles(text) {
			one := Action{Kind: Write, Tool: tool, Paths: []string{file}, Dir: dir}
			if Check(cfg, one) != "" && got == "" {
				t.Errorf("%q denied alone, its patch allowed", file)
			}
		}
	})
}

// TestGuardBinaries: the binaries the hooks run (given as Protected, the way the engine
// gives them: a link's path and its target) are kept like the state directory: moving,
// removing, chmod, writing over one or deleting a directory above it is denied; reading,
// running and copying one is allowed.
func TestGuardBinaries(t *testing.T) {
	w := newGuardWorld(t, plainHome)
	bin := filepath.Join(w.home, ".local", "bin", "ralph-loop")
	real := filepath.Join(w.home, "Cellar", "ralph-loop", "1.0.0", "bin", "ralph-loop")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.Remove(bin) // the world's own, a file: here a link
	if err := os.WriteFile(real, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, bin); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(w.home, "project")
	cfg := Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "claude", SessionID: "s1", Protected: []string{bin, real},
		Path: filepath.Dir(bin)}
	run := func(cmd string) Action { return Action{Kind: Run, Tool: "Bash", Command: w.expand(cmd), Dir: project} }
	for _, cmd := range []string{
		`mv ~/.local/bin/ralph-loop /tmp/x`,
		`mv "$(command -v ralph-loop)" "$TMPDIR/x"`,
		`rm ~/.local/bin/ralph-loop`,
		`rm -f {H}/Cellar/ralph-loop/1.0.0/bin/ralph-loop`,
		`rm -rf ~/Cellar/ralph-loop`,
		`rm -rf ~/.local/bin`,
		`chmod -x ~/.local/bin/ralph-loop`,
		`chmod 644 {H}/Cellar/ralph-loop/1.0.0/bin/ralph-loop`,
		`printf '#!/bin/sh\nexit 0\n' > ~/.local/bin/ralph-loop`,
		`cp /bin/true ~/.local/bin/ralph-loop`,
		`ln -sf /bin/true ~/.local/bin/ralph-loop`,
		`truncate -s 0 {H}/Cellar/ralph-loop/1.0.0/bin/ralph-loop`,
	} {
		if got := Check(cfg, run(cmd)); got == "" {
			t.Errorf("%q allowed, want denied", cmd)
		}
	}
	for _, a := range []Action{{Kind: Write, Tool: "Write", Paths: []string{bin}, Dir: project}, {Kind: Delete, Tool: "Delete", Paths: []string{real}, Dir: project}} {
		if got := Check(cfg, a); got == "" {
			t.Errorf("%v %q allowed, want denied", a.Kind, a.Paths)
		}
	}
	for _, cmd := range []string{
		`ls -la ~/.local/bin/ralph-loop`,
		`ralph-loop status`,
		`~/.local/bin/ralph-loop version`,
		`cp ~/.local/bin/ralph-loop /tmp/copy`,
		`sha256sum {H}/Cellar/ralph-loop/1.0.0/bin/ralph-loop`,
		`rm -f ~/.local/bin/other-tool`,
		`chmod +x ~/.local/bin/other-tool`,
	} {
		if got := Check(cfg, run(cmd)); got != "" {
			t.Errorf("%q denied (%s), want allowed", cmd, got)
		}
	}
}

// A shell call that asks to leave the host's sandbox is denied whatever it runs; the same
// command inside the sandbox is judged as usual.
func TestGuardUnsandboxed(t *testing.T) {
	w := newGuardWorld(t, 0)
	cfg := Config{StateDir: w.state, Home: w.home, StateHome: w.stateHome, CLI: "claude", SessionID: "s1"}
	if got := Check(cfg, Action{Kind: Run, Tool: "Bash", Command: "ls", Dir: w.home, Unsandboxed: true}); got == "" {
		t.Error("ls outside the sandbox: allowed")
	}
	if got := Check(cfg, Action{Kind: Run, Tool: "Bash", Command: "ls", Dir: w.home}); got != "" {
		t.Errorf("ls inside the sandbox: %q", got)
	}
}
