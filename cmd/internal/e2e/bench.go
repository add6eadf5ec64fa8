package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The real-host benchmark of "make bench": each host's suite has a TestHookTime that runs a
// loop of BenchIterations iterations (each one tool call, then a text turn) on the real CLI
// with every hook process timed by cmd/internal/hooktimer, and reports what the host waited
// on hooks per iteration. It runs only with RALPH_BENCH=1 (and RALPH_E2E=1); make bench sets
// both and prints the table (cmd/internal/bench).

// BenchIterations is how many iterations a benchmark loop runs: it blocks that many stops
// less one, and lets the last through.
const BenchIterations = 10

// BenchRepo makes dir, a benchmark loop's project, a git repository with one commit, as a
// user's project is: the stall breaker (on by default) reads the work tree there, and what
// that costs is in the figure.
func BenchRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("a project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
}

// BenchCommand is the shell command of a benchmark loop's iteration i: it changes a file
// of the project, as an iteration's work does (a loop whose commands change nothing ends
// NO_PROGRESS after --max-stalls iterations).
func BenchCommand(i int) string { return fmt.Sprintf("echo step %d >> steps.txt", i) }

// NeedBench skips t unless the real-host benchmark was asked for.
func NeedBench(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_BENCH") != "1" {
		t.Skip("the real-host benchmark: run with RALPH_BENCH=1 RALPH_E2E=1 (make bench)")
	}
}

