package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// realHosts runs each host's real-CLI benchmark (TestHookTime in cmd/internal/e2e/<host>,
// with RALPH_E2E=1 RALPH_BENCH=1) and prints one table: what the host waited on hooks per
// iteration of the same loop, the Stop hook alone, and at how many stops the transcript was
// behind the host's last message. Claude Code's rows compare hook sets in one run: the
// ratios to its minimal hook are what mean something on a shared machine.
func realHosts(rounds string) error {
	out, err := os.MkdirTemp("", "bench-hosts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	list, err := exec.Command("go", "list", "./cmd/internal/e2e/...").Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(list)) {
		if !strings.HasSuffix(p, "/release") && !strings.HasSuffix(p, "/tmux") && !strings.HasSuffix(p, "/fakechat") && strings.Count(p, "/e2e/") == 1 {
			pkgs = append(pkgs, p)
		}
	}
	// One host at a time (-p 1): a host measured beside another would pay for its CPU.
	args := append([]string{"test", "-p", "1", "-count=1", "-timeout", "60m", "-run", "^TestHookTime$"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "RALPH_E2E=1", "RALPH_BENCH=1", "RALPH_BENCH_OUT="+out, "RALPH_BENCH_ROUNDS="+rounds)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Println("real hosts: the same loop on each host's real CLI (offline, its fake model API), every hook process timed; this takes minutes")
	runErr := cmd.Run()
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	sort.Strings(files)
	var rows []e2e.BenchRow
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var rs []e2e.BenchRow
		if err := json.Unmarshal(data, &rs); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		rows = append(rows, rs...)
	}
	// On Claude Code each row is also given as a ratio to the Go floor (hookfloor: the least
	// a PreToolUse and a Stop hook written in Go can do), which ralph-loop's goal is set
	// against (issue 40: at most 1.5× per iteration, and for the Stop alone).
	var goFloor *e2e.BenchRow
	for i, r := range rows {
		if r.Host == "Claude Code" && strings.Contains(r.Hooks, "(hookfloor)") {
			goFloor = &rows[i]
		}
	}
	ratio := func(r e2e.BenchRow, v, floor float64) string {
		if goFloor == nil || r.Host != "Claude Code" || floor <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%.2f×)", v/floor)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "host\thooks\twaited on hooks per iteration\tthe Stop hook alone\thooks' CPU per iteration\tthe Stop's CPU\ttranscript behind the last message\trounds")
	for _, r := range rows {
		lag := "-"
		if r.Stops > 0 {
			lag = fmt.Sprintf("%d of %d stops", r.Lagged, r.Stops)
		}
		var f e2e.BenchRow
		if goFloor != nil {
			f = *goFloor
		}
		fmt.Fprintf(w, "%s\t%s\t%.1f ms%s\t%.1f ms%s\t%.1f ms%s\t%.1f ms%s\t%s\t%d\n", r.Host, r.Hooks,
			r.PerIteration, ratio(r, r.PerIteration, f.PerIteration), r.Stop, ratio(r, r.Stop, f.Stop),
			r.CPU, ratio(r, r.CPU, f.CPU), r.StopCPU, ratio(r, r.StopCPU, f.StopCPU), lag, r.Rounds)
	}
	if goFloor != nil {
		fmt.Fprintln(w, "(×: on Claude Code, the ratio to the Go floor, hookfloor, measured in the same run)")
	}
	w.Flush()
	if len(rows) == 0 {
		fmt.Println("real hosts: no host ran (their CLIs are installed by make e2e's suites; see the skips above)")
	}
	return runErr
}
