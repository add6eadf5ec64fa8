package gemini

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

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
	} else if !installed() && !reachable(ctx) {
		skipWhy = fmt.Sprintf("SKIPPED the Gemini CLI end-to-end suite: %s is not installed in the cache and npm cannot reach the registry", CLI.Spec())
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

// installed reports whether the pinned CLI is in the cache already.
func installed() bool {
	cache, err := e2e.CacheDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(cache + "/gemini-cli-" + Version + "/node_modules/.bin/gemini")
	return err == nil
}

// reachable asks npm about the pinned version without retries, so that an offline
// machine answers fast.
func reachable(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "npm", "view", CLI.Spec(), "version", "--fetch-retries=0").Run() == nil
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
