package codex

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real Codex CLI. It is on when RALPH_E2E=1 (make e2e); otherwise every
// test skips and says why. Codex is installed once into the user cache from the npm
// registry; when it is not there yet and the registry cannot be reached, every test skips
// with one line saying so.
var (
	codexBin, ralphBin string
	setupErr           error
	skipWhy            string
)

func TestMain(m *testing.M) {
	if os.Getenv("RALPH_E2E") != "1" {
		skipWhy = "end-to-end test with the real Codex CLI: run with RALPH_E2E=1 (make e2e)"
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ralph-loop-e2e-codex-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	if why := e2e.Unavailable(ctx, Package); os.Getenv("CODEX_BIN") == "" && why != "" {
		skipWhy = "SKIPPED: " + why
		fmt.Fprintln(os.Stderr, "ralph-loop e2e (codex): "+skipWhy)
	} else if codexBin, setupErr = Install(ctx, os.Stderr); setupErr == nil {
		ralphBin, setupErr = e2e.BuildRalphLoop(ctx, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips a test unless the suite can run, and fails it if setup failed.
func need(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if setupErr != nil {
		t.Fatalf("setting up the Codex end-to-end suite: %v", setupErr)
	}
}
