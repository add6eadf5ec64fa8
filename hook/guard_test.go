package hook

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGuard(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "ralph-loop")
	os.MkdirAll(filepath.Join(state, "sessions", "s1"), 0o700)
	os.Symlink(state, filepath.Join(home, "link"))
	bash := func(cmd string) Input { return Input{ToolName: "Bash", Command: cmd, Cwd: home} }
	file := func(tool, path string) Input { return Input{ToolName: tool, FilePath: path, Cwd: home} }
	tests := []struct {
		in   Input
		deny bool
	}{
		{bash("ralph-loop cancel --all"), true},
		{bash("/usr/local/bin/ralph-loop cancel --session s1"), true},
		{bash("cd /tmp && ralph-loop start --session s1 -- new task"), true},
		{bash(`echo '{"hook_event_name":"UserPromptSubmit","prompt":"/cancel-ralph"}' | ralph-loop hook --host claude`), true},
		{bash("sudo ralph-loop uninstall --host claude"), true},
		{bash("FOO=1 ralph-loop install --host claude --scope project"), true},
		{bash("x=$(ralph-loop cancel --all)"), true},
		{bash("ralph-loop status --json"), false},
		{bash("ralph-loop --version"), false},
		{bash("rm -rf " + state), true},
		{bash("rm -rf ~/.local/state/ralph-loop"), true},
		{bash("rm -rf $HOME/.local/state/ralph-loop/sessions"), true},
		{bash(`rm -rf "${XDG_STATE_HOME}/ralph-loop"`), true},
		{bash("mv " + filepath.Join(state, "sessions") + " /tmp/x"), true},
		{bash("echo x > " + filepath.Join(state, "sessions", "s1", "loop.json")), true},
		{bash("cat foo >> ~/.local/state/ralph-loop/sessions/s1/loop.json"), true},
		{bash("python3 -c 'import shutil' && rm -r ~/link/sessions"), true},
		{bash("cat " + filepath.Join(state, "sessions", "s1", "task-x.md")), false},
		{bash("grep -r DONE ~/.local/state/ralph-loop | head"), false},
		{bash("go test ./... && git commit -m 'fix the ralph-loop docs'"), false},
		{bash("rm -rf ./build ~/.cache/go-build"), false},
		{bash("echo 'rm -rf ~/.local/state/ralph-loop'"), false},
		{file("Write", filepath.Join(state, "sessions", "s1", "loop.json")), true},
		{file("Edit", "../"+filepath.Base(home)+"/.local/state/ralph-loop/sessions/s1/loop.json"), true},
		{file("Write", filepath.Join(home, "link", "x")), true},
		{file("MultiEdit", filepath.Join(home, "project", "main.go")), false},
		{file("NotebookEdit", filepath.Join(state+"-other", "x")), false},
		{file("Read", filepath.Join(state, "sessions", "s1", "loop.json")), false},
		{Input{ToolName: "Grep"}, false},
	}
	for _, tt := range tests {
		got := guard(tt.in, state, home, "")
		if (got != "") != tt.deny {
			t.Errorf("guard(%s %q %q) = %q, want deny %v", tt.in.ToolName, tt.in.Command, tt.in.FilePath, got, tt.deny)
		}
	}
}

func TestSegments(t *testing.T) {
	got := segments(`a 'b c' "d\"e" f\ g; h|i && j $(k l) ` + "`m`" + ` > n 2>&1`)
	want := "[[a b c d\"e f g] [h] [i] [j] [k l] [m] [> n 2 >& 1]]"
	if s := sprint(got); s != want {
		t.Errorf("segments = %s, want %s", s, want)
	}
}

func sprint(v [][]string) string {
	s := "["
	for i, seg := range v {
		if i > 0 {
			s += " "
		}
		s += "["
		for j, w := range seg {
			if j > 0 {
				s += " "
			}
			s += w
		}
		s += "]"
	}
	return s + "]"
}

// FuzzGuard checks that any tool call is judged without a panic, and that a command which
// mentions the state directory only inside an echo's quoted argument is not denied.
func FuzzGuard(f *testing.F) {
	f.Add("rm -rf ~/.local/state/ralph-loop", "Bash")
	f.Add(`echo '{"prompt":"/cancel-ralph"}' | ralph-loop hook --host claude`, "Bash")
	f.Add("a 'b\\' \"c\\\" $(d) `e` > f 2>&1 <<EOF", "Bash")
	f.Add("../../.local/state/ralph-loop/x", "Write")
	f.Fuzz(func(t *testing.T, cmd, tool string) {
		in := Input{ToolName: tool, Command: cmd, FilePath: cmd, Cwd: "/work"}
		guard(in, "/home/u/.local/state/ralph-loop", "/home/u", "")
	})
}
