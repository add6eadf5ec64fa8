package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// events.jsonl is a run's events, as go test -json prints them: a package passes (one test
// skipped, with its reason shown), another fails (its failing test's output shown), a third
// does not build.
func events(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
func TestSummarize(t *testing.T) {
	var out bytes.Buffer
	counts, failed := summarize(strings.NewReader(events(t)), &out, false, true)
	if !failed {
		t.Error("a run with a failed test is not failed")
	}
	for _, want := range []string{"needs tmux", "got 1, want 2", "ok  \tx/a", "[build failed]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN") || strings.Contains(out.String(), "passing subtest") {
		t.Errorf("output has a passing test's lines:\n%s", out.String())
	}
	tally := filepath.Join(t.TempDir(), "tally")
	f, _ := os.Create(tally)
	for _, c := range counts {
		if c.Name == "x/a" || c.Name == "x/c" {
			c.Name = "unit and script tests" // as -as names them
		}
		b, _ := jsonLine(c)
		f.Write(b)
	}
	f.Close()
	var rep bytes.Buffer
	if code := printReport(&rep, tally); code != 1 {
		t.Errorf("report of a failed run exits %d, want 1", code)
	}
	for _, want := range []string{
		"unit and script tests:    1 passed, 0 failed, 1 skipped (a package failed to build or run: see above)",
		"real-CLI suite helpers:   1 passed, 0 failed, 0 skipped",
		"codex (real CLI):         0 passed, 1 failed, 0 skipped",
		"\n2 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, rep.String())
		}
	}
}

// A process running from the tests' temporary directory, and a file in it, fail the
// check; the process is killed.
func TestLeftovers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if code := checkLeftovers(&out, dir); code != 0 {
		t.Fatalf("an empty directory fails the check: %s", out.String())
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.Command(sleep, "60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	os.WriteFile(filepath.Join(dir, "left"), nil, 0o644)
	out.Reset()
	if code := checkLeftovers(&out, dir); code != 1 {
		t.Errorf("check passed with a process and a file left: %s", out.String())
	}
	if !strings.Contains(out.String(), "sleep 60") || !strings.Contains(out.String(), "left in the temporary directory") {
		t.Errorf("check does not name what was left:\n%s", out.String())
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Error("the process left running was not killed")
	}
}

func jsonLine(c count) ([]byte, error) {
	var b bytes.Buffer
	err := json.NewEncoder(&b).Encode(c)
	return b.Bytes(), err
}
