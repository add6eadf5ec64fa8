package hook

import (
	"os"
	"path/filepath"
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

// newGuardWorld makes the world under a fresh temp dir. linked: HOME is reached through a
// symbolic link and XDG_STATE_HOME is unset; otherwise HOME is the real path and
// XDG_STATE_HOME is set.
func newGuardWorld(t testing.TB, linked bool) guardWorld {
	root := t.TempDir()
	real := filepath.Join(root, "real", "home")
	for _, d := range []string{".git", "project/.git", "scratch", ".local/state/ralph-loop/sessions/s1", ".local/share", "bin"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"loop.json", "events.jsonl"} {
		if err := os.WriteFile(filepath.Join(real, ".local/state/ralph-loop/sessions/s1", f), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	real, _ = filepath.EvalSymlinks(real)
	w := guardWorld{home: real, real: real}
	if linked {
		if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		w.home = filepath.Join(root, "link", "home")
		w.state = filepath.Join(w.home, ".local", "state", "ralph-loop")
	} else {
		w.stateHome = filepath.Join(w.home, ".local", "state")
		w.state = filepath.Join(w.stateHome, "ralph-loop")
	}
	return w
}

func (w guardWorld) expand(s string) string {
	return strings.NewReplacer("{H}", w.home, "{R}", w.real).Replace(s)
}

func (w guardWorld) bash(cmd string) Input {
	return Input{ToolName: "Bash", Command: w.expand(cmd), Cwd: filepath.Join(w.home, "project")}
}

// TestGuardTable runs the table of denied and allowed commands under a linked and a plain
// home.
func TestGuardTable(t *testing.T) {
	for _, linked := range []bool{true, false} {
		w := newGuardWorld(t, linked)
		judge := testJudge(w.state, w.home, w.stateHome)
		failed := 0
		for _, c := range denyCommands {
			if got := judge(w.bash(c)); got == "" {
				failed++
				t.Errorf("linked=%v: %q allowed, want denied", linked, c)
			}
		}
		for _, c := range allowCommands {
			if got := judge(w.bash(c)); got != "" {
				failed++
				t.Errorf("linked=%v: %q denied (%s), want allowed", linked, c, got)
			}
		}
		t.Logf("linked=%v: %d deny rows, %d allow rows, %d wrong", linked, len(denyCommands), len(allowCommands), failed)
	}
}

// TestGuardFileTools covers the tools that write the file named in their input.
func TestGuardFileTools(t *testing.T) {
	for _, linked := range []bool{true, false} {
		w := newGuardWorld(t, linked)
		judge := testJudge(w.state, w.home, w.stateHome)
		os.Symlink(w.state, filepath.Join(w.real, "statelink"))
		file := func(tool, path string) Input {
			return Input{ToolName: tool, FilePath: w.expand(path), Cwd: filepath.Join(w.home, "project")}
		}
		tests := []struct {
			in   Input
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
		}
		for _, tt := range tests {
			got := judge(tt.in)
			if (got != "") != tt.deny {
				t.Errorf("linked=%v: %s %q = %q, want deny %v", linked, tt.in.ToolName, tt.in.FilePath, got, tt.deny)
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
	w := newGuardWorld(f, true)
	judge := testJudge(w.state, w.home, w.stateHome)
	f.Fuzz(func(t *testing.T, cmd, tool string) {
		in := w.bash(cmd)
		in.ToolName, in.FilePath = tool, cmd
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
		quoted := "bash -c '" + strings.ReplaceAll(cmd, "'", `'\''`) + "'"
		for _, wrapped := range []string{"timeout 5 " + cmd, "nice " + cmd, quoted} {
			if judge(w.bash(wrapped)) == "" {
				t.Errorf("%q denied, %q allowed", cmd, wrapped)
			}
		}
	})
}

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
