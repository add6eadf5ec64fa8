package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Sandbox is the sandbox a loop's checks run in when the host runs the agent's shell in one:
// the same roots (state.SandboxRoots), so that a check, which runs what the agent wrote
// (a test script, a Makefile, go test), does no more than the agent's own shell may. A
// check writes only in the writable roots, with the read-only paths inside them (the
// host's deny list, and ralph-loop's own files) kept read-only, and a temporary directory
// of its own ($TMPDIR, removed after it); it reaches no network, connects to no Unix
// socket (a session bus or a daemon would run what it asks outside), and starts no
// process outside (a session and a process namespace of its own). Linux: bubblewrap, as
// Claude Code and Codex run the agent's shell; macOS: sandbox-exec (Seatbelt).
type Sandbox struct {
	// Writable are the directories the checks may write; ReadOnly the paths inside them
	// they may not.
	Writable, ReadOnly []string
	// Runner is the sandbox's program: bubblewrap's path on Linux (found on PATH outside
	// the project), sandbox-exec's on macOS.
	Runner string
}

// Unavailable says why checks cannot run in the sandbox here ("" when they can): the system
// has no sandbox ralph-loop can run, its program is missing, or it cannot start (a kernel
// that refuses namespaces). It runs the sandbox once, with nothing in it.
func (w Sandbox) Unavailable(ctx context.Context) string {
	if w.Runner == "" {
		return unavailable()
	}
	dir, err := os.MkdirTemp("", "check-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	cmd, closeFiles, err := w.command(ctx, "true", dir, dir)
	if err != nil {
		return err.Error()
	}
	defer closeFiles()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s does not start here: %v: %.200s", filepath.Base(w.Runner), err, out)
	}
	return ""
}

// existing are the paths that exist, with their symbolic links resolved (a bind mount
// needs what it binds, and binds where the link leads).
func existing(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// errUnsupportedArch: the seccomp filter is written for amd64 and arm64.
var errUnsupportedArch = fmt.Errorf("no seccomp filter for the checks on this processor")
