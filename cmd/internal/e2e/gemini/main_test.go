package gemini

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real Gemini CLI. It is on when RALPH_E2E=1 (make e2e); otherwise every
// test skips and says why. It also skips, saying so in one line, when the CLI is not in the
// cache and the npm registry cannot be reached to install it.
var (
	geminiBin, ralphBin string
	setupErr            error
	skipWhy             string
)

func TestMain(m *testing.M) {
	if os.Getenv("RALPH_E2E") != "1" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ralph-loop-e2e-gemini-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	if bin := os.Getenv("GEMINI_BIN"); bin != "" {
		geminiBin = bin
	} else if why := e2e.Unavailable(ctx, CLI); why != "" {
		skipWhy = "SKIPPED the Gemini CLI end-to-end suite: " + why
		fmt.Println("ralph-loop e2e: " + skipWhy)
	} else {
		geminiBin, setupErr = e2e.InstallNPM(ctx, CLI, os.Stderr)
	}
	if setupErr == nil && skipWhy == "" {
		ralphBin, setupErr = e2e.BuildRalphLoop(ctx, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips a test unless the end-to-end suite is on and Gemini CLI is at hand, and fails
// it if setup failed.
func need(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_E2E") != "1" {
		t.Skip("end-to-end test with the real Gemini CLI: run with RALPH_E2E=1 (make e2e)")
	}
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if setupErr != nil {
		t.Fatalf("setting up the Gemini CLI end-to-end suite: %v", setupErr)
	}
}
