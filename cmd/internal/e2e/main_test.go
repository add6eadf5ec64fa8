package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// The suite runs the real Claude Code CLI. It is on when RALPH_E2E=1 (make e2e, and
// make test when the npm registry is reachable); otherwise every test skips and says why.
var (
	claudeBin, ralphBin string
	setupErr            error
	skipWhy             string
)

func TestMain(m *testing.M) {
	if os.Getenv("RALPH_E2E") == "1" {
		dir, err := os.MkdirTemp("", "ralph-loop-e2e-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ctx := context.Background()
		if os.Getenv("CLAUDE_BIN") == "" {
			skipWhy = Unavailable(ctx, Claude)
		}
		if skipWhy != "" {
			fmt.Fprintln(os.Stderr, "ralph-loop e2e (claude): SKIPPED: "+skipWhy)
		} else if claudeBin, setupErr = InstallClaude(ctx, os.Stderr); setupErr == nil {
			ralphBin, setupErr = BuildRalphLoop(ctx, dir)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// need skips a test unless the end-to-end suite is on, and fails it if setup failed.
func need(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_E2E") != "1" {
		t.Skip("end-to-end test with the real Claude Code CLI: run with RALPH_E2E=1 (make e2e)")
	}
	if skipWhy != "" {
		t.Skip("SKIPPED: " + skipWhy)
	}
	if setupErr != nil {
		t.Fatalf("setting up the end-to-end suite: %v", setupErr)
	}
}
