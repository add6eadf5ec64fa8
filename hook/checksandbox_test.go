package hook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/hook/program"
	"github.com/ralph-loop/ralph-loop/state"
)

// A loop names the host's sandbox as what protects it only where its checks can run in it: not
// where the sandbox's program is missing, or found only in the project (a bwrap the agent
// wrote into bin/, first on PATH, is none); a loop without checks needs none.
func TestSandboxClaim(t *testing.T) {
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, "bin"), 0o755)
	os.WriteFile(filepath.Join(proj, "bin", "bwrap"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755)
	os.WriteFile(filepath.Join(proj, "bin", "sandbox-exec"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755)
	find := func(path string) func([]string) program.Finder {
		return func(dirs []string) program.Finder { return program.Finder{Path: path, Skip: dirs} }
	}
	armed := func(checks ...string) state.Loop {
		return loop(func(l *state.Loop) {
			l.Cwd, l.Checks, l.Sandbox = proj, checks, state.SandboxOn
			l.SandboxRoots = &state.SandboxRoots{Writable: []string{proj}}
		})
	}
	store := state.NewStore(t.TempDir())
	for _, c := range []struct {
		name, path string
		checks     []string
	}{
		{"no sandbox program", t.TempDir(), []string{"go test ./..."}},
		{"only the project's", filepath.Join(proj, "bin"), []string{"go test ./..."}},
	} {
		l := armed(c.checks...)
		env := Env{Store: store, Programs: find(c.path)}
		if got := sandboxClaim(context.Background(), env, &l); got == state.SandboxOn || !strings.Contains(got, "checks cannot run in the sandbox") {
			t.Errorf("%s: %q, want the checks named as outside the sandbox", c.name, got)
		}
	}
	l := armed()
	if got := sandboxClaim(context.Background(), Env{Store: store, Programs: find(t.TempDir())}, &l); got != state.SandboxOn {
		t.Errorf("no checks: %q, want on", got)
	}
	if _, err := exec.LookPath(runnerName()); err != nil {
		t.Skip("SKIPPED: the rest needs " + runnerName())
	}
	l = armed("true")
	if got := sandboxClaim(context.Background(), Env{Store: store, Programs: find(os.Getenv("PATH"))}, &l); got != state.SandboxOn {
		t.Errorf("with %s: %q, want on", runnerName(), got)
	}
}

func runnerName() string {
	if check.Runner != "" {
		return check.Runner
	}
	return "a sandbox program"
}
