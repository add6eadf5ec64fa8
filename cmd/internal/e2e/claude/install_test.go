package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// copyBinary puts a copy of ralph-loop at dir/ralph-loop: a second install of it, at
// another path.
func copyBinary(t *testing.T, dir string) string {
	t.Helper()
	data := e2e.Read(t, suite.RalphLoop)
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "ralph-loop")
	if err := e2e.WriteProgram(path, data); err != nil {
		t.Fatal(err)
	}
	return path
}

// teammate is a project-scope install made by a ralph-loop of its own (root/installer/bin),
// which is then removed: the project as a teammate's machine without that binary has it.
// It returns the Env, root and the installer's path.
func teammate(t *testing.T) (*e2e.Env, string, string) {
	t.Helper()
	suite.Need(t)
	root := t.TempDir()
	installer := copyBinary(t, filepath.Join(root, "installer", "bin"))
	env, err := e2e.NewEnv(root, suite.Bin, installer)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "installer")); err != nil {
		t.Fatal(err)
	}
	return env, root, installer
}

// Installed at user scope (one binary) and then at project scope: the project install adds
// no second set of hooks, and a loop advances one iteration per stop. Forced, both sets are
// in the settings and both run for every event (from two binaries); the project's committed
// set leaves each event to the user's, and each stop still advances the loop once.
func TestInstallTwoScopes(t *testing.T) {
	for _, force := range []bool{false, true} {
		name := "second set refused"
		if force {
			name = "second set forced"
		}
		t.Run(name, func(t *testing.T) {
			env := bareEnv(t)
			ctx := context.Background()
			other := copyBinary(t, filepath.Join(env.Root, "opt", "bin"))
			if _, err := env.RalphLoopCmd(ctx, "install", "--host", "claude", "--scope", "user", "--binary", other); err != nil {
				t.Fatal(err)
			}
			args := []string{"install", "--host", "claude", "--scope", "project", "--dir", env.Project}
			if force {
				args = append(args, "--force")
			}
			out, err := env.RalphLoopCmd(ctx, args...)
			if force && err != nil || !force && err == nil {
				// Not installed, though asked, is not done: exit 1.
				t.Fatalf("install --scope project (force %v): err %v", force, err)
			}
			_, statErr := os.Stat(filepath.Join(env.Project, ".claude", "settings.json"))
			if force != (statErr == nil) {
				t.Fatalf("project settings exist: %v, want %v; install said:\n%s", statErr == nil, force, out)
			}
			if !force {
				contains(t, "the project install", out, "not installed for Claude Code (project scope)", "already in", "(user scope)")
			}
			res := run(t, env, e2e.Session{
				Script:  e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")},
				Prompts: []string{`/ralph-loop "Think it through" --max-iterations 4 --min-tool-calls 0`},
			})
			expectLoop(t, loopOf(t, env, res.SessionID), "MAX_ITERATIONS_REACHED", 4, 0)
			if n := len(res.Fake.MainRequests()); n != 4 {
				t.Errorf("%d agent requests, want 4 (one per iteration)", n)
			}
			if n := len(res.Feedback()); n != 3 {
				t.Errorf("%d blocks, want 3", n)
			}
		})
	}
}

// A project-scope install committed to a repository, used on a teammate's machine where
// ralph-loop is not installed (neither the installer's path nor any ralph-loop on PATH):
// no hook error on any event, nothing blocked, and one clear line saying how to get it.
func TestInstallTeammateWithoutBinary(t *testing.T) {
	env, root, installer := teammate(t)
	settings, _ := os.ReadFile(filepath.Join(env.Project, ".claude", "settings.json"))
	if strings.Contains(string(settings), installer) || strings.Contains(string(settings), root) {
		t.Fatalf("the committed settings name this machine's paths:\n%s", settings)
	}
	// The teammate's machine: PATH has no ralph-loop either.
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Bash("I'll create the file.", "echo hi > x.txt"),
			e2e.Text("Done: x.txt is written."),
		}},
		Prompts: []string{`/ralph-loop "Create x.txt containing hi" --max-iterations 5`},
		Env:     []string{"PATH=" + os.Getenv("PATH")},
	})
	if res.ExitCode != 0 {
		t.Errorf("claude exit %d", res.ExitCode)
	}
	var told int
	for _, n := range res.Notices() {
		low := strings.ToLower(n)
		if strings.Contains(low, "not on this machine's path") {
			told++
			continue
		}
		if strings.Contains(low, "error") || strings.Contains(low, "not found") || strings.Contains(low, "failed") || strings.Contains(low, "block") {
			t.Errorf("a hook failed or blocked: %q", n)
		}
	}
	for _, bad := range []string{"not found", "hook error", "ralph-loop:"} {
		if strings.Contains(res.Stderr, bad) {
			t.Errorf("stderr has %q:\n%s", bad, res.Stderr)
		}
	}
	if told == 0 {
		t.Error("the user was not told that ralph-loop is missing")
	}
	if f := res.Feedback(); len(f) != 0 {
		t.Errorf("a stop was blocked: %q", f)
	}
	if n := len(res.Fake.MainRequests()); n != 2 {
		t.Errorf("%d agent requests, want 2 (the turn ran once, unlooped)", n)
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
	t.Logf("notices: %q", res.Notices())
}
