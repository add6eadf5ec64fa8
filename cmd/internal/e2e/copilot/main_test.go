package copilot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real GitHub Copilot CLI. It is on when RALPH_E2E=1 (make e2e); otherwise
// every test skips and says why. Without npm's registry (and no cached install) it skips
// too, saying so.
var (
	copilotBin, ralphBin string
	setupErr             error
	skipWhy              string
)

func TestMain(m *testing.M) {
	if os.Getenv("RALPH_E2E") == "1" {
		ctx := context.Background()
		switch {
		case os.Getenv("COPILOT_BIN") == "" && exec.Command("node", "--version").Run() != nil:
			skipWhy = "node is not installed: Copilot CLI " + Version + " needs it"
		case os.Getenv("COPILOT_BIN") == "":
			skipWhy = e2e.Unavailable(ctx, Copilot)
		}
		if skipWhy != "" {
			fmt.Fprintln(os.Stderr, "ralph-loop e2e (copilot): SKIPPED: "+skipWhy)
			os.Exit(m.Run())
		}
		dir, err := os.MkdirTemp("", "ralph-loop-e2e-copilot-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if copilotBin, setupErr = Install(ctx, os.Stderr); setupErr == nil {
			ralphBin, setupErr = e2e.BuildRalphLoop(ctx, dir)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// need skips a test unless the end-to-end suite is on and Copilot CLI can be had, and fails
// it if setup failed.
func need(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_E2E") != "1" {
		t.Skip("end-to-end test with the real GitHub Copilot CLI: run with RALPH_E2E=1 (make e2e)")
	}
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if setupErr != nil {
		t.Fatalf("setting up the end-to-end suite: %v", setupErr)
	}
}
