package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's comparison on the real Claude Code: the same loop of
// e2e.BenchIterations iterations (each one Bash call, then a text turn) under several hook
// sets, every hook command wrapped in the same timer (cmd/internal/hooktimer), the sets
// alternating round by round: a minimal sh Stop hook that blocks 9 times; the floor of any
// hook written in Go, a PreToolUse and a Stop hook of a Go program that only reads its
// input and blocks the same way (cmd/internal/hookfloor); the same program keeping the
// least state a loop needs, signed and changed under a lock (hookfloor signed); the official
// ralph-loop plugin's stop-hook.sh, when RALPH_BENCH_OFFICIAL names a copy of it (it is not
// on a registry and its license does not let it be kept here); ralph-loop, as install
// writes its hooks; and, when RALPH_BENCH_BEFORE names another ralph-loop binary (an
// earlier build, at an absolute path ending in /ralph-loop), that one installed the same
// way, to compare a change in one run. The sets take turns in both orders (reversed every
// other round; give an even RALPH_BENCH_ROUNDS). It reports what Claude Code waited on hooks per
// iteration (not the hooks it runs in the background, "async"), and on the Stop hook alone
// (medians), the CPU time of all of them, and, for ralph-loop, at how many stops the
// transcript did not show the last message yet.
func TestHookTime(t *testing.T) {
	timer := suite.BenchTimer(t)
	dir := t.TempDir()
	floor, err := e2e.BuildFloor(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	minimal := filepath.Join(dir, "minimal.sh")
	if err := e2e.WriteProgram(minimal, []byte(minimalStop)); err != nil {
		t.Fatal(err)
	}
	type set struct {
		name  string
		setup func(t *testing.T, env *e2e.Env, log string) string // returns the prompt
		bin   string                                              // the ralph-loop binary ("": the suite's)
		floor bool                                                // it runs the floor's hooks
	}
	sets := []set{
		{name: "a minimal sh Stop hook that blocks 9 times", setup: func(t *testing.T, env *e2e.Env, log string) string {
			writeHooks(t, env, map[string]string{"Stop": timed(timer, log, "Stop", "sh "+minimal+" "+filepath.Join(env.Tmp, "count"))})
			return "Do the task."
		}},
		{name: "a minimal Go PreToolUse and Stop hook (hookfloor)", floor: true, setup: func(t *testing.T, env *e2e.Env, log string) string {
			count := filepath.Join(env.Tmp, "count")
			writeHooks(t, env, map[string]string{
				"PreToolUse": timed(timer, log, "PreToolUse", "exec "+floor+" allow"),
				"Stop":       timed(timer, log, "Stop", "exec "+floor+" stop "+count),
			})
			return "Do the task."
		}},
		{name: "a minimal Go hook keeping a signed, locked state (hookfloor signed)", floor: true, setup: func(t *testing.T, env *e2e.Env, log string) string {
			state := filepath.Join(env.Tmp, "signed")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			writeHooks(t, env, map[string]string{
				"PreToolUse": timed(timer, log, "PreToolUse", "exec "+floor+" signed-check "+state),
				"Stop":       timed(timer, log, "Stop", "exec "+floor+" signed-stop "+state),
			})
			return "Do the task."
		}},
	}
	if official := os.Getenv("RALPH_BENCH_OFFICIAL"); official != "" {
		sets = append(sets, set{name: "the official plugin's stop-hook.sh", setup: func(t *testing.T, env *e2e.Env, log string) string {
			writeHooks(t, env, map[string]string{"Stop": timed(timer, log, "Stop", "bash "+official)})
			state := fmt.Sprintf("---\nactive: true\niteration: 1\nmax_iterations: %d\ncompletion_promise: \"DONE\"\n---\n\nDo the task.\n", e2e.BenchIterations)
			if err := os.WriteFile(filepath.Join(env.Project, ".claude", "ralph-loop.local.md"), []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			return "Do the task."
		}})
	}
	installed := func(t *testing.T, env *e2e.Env, log string) string {
		if err := env.Install(context.Background()); err != nil {
			t.Fatal(err)
		}
		timeInstalled(t, env, timer, log)
		return fmt.Sprintf(`/ralph-loop "Do the task." --max-iterations %d --min-tool-calls 0`, e2e.BenchIterations)
	}
	if before := os.Getenv("RALPH_BENCH_BEFORE"); before != "" {
		if filepath.Base(before) != "ralph-loop" || !filepath.IsAbs(before) {
			// The project's hooks run the ralph-loop on PATH, as a user's do.
			t.Fatalf("RALPH_BENCH_BEFORE=%s: give the absolute path of a binary named ralph-loop", before)
		}
		sets = append(sets, set{name: "ralph-loop before (RALPH_BENCH_BEFORE), as install writes it", setup: installed, bin: before})
	}
	sets = append(sets, set{name: "ralph-loop, as install writes it", setup: installed})
	var turns []e2e.Turn
	for i := 1; i <= e2e.BenchIterations; i++ {
		turns = append(turns, e2e.Bash(fmt.Sprintf("Step %d.", i), e2e.BenchCommand(i)), e2e.Text("Not done yet."))
	}
	per, cpu := make([][]float64, len(sets)), make([][]float64, len(sets))
	stop, stopCPU := make([][]float64, len(sets)), make([][]float64, len(sets))
	lagged, stops := make([]int, len(sets)), make([]int, len(sets))
	for round := 0; round < e2e.BenchRounds(); round++ {
		// Each set runs in every slot of a round: the order is reversed every other round,
		// so that no set always runs just after the same one (or first, on a cold cache).
		order := make([]int, len(sets))
		for i := range order {
			order[i] = i
			if round%2 == 1 {
				order[i] = len(sets) - 1 - i
			}
		}
		for _, i := range order {
			s := sets[i]
			bin := suite.RalphLoop
			if s.bin != "" {
				bin = s.bin
			}
			env, err := e2e.NewEnv(filepath.Join(dir, fmt.Sprintf("r%d-%d", round, i)), suite.Bin, bin)
			if err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(env.Root, "hooks.log")
			e2e.BenchRepo(t, env.Project)
			prompt := s.setup(t, env, log)
			// Every set's programs start from the same page cache (see e2e.Settle).
			if s.floor {
				e2e.Settle(t, floor, "allow")
			}
			if strings.HasPrefix(s.name, "ralph-loop") {
				e2e.Settle(t, bin, "version")
			}
			res, err := env.Run(context.Background(), e2e.Session{Script: e2e.Script{Turns: turns}, Prompts: []string{prompt}, Timeout: 10 * time.Minute})
			if err != nil {
				h, _ := e2e.ReadHookTimes(log)
				t.Fatalf("%s: %v (%d hooks ran: %v)", s.name, err, h.Runs, h.ByLabel)
			}
			if n := len(res.Fake.MainRequests()); n != 2*e2e.BenchIterations {
				h, _ := e2e.ReadHookTimes(log)
				out, _ := env.RalphLoopCmd(context.Background(), "log", "--session", res.SessionID)
				t.Fatalf("%s: %d model requests, want %d (%d iterations); hooks: %s; ralph-loop log:\n%s", s.name, n, 2*e2e.BenchIterations, e2e.BenchIterations, h.Breakdown(), out)
			}
			h, err := e2e.ReadHookTimes(log)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, round %d: %d hook processes; per label (wall, CPU): %s", s.name, round+1, h.Runs, h.Breakdown())
			per[i] = append(per[i], e2e.PerIteration(h.Waited()))
			stop[i] = append(stop[i], e2e.PerIteration(h.ByLabel["Stop"]))
			cpu[i] = append(cpu[i], e2e.PerIteration(h.CPU))
			stopCPU[i] = append(stopCPU[i], e2e.PerIteration(h.CPUByLabel["Stop"]))
			if strings.HasPrefix(s.name, "ralph-loop") {
				l := loopOf(t, env, res.SessionID)
				expectLoop(t, l, "MAX_ITERATIONS_REACHED", e2e.BenchIterations, e2e.BenchIterations)
				n, m := e2e.Lag(l)
				lagged[i], stops[i] = lagged[i]+n, stops[i]+m
			}
		}
	}
	var rows []e2e.BenchRow
	for i, s := range sets {
		r := e2e.BenchRow{Host: "Claude Code", Hooks: s.name, Rounds: len(per[i]), PerIteration: e2e.Median(per[i]), Stop: e2e.Median(stop[i]),
			CPU: e2e.Median(cpu[i]), StopCPU: e2e.Median(stopCPU[i])}
		if strings.HasPrefix(s.name, "ralph-loop") {
			r.Lagged, r.Stops = lagged[i], stops[i]
		}
		rows = append(rows, r)
	}
	e2e.WriteBench(t, "claude", rows)
}

// minimalStop is the floor: a Stop hook of shell builtins that blocks 9 times (counting in
// the file it is given), then lets the stop through.
const minimalStop = `n=0
read n < "$1" 2>/dev/null
if [ "$n" -lt 9 ]; then
  echo $((n + 1)) > "$1"
  echo '{"decision":"block","reason":"Go on with the task."}'
fi
`

// timed is a hook command run through the timer, labelled.
func timed(timer, log, label, command string) string {
	return timer + " " + log + " " + shellQuote(label) + " -- sh -c " + shellQuote(command)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// writeHooks writes the project's .claude/settings.json with one command hook per event.
func writeHooks(t *testing.T, env *e2e.Env, hooks map[string]string) {
	t.Helper()
	settings := map[string]any{"hooks": map[string]any{}}
	for event, command := range hooks {
		settings["hooks"].(map[string]any)[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}}
	}
	writeSettings(t, env, settings)
}

// timeInstalled wraps every hook command install wrote into the project's settings in the
// timer, labelled with its event.
func timeInstalled(t *testing.T, env *e2e.Env, timer, log string) {
	t.Helper()
	settings := projectSettings(t, env)
	hooks, _ := settings["hooks"].(map[string]any)
	for event, groups := range hooks {
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				hm := h.(map[string]any)
				label := event
				if hm["async"] == true {
					label += e2e.AsyncLabel // Claude Code does not wait for it
				}
				hm["command"] = timed(timer, log, label, hm["command"].(string))
			}
		}
	}
	writeSettings(t, env, settings)
}

func writeSettings(t *testing.T, env *e2e.Env, settings map[string]any) {
	t.Helper()
	data, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.MkdirAll(filepath.Join(env.Project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Project, ".claude", "settings.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