// BenchRounds is how many times each configuration runs (RALPH_BENCH_ROUNDS, default 3):
// the configurations of one host alternate, round by round, and the medians are reported.
func BenchRounds() int {
	if n, err := strconv.Atoi(os.Getenv("RALPH_BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}

// BuildTimer builds cmd/internal/hooktimer into dir.
func BuildTimer(ctx context.Context, dir string) (string, error) {
	return buildTool(ctx, dir, "hooktimer")
}

// BuildFloor builds cmd/internal/hookfloor, the floor of a Go hook, into dir and returns
// its path.
func BuildFloor(ctx context.Context, dir string) (string, error) {
	return buildTool(ctx, dir, "hookfloor")
}

// buildTool builds cmd/internal/name into dir and returns its path.
func buildTool(ctx context.Context, dir, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "github.com/ralph-loop/ralph-loop/cmd/internal/"+name)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v: %s", name, err, b)
	}
	return out, nil
}

// TimedRalphLoop makes dir/ralph-loop the timer standing for the ralph-loop binary real,
// logging each hook it runs to log, and returns its path: a host whose hooks run
// "ralph-loop" from PATH (dir first) runs them timed, as its installer wrote them. The
// environment of the test process (which the hosts pass on to their hooks) tells it real
// and log.
func TimedRalphLoop(t *testing.T, timer, dir, real, log string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ralph-loop")
	data, err := os.ReadFile(timer)
	if err == nil {
		err = WriteProgram(path, data)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RALPH_HOOKTIMER_REAL", real)
	t.Setenv("RALPH_HOOKTIMER_LOG", log)
	return path
}

// HookTimes are the timer's log of one run: the total wall time of the hook processes, and
// each label's; and the same of their CPU time (user and system, with the processes they
// waited for), which a loaded machine changes less than wall time.
type HookTimes struct {
	Total      time.Duration
	ByLabel    map[string]time.Duration
	CPU        time.Duration
	CPUByLabel map[string]time.Duration
	Runs       int
	// RunsByLabel counts the hook processes of each label.
	RunsByLabel map[string]int
}

// AsyncLabel ends the label of a hook the host runs in the background, without waiting for
// it (Claude Code's "async": true): its time is not in HookTimes.Waited.
const AsyncLabel = " (async)"

// Waited is the hooks' wall time the host waited for: all but the async hooks'.
func (h HookTimes) Waited() time.Duration {
	w := h.Total
	for l, d := range h.ByLabel {
		if strings.HasSuffix(l, AsyncLabel) {
			w -= d
		}
	}
	return w
}

// Breakdown is the hooks' wall and CPU time per label, each the label's runs and its
// total in milliseconds, sorted by label.
func (h HookTimes) Breakdown() string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(h.ByLabel)) {
		parts = append(parts, fmt.Sprintf("%s %d× %.1f/%.1f ms", l, h.RunsByLabel[l], ms(h.ByLabel[l]), ms(h.CPUByLabel[l])))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ReadHookTimes reads a timer's log.
func ReadHookTimes(log string) (HookTimes, error) {
	h := HookTimes{ByLabel: map[string]time.Duration{}, CPUByLabel: map[string]time.Duration{}, RunsByLabel: map[string]int{}}
	f, err := os.Open(log)
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Label string `json:"label"`
			NS    int64  `json:"ns"`
			CPU   int64  `json:"cpu_ns"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		h.Total += time.Duration(l.NS)
		h.ByLabel[l.Label] += time.Duration(l.NS)
		h.CPU += time.Duration(l.CPU)
		h.CPUByLabel[l.Label] += time.Duration(l.CPU)
		h.Runs++
		h.RunsByLabel[l.Label]++
	}
	return h, sc.Err()
}

// BenchRow is one configuration's result: what the host waited on hooks per iteration, and
// on the stop hook alone (medians over the rounds), and how many of the loop's stops found
// the transcript behind the host's last message.
type BenchRow struct {
	Host         string  `json:"host"`
	Hooks        string  `json:"hooks"`
	Rounds       int     `json:"rounds"`
	PerIteration float64 `json:"per_iteration_ms"`
	Stop         float64 `json:"stop_ms"`
	// CPU and StopCPU are the same of the hooks' CPU time (user and system).
	CPU     float64 `json:"cpu_per_iteration_ms"`
	StopCPU float64 `json:"stop_cpu_ms"`
	Lagged  int     `json:"lagged,omitempty"`
	Stops   int     `json:"stops,omitempty"`
	Note    string  `json:"note,omitempty"`
}

// Median is the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// PerIteration is a duration per benchmark iteration, in milliseconds.
func PerIteration(d time.Duration) float64 { return PerIterationOf(d, BenchIterations) }

// PerIterationOf is a duration per iteration of a loop of n, in milliseconds.
func PerIterationOf(d time.Duration, n int) float64 {
	return float64(d.Microseconds()) / 1000 / float64(n)
}

// BenchTimer readies t as s's host's real-CLI benchmark, and returns the hook timer built
// for it: t skips unless the benchmark was asked for (NeedBench) and the suite can run; it
// runs alone (the benchmark sets the process's environment).
func (s *Suite) BenchTimer(t *testing.T) string {
	t.Helper()
	NeedBench(t)
	s.NeedAlone(t)
	timer, err := BuildTimer(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return timer
}

// Bench is BenchHost for s's host, its timer made by BenchTimer and its ralph-loop the
// suite's.
func (s *Suite) Bench(t *testing.T, host, name, stop string, iterations int, run func(t *testing.T, root, ralphLoop string) Loop, background ...string) {
	t.Helper()
	BenchHost(t, host, name, stop, iterations, s.BenchTimer(t), s.RalphLoop, run, background...)
}

// BenchTurns is the agent's script of a benchmark loop of n iterations, in a host's turns:
// each iteration one shell call (BenchCommand), then a text turn without the promise.
func BenchTurns[T any](n int, shell func(text, command string) T, text func(string) T) []T {
	var turns []T
	for i := 1; i <= n; i++ {
		turns = append(turns, shell("", BenchCommand(i)), text(fmt.Sprintf("Iteration %d: not done yet.", i)))
	}
	return turns
}

// BenchOnPath readies e, whose hooks run the ralph-loop on PATH (a project's plugin or
// extension), for a benchmark loop: its project the benchmark's repository (BenchRepo),
// ralph-loop (the timer standing for it) on its PATH, and installed at project scope.
func BenchOnPath(t *testing.T, e interface {
	Installer
	OnPath() error
}, project string) {
	t.Helper()
	BenchRepo(t, project)
	if err := e.OnPath(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Install(context.Background(), "project"); err != nil {
		t.Fatal(err)
	}
}

// BenchPrompt arms a benchmark loop of n iterations.
func BenchPrompt(n int) string {
	return fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d`, n)
}

// BenchHost is a host's real-CLI benchmark: rounds of run, each a loop of iterations
// iterations in a fresh world under root with ralph-loop's hooks installed at project scope
// (they run "ralph-loop" from PATH, where the timer stands for it: see TimedRalphLoop; run
// is given its path, for the world's ralph-loop). run returns the loop, with its events,
// which must end at its last iteration. The row says what the host waited
// on ralph-loop's hook processes per iteration, on the stop hook alone (the events labelled
// stop; "" when the host's stop input does not name its event), and at how many stops the
// transcript was behind. The events labelled background are ones the host does not wait
// for (a plugin logs the call in the background): their time is not in what it waited.
func BenchHost(t *testing.T, host, name, stop string, iterations int, timer, real string, run func(t *testing.T, root, ralphLoop string) Loop, background ...string) {
	t.Helper()
	dir := t.TempDir()
	wrapper := TimedRalphLoop(t, timer, filepath.Join(dir, "bin"), real, filepath.Join(dir, "none.log"))
	t.Setenv("PATH", filepath.Dir(wrapper)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var per, stops, cpu, stopCPU []float64
	row := BenchRow{Host: host, Hooks: "ralph-loop, as install writes it"}
	for round := 0; round < BenchRounds(); round++ {
		log := filepath.Join(dir, fmt.Sprintf("hooks-%d.log", round))
		t.Setenv("RALPH_HOOKTIMER_LOG", log)
		l := run(t, filepath.Join(dir, fmt.Sprint(round)), wrapper)
		if l.Iteration != iterations {
			t.Fatalf("the loop ended %s at %d/%d; want it at %d", l.Status, l.Iteration, l.MaxIterations, iterations)
		}
		h, err := ReadHookTimes(log)
		if err != nil || h.Runs == 0 {
			t.Fatalf("no hook was timed (%v): do the hooks run ralph-loop from PATH?", err)
		}
		t.Logf("round %d: %d hook processes; per label (wall, CPU): %s", round+1, h.Runs, h.Breakdown())
		waited := h.Total
		for _, l := range background {
			waited -= h.ByLabel[l]
		}
		per = append(per, PerIterationOf(waited, iterations))
		stops = append(stops, PerIterationOf(h.ByLabel[stop], iterations))
		cpu = append(cpu, PerIterationOf(h.CPU, iterations))
		stopCPU = append(stopCPU, PerIterationOf(h.CPUByLabel[stop], iterations))
		n, m := Lag(l)
		row.Lagged, row.Stops = row.Lagged+n, row.Stops+m
	}
	row.Rounds, row.PerIteration, row.Stop = len(per), Median(per), Median(stops)
	row.CPU, row.StopCPU = Median(cpu), Median(stopCPU)
	if stop == "" {
		row.Note = "(its stop input names no event: the stop alone is not told apart)"
	}
	WriteBench(t, name, []BenchRow{row})
}

// Lag counts a loop's stop decisions, and those made while the transcript did not show the
// host's last message yet (decided at once, or after waiting for it).
func Lag(l Loop) (lagged, stops int) {
	for _, e := range l.Events {
		switch e.Action {
		case "blocked", "accepted", "max_iterations", "budget", "cut_by_host", "time_budget", "no_progress", "yielded", "paused":
			stops++
			if strings.Contains(e.Reason, "did not show the last message") || strings.Contains(e.Reason, "for the transcript to catch up") {
				lagged++
			}
		}
	}
	return lagged, stops
}

// WriteBench reports rows: in the test's log, and in $RALPH_BENCH_OUT/<name>.json for make
// bench's table.
func WriteBench(t *testing.T, name string, rows []BenchRow) {
	t.Helper()
	for _, r := range rows {
		t.Logf("%s, %s: %.1f ms per iteration (CPU %.1f ms), stop %.1f ms (CPU %.1f ms), transcript behind at %d of %d stops (%d rounds) %s",
			r.Host, r.Hooks, r.PerIteration, r.CPU, r.Stop, r.StopCPU, r.Lagged, r.Stops, r.Rounds, r.Note)
	}
	dir := os.Getenv("RALPH_BENCH_OUT")
	if dir == "" {
		return
	}
	data, _ := json.MarshalIndent(rows, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
		t.Error(err)
	}
}

// Settle puts a benchmark's program in the page cache as a user's installed one is after
// the machine started: dropped from it, then read back by running it once (args; its
// input is empty, its output thrown away). How a binary came into the page cache changes
// how long it takes to start, by more than the differences the benchmark measures: on
// Linux 6.18 and ext4, ralph-loop's start (an event it ignores) took 2.0–2.2 ms freshly
// linked or read back from the disk, and 1.6 ms once copied with cp, which writes it in
// large pieces (the floor's 1.4 and 1.25 ms); a build given as RALPH_BENCH_BEFORE, copied
// into place, ran 1.2 ms per iteration faster than the same build as the suite's, linked
// just before. Each set's programs are settled before each of its runs.
func Settle(t *testing.T, path string, args ...string) {
	t.Helper()
	if err := dropCached(path); err != nil {
		t.Logf("settle %s: %v (it runs as it is cached)", path, err)
	}
	cmd := exec.Command(path, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("settle %s: run %s: %v", path, strings.Join(args, " "), err)
	}
}
