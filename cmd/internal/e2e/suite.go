package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Suite is one host's real-CLI suite: Setup installs the host's pinned CLI (unless BinEnv
// names one, or VersionEnv another release) and builds ralph-loop once, in TestMain; Need,
// at the start of each test, skips it with the reason when the suite is off or the CLI
// cannot be had, and fails it when the setup failed.
type Suite struct {
	// Title is the host's name for people ("Qwen Code"); Package its CLI on the npm
	// registry; BinEnv the variable that may name an installed binary instead ("QWEN_BIN").
	Title   string
	Package Package
	BinEnv  string
	// Bin and RalphLoop are the host CLI and the ralph-loop binary the tests run.
	Bin, RalphLoop string

	dir      string
	skip     string
	err      error
	parallel sync.Map // the tests Need has made parallel
}

// Setup prepares the suite when RALPH_E2E=1 and says on stderr, in one line, why it skips
// otherwise.
func (s *Suite) Setup() {
	if os.Getenv("RALPH_E2E") != "1" {
		s.skip = "end-to-end test with the real " + s.Title + " CLI: run with RALPH_E2E=1 (make e2e)"
		return
	}
	ctx := context.Background()
	if v := os.Getenv(s.VersionEnv()); v != "" {
		s.Package.Version = v
		fmt.Fprintf(os.Stderr, "ralph-loop e2e (%s): %s=%s: running %s, not the pinned release\n", s.Title, s.VersionEnv(), v, s.Package.Spec())
	}
	if bin := os.Getenv(s.BinEnv); bin != "" {
		s.Bin = bin
	} else {
		if exec.Command("node", "--version").Run() != nil {
			s.skip = "node is not installed: " + s.Package.Spec() + " needs it"
		} else {
			s.skip = Unavailable(ctx, s.Package)
		}
		if s.skip != "" {
			s.skip = "SKIPPED: " + s.skip
			fmt.Fprintf(os.Stderr, "ralph-loop e2e (%s): %s\n", s.Title, s.skip)
			return
		}
		if s.Bin, s.err = InstallNPM(ctx, s.Package, os.Stderr); s.err != nil {
			return
		}
	}
	if s.dir, s.err = os.MkdirTemp("", "ralph-loop-e2e-bin-"); s.err == nil {
		s.RalphLoop, s.err = BuildRalphLoop(ctx, s.dir)
	}
}

// VersionEnv is the variable that runs the suite against another release of the host's CLI
// than the one it pins, installed from the npm registry into the cache as the pin is:
// CLAUDE_VERSION for a suite whose BinEnv is CLAUDE_BIN.
func (s *Suite) VersionEnv() string { return strings.TrimSuffix(s.BinEnv, "_BIN") + "_VERSION" }

// Main is a suite's TestMain: it sets the suite up, runs the package's tests, cleans up
// and exits with their code. Each host package's main_test.go is
//
//	var suite = e2e.Suite{Title: "Codex", Package: Package, BinEnv: "CODEX_BIN"}
//
//	func TestMain(m *testing.M) { suite.Main(m) }
//
// and its tests start with suite.Need(t), and run suite.Bin and suite.RalphLoop.
func (s *Suite) Main(m *testing.M) {
	s.Setup()
	code := m.Run()
	s.Cleanup()
	os.Exit(code)
}

// Contains checks that s, what the test names what, holds each of wants.
func Contains(t testing.TB, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// ExpectLoop checks a loop's status, iteration and tool calls, and that it is host's.
func ExpectLoop(t testing.TB, l Loop, host, status string, iteration, tools int) {
	t.Helper()
	if l.Status != status || l.Iteration != iteration || l.ToolCalls != tools || l.Host != host {
		t.Errorf("loop %s at %d/%d with %d tool calls on %q (%s); want %s at %d with %d on %s",
			l.Status, l.Iteration, l.MaxIterations, l.ToolCalls, l.Host, l.EndReason, status, iteration, tools, host)
	}
}

// Cleanup removes what Setup made.
func (s *Suite) Cleanup() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Need skips t unless the suite can run, and fails it if the setup failed; then t runs
// beside the package's other tests. Each test has a directory, a CLI home, a fake model and
// state of its own, and the suites wait on the CLIs far more than they compute, so the
// package's tests share the machine's cores instead of taking turns. Calling Need again in
// the same test (a second environment) is harmless. A test that sets the process's
// environment (the benchmarks) uses NeedAlone.
func (s *Suite) Need(t *testing.T) {
	t.Helper()
	s.need(t)
	if _, again := s.parallel.LoadOrStore(t, true); !again {
		t.Parallel()
	}
}

// NeedAlone is Need for a test that runs alone: one that sets the process's environment.
// A Need after it (in the helpers the test calls) does not make it parallel.
func (s *Suite) NeedAlone(t *testing.T) {
	t.Helper()
	s.need(t)
	s.parallel.Store(t, true)
}

func (s *Suite) need(t *testing.T) {
	t.Helper()
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatalf("setting up the %s end-to-end suite: %v", s.Title, s.err)
	}
}
