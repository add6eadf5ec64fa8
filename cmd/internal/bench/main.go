// Command bench measures the ralph-loop hook the way Claude Code runs it: whole processes
// of the built binary (fork, exec, event JSON on stdin, stdout read), many times each, with
// wall time and peak RSS, and prints one table. It is "make bench".
//
//	go run ./cmd/internal/bench [-bin bin/ralph-loop] [-runs 20] [-sizes 1MB,100MB,1GB]
//	go run ./cmd/internal/bench gen -size 100MB FILE   # only write a synthetic transcript
//	go run ./cmd/internal/bench hosts [ROUNDS]          # the real hosts' table (see hosts.go)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "gen" {
		if err := genCommand(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench gen:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "append" {
		if err := appendCommand(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench append:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "hosts" {
		rounds := "3"
		if len(os.Args) > 2 {
			rounds = os.Args[2]
		}
		if err := realHosts(rounds); err != nil {
			fmt.Fprintln(os.Stderr, "bench hosts:", err)
			os.Exit(1)
		}
		return
	}
	only := ""
	if len(os.Args) > 1 && os.Args[1] == "git" {
		only, os.Args = "git", append(os.Args[:1], os.Args[2:]...)
	}
	bin := flag.String("bin", "bin/ralph-loop", "the ralph-loop binary to measure")
	runs := flag.Int("runs", 20, "runs per case")
	sizes := flag.String("sizes", "1MB,100MB,1GB", "transcript sizes for case 4")
	dir := flag.String("dir", "", "work directory (default: a temporary one, removed at the end)")
	flag.Parse()
	b, err := newBench(*bin, *runs, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer b.cleanup()
	run := func() error { return b.all(strings.Split(*sizes, ",")) }
	if only == "git" {
		run = func() error {
			if err := b.gitLoopCase(); err != nil {
				return err
			}
			b.print(os.Stdout)
			return nil
		}
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = v, u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}

func genCommand(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	size := fs.String("size", "100MB", "how much to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: gen -size SIZE FILE")
	}
	n, err := parseSize(*size)
	if err != nil {
		return err
	}
	f, err := os.Create(fs.Arg(0))
	if err != nil {
		return err
	}
	g := newGen(f, "bench-session", time.Now().Add(-24*time.Hour), 1)
	g.fill(n, "All done for now.")
	if err := g.flush(); err != nil {
		return err
	}
	return f.Close()
}

type bench struct {
	bin, dir string
	runs     int
	keep     bool
	env      []string
	rows     []row
	// concurrent is set while many children run at once: then the peak is not reset
	// before each (it would race), and the floor is the one measured before.
	concurrent bool
	lastFloor  int64
}

func (b *bench) floor() int64 {
	if !b.concurrent {
		b.lastFloor = resetPeak()
	}
	return b.lastFloor
}

type row struct {
	name             string
	runs             int
	median, p99, max time.Duration
	rssKB, floorKB   int64
	cpu              time.Duration // mean CPU time (user and system)
	note             string
}

func newBench(bin string, runs int, dir string) (*bench, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%s: %w (run make build)", bin, err)
	}
	b := &bench{bin: abs, runs: runs, dir: dir, keep: dir != ""}
	if dir == "" {
		if b.dir, err = os.MkdirTemp("", "ralph-loop-bench-"); err != nil {
			return nil, err
		}
	}
	b.env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(b.dir, "state"), "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0")
	return b, nil
}

func (b *bench) cleanup() {
	if !b.keep {
		os.RemoveAll(b.dir)
	}
}

// sample is one process run.
type sample struct {
	wall    time.Duration
	rssKB   int64
	floorKB int64 // this process's RSS when the child started, which Linux counts in
	out     []byte
	// cpu is the child's user and system time, with the processes it waited for (git).
	cpu time.Duration
}

// exec runs the binary once with stdin and returns its wall time (fork to exit, stdout
// read) and peak RSS.
func (b *bench) exec(stdin []byte, args ...string) (sample, error) {
	cmd := exec.Command(b.bin, args...)
	cmd.Env = b.env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	floor := b.floor()
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start), out: out.Bytes(), floorKB: floor}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss
	}
	if cmd.ProcessState != nil {
		s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return s, fmt.Errorf("ralph-loop %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return s, nil
}

func (b *bench) hook(event map[string]any) (sample, error) {
	data, _ := json.Marshal(event)
	return b.exec(data, "hook", "--host", "claude")
}

func event(name, session string, kv ...any) map[string]any {
	m := map[string]any{"session_id": session, "cwd": "/WORK/proj", "hook_event_name": name, "permission_mode": "bypassPermissions"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// measure runs setup (not timed) and then one timed run, b.runs times.
func (b *bench) measure(name string, setup func(i int) error, run func(i int) (sample, error)) (row, error) {
	var walls, cpus []time.Duration
	r := row{name: name, runs: b.runs}
	for i := 0; i < b.runs; i++ {
		if setup != nil {
			if err := setup(i); err != nil {
				return r, fmt.Errorf("%s: setup: %w", name, err)
			}
		}
		s, err := run(i)
		if err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		walls, cpus = append(walls, s.wall), append(cpus, s.cpu)
		r.rssKB = max(r.rssKB, s.rssKB)
		r.floorKB = max(r.floorKB, s.floorKB)
	}
	slices.Sort(walls)
	r.median, r.max, r.cpu = walls[len(walls)/2], walls[len(walls)-1], mean(cpus)
	r.p99 = walls[(len(walls)*99+99)/100-1]
	b.rows = append(b.rows, r)
	return r, nil
}

func (b *bench) arm(session, transcript string, extra ...string) error {
	// The stall breaker is off: the benchmark stops again and again without a tool call between.
	prompt := "/ralph-loop bench the hook --max-iterations 1000000 --min-tool-calls 1 --max-stalls 0 " + strings.Join(extra, " ")
	s, err := b.hook(event("UserPromptSubmit", session, "prompt", prompt, "transcript_path", transcript))
	if err == nil && !bytes.Contains(s.out, []byte("loop armed")) {
		err = fmt.Errorf("arming failed: %s", s.out)
	}
	return err
}

// stop runs a Stop whose last message is last, and checks that it blocked.
func (b *bench) stop(session, transcript, last string) (sample, error) {
	// A prompt id of its own: two byte-identical stops within one clock tick are one delivery
	// (hook.duplicate), and the next stop may start within the tick of the last decision.
	ev := event("Stop", session, "last_assistant_message", last, "stop_hook_active", true, "prompt_id", strconv.FormatInt(time.Now().UnixNano(), 10))
	if transcript != "" {
		ev["transcript_path"] = transcript
	}
	s, err := b.hook(ev)
	if err == nil && !bytes.Contains(s.out, []byte(`"decision":"block"`)) {
		err = fmt.Errorf("the stop was not blocked: %s", s.out)
	}
	return s, err
}

// appendTo adds synthetic lines to a transcript in a child process ("bench append"), so
// that this process stays small: Linux charges a vforked child with its parent's peak RSS.
//
//	kind "turn": one turn of about size bytes ending with the text last
//	kind "fill": turns until size bytes, ending with last
//	kind "huge": one tool-result line of about size bytes, then the text last
//	kind "old":  like fill, stamped two days ago
func appendTo(path, kind string, size int64, last string) error {
	cmd := exec.Command(os.Args[0], "append", kind, strconv.FormatInt(size, 10), last, path)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

func appendCommand(args []string) error {
	if len(args) != 4 {
		return errors.New("usage: append KIND SIZE LAST FILE")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(args[3], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	g := newGen(f, "bench-session", time.Now(), uint64(time.Now().UnixNano()))
	switch args[0] {
	case "turn":
		g.turn(size, args[2])
	case "fill":
		g.fill(size, args[2])
	case "old":
		g.now = time.Now().Add(-48 * time.Hour)
		g.fill(size, args[2])
	case "huge":
		g.hugeLine(int(size))
		g.text(args[2])
	default:
		return fmt.Errorf("unknown kind %q", args[0])
	}
	if err := g.flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// resetPeak makes this process's peak RSS its current one, which a child started now
// inherits as its floor (the "floor" column).
func resetPeak() int64 {
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	data, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func (b *bench) all(sizes []string) error {
	fmt.Fprintf(os.Stderr, "bench: %s, %d runs per case, work directory %s\n", b.bin, b.runs, b.dir)
	// Baseline: the bare process start of the same binary.
	base, err := b.measure("baseline: ralph-loop version", nil, func(int) (sample, error) { return b.exec(nil, "version") })
	if err != nil {
		return err
	}
	vsBase := func(r row) {
		b.rows[len(b.rows)-1].note = fmt.Sprintf("%+.2f ms vs baseline", float64(r.median-base.median)/1e6)
	}

	// 1. UserPromptSubmit with an ordinary prompt, no loop anywhere.
	r, err := b.measure("1 UserPromptSubmit, no loop anywhere", nil, func(int) (sample, error) {
		return b.hook(event("UserPromptSubmit", "plain-1", "prompt", "Please refactor the parser and add tests.", "transcript_path", "/WORK/none.jsonl"))
	})
	if err != nil {
		return err
	}
	vsBase(r)

	// 2. Stop for a session without a loop while 100 other sessions have active loops.
	for i := 0; i < 100; i++ {
		if err := b.arm(fmt.Sprintf("other-%03d", i), ""); err != nil {
			return err
		}
	}
	r, err = b.measure("2 Stop, no loop here, 100 active elsewhere", nil, func(int) (sample, error) {
		return b.hook(event("Stop", "plain-2", "last_assistant_message", "Done.", "transcript_path", "/WORK/none.jsonl"))
	})
	if err != nil {
		return err
	}
	vsBase(r)

	// 3. PostToolUse in a session with an active loop.
	if err := b.arm("tools", ""); err != nil {
		return err
	}
	r, err = b.measure("3 PostToolUse, active loop", nil, func(i int) (sample, error) {
		return b.hook(event("PostToolUse", "tools", "tool_name", "Bash", "tool_use_id", fmt.Sprintf("toolu_%d", i),
			"tool_input", map[string]any{"command": "go test ./..."}, "tool_response", map[string]any{"stdout": strings.Repeat("ok\n", 500)}))
	})
	if err != nil {
		return err
	}
	vsBase(r)

	// 4. Stop with an active loop and a long transcript.
	for _, size := range sizes {
		n, err := parseSize(size)
		if err != nil {
			return err
		}
		if err := b.transcriptCase(size, n); err != nil {
			return err
		}
	}

	// 5. A transcript with one 64 MB line after arming.
	if err := b.hugeLineCase(); err != nil {
		return err
	}

	// 6. 64 concurrent hooks on one session.
	if err := b.concurrentCase(); err != nil {
		return err
	}

	// 7. A loop in a git repository: the tool hooks and the stop, CPU time.
	if err := b.gitLoopCase(); err != nil {
		return err
	}
	b.print(os.Stdout)
	return nil
}

func (b *bench) transcriptCase(label string, size int64) error {
	path := filepath.Join(b.dir, "transcript-"+label+".jsonl")
	fmt.Fprintf(os.Stderr, "bench: writing a %s transcript\n", label)
	if err := appendTo(path, "old", size, "Earlier work is done."); err != nil {
		return err
	}
	session := "t-" + strings.ToLower(label)
	last := "Still working on it."
	// First stop after arming into the long session: one new turn (~64 KB) since arming.
	_, err := b.measure(fmt.Sprintf("4 Stop, %s transcript, first stop after arming", label), func(int) error {
		if err := b.arm(session, path); err != nil {
			return err
		}
		return appendTo(path, "turn", 64<<10, last)
	}, func(int) (sample, error) { return b.stop(session, path, last) })
	if err != nil {
		return err
	}
	// A later stop, 1 MB of new turns after the previous one.
	_, err = b.measure(fmt.Sprintf("4 Stop, %s transcript, later stop (+1 MB)", label), func(int) error {
		return appendTo(path, "fill", 1<<20, last)
	}, func(int) (sample, error) { return b.stop(session, path, last) })
	if err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil {
		b.rows[len(b.rows)-1].note = fmt.Sprintf("file %.0f MB at the end", float64(st.Size())/(1<<20))
	}
	return nil
}

func (b *bench) hugeLineCase() error {
	path := filepath.Join(b.dir, "transcript-hugeline.jsonl")
	session := "huge"
	last := "Read the log."
	_, err := b.measure("5 Stop, one 64 MB line since the last stop", func(int) error {
		if err := b.arm(session, path); err != nil {
			return err
		}
		return appendTo(path, "huge", 64<<20, last)
	}, func(int) (sample, error) { return b.stop(session, path, last) })
	return err
}

// concurrentCase starts 32 Stop and 32 PostToolUse hooks at once on one session, several
// times, and checks that every tool call was counted once and every block advanced the
// iteration once.
func (b *bench) concurrentCase() error {
	const n, bursts = 64, 5
	session := "busy"
	if err := b.arm(session, ""); err != nil {
		return err
	}
	// The same number of bare starts at once: what the machine allows.
	base, err := b.bursts(n, bursts, func(int, int) ([]byte, []string) { return nil, []string{"version"} })
	if err != nil {
		return err
	}
	base.name = fmt.Sprintf("6 baseline: %d concurrent ralph-loop version (x%d)", n, bursts)
	r, err := b.bursts(n, bursts, func(burst, i int) ([]byte, []string) {
		// Each stop says something else: identical events at once are one event delivered
		// twice, which the hook counts once.
		ev := event("Stop", session, "last_assistant_message", fmt.Sprintf("not yet (%d.%d)", burst, i), "stop_hook_active", true)
		if i%2 == 1 {
			ev = event("PostToolUse", session, "tool_name", "Bash", "tool_use_id", fmt.Sprintf("toolu_%d_%d", burst, i))
		}
		data, _ := json.Marshal(ev)
		return data, []string{"hook", "--host", "claude"}
	})
	if err != nil {
		return err
	}
	r.name = fmt.Sprintf("6 %d concurrent Stop/PostToolUse, one session (x%d)", n, bursts)
	out, err := b.exec(nil, "status", "--json", "--session", session)
	if err != nil {
		return err
	}
	var st struct {
		Loops []struct {
			Iteration int `json:"iteration"`
			Tools     int `json:"tool_calls"`
		}
	}
	if err := json.Unmarshal(out.out, &st); err != nil || len(st.Loops) == 0 {
		return fmt.Errorf("status: %v: %s", err, out.out)
	}
	wantIter, wantTools := 1+bursts*n/2, bursts*n/2
	exact := st.Loops[0].Iteration == wantIter && st.Loops[0].Tools == wantTools
	r.note = fmt.Sprintf("iteration %d (want %d), tool calls %d (want %d): exact=%v", st.Loops[0].Iteration, wantIter, st.Loops[0].Tools, wantTools, exact)
	b.rows = append(b.rows, base, r)
	if !exact {
		b.print(os.Stdout)
		return errors.New("state is not exact after the concurrent hooks")
	}
	return nil
}

// bursts starts n processes at once, bursts times, and summarises their wall times.
func (b *bench) bursts(n, bursts int, mk func(burst, i int) ([]byte, []string)) (row, error) {
	var walls []time.Duration
	var rss int64
	b.lastFloor = resetPeak()
	b.concurrent = true
	defer func() { b.concurrent = false }()
	for burst := 0; burst < bursts; burst++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var firstErr error
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			stdin, args := mk(burst, i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := b.exec(stdin, args...)
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				walls = append(walls, s.wall)
				rss = max(rss, s.rssKB)
			}()
		}
		close(start)
		wg.Wait()
		if firstErr != nil {
			return row{}, firstErr
		}
	}
	slices.Sort(walls)
	return row{runs: len(walls), median: walls[len(walls)/2], p99: walls[(len(walls)*99+99)/100-1], max: walls[len(walls)-1],
		rssKB: rss, floorKB: b.lastFloor}, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func (b *bench) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\truns\tmedian\tp99\tmax\tpeak RSS\t(floor)\t\t")
	for _, r := range b.rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1f MB\t%.1f MB\t%s\t\n", r.name, r.runs, ms(r.median), ms(r.p99), ms(r.max),
			float64(r.rssKB)/1024, float64(r.floorKB)/1024, r.note)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWall time: fork to exit with stdout read, as Claude Code runs a hook. Peak RSS: the child's maximum resident size;")
	fmt.Fprintln(w, "Linux counts in the parent's resident size at the time of the (v)fork, shown as the floor: the hook's own peak is at most the larger.")
	fmt.Fprintf(w, "\nmachine: %s, %d CPUs, %s/%s, %s\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, kernel())
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func kernel() string {
	out, err := exec.CommandContext(context.Background(), "uname", "-sr").Output()
	if err != nil {
		return "unknown kernel"
	}
	return strings.TrimSpace(string(out))
}

// gitLoopCase runs a loop (the stall breaker on, as by default) in a git repository of
// 2,000 files: each iteration one tool call, its PreToolUse and PostToolUse, the file it
// changes, then a Stop; once with a Write call each iteration, once with a shell command.
// The rows give wall times, and in their note the mean CPU time (user and system, with
// git: the mean, because git runs at some stops only), the steadier figure on a shared
// machine.
func (b *bench) gitLoopCase() error {
	if _, err := exec.LookPath("git"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: git is not installed: no case 7")
		return nil
	}
	repo := filepath.Join(b.dir, "repo")
	for i := 0; i < 2000; i++ {
		p := filepath.Join(repo, fmt.Sprintf("pkg%02d", i/100), fmt.Sprintf("f%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg%02d\n\nconst C%d = %d\n", i/100, i, i), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@x", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	base, err := b.measure("7 baseline: ralph-loop version", nil, func(int) (sample, error) { return b.exec(nil, "version") })
	if err != nil {
		return err
	}
	b.rows[len(b.rows)-1].note = "CPU " + ms(base.cpu)
	for _, tool := range []string{"Write", "Bash"} {
		session := "git-" + strings.ToLower(tool)
		s, err := b.hook(event("UserPromptSubmit", session, "cwd", repo, "prompt", "/ralph-loop bench the stall breaker --max-iterations 1000000 --min-tool-calls 0"))
		if err == nil && !bytes.Contains(s.out, []byte("loop armed")) {
			err = fmt.Errorf("arming failed: %s", s.out)
		}
		if err != nil {
			return err
		}
		var pre, post, stop []sample
		for i := 0; i < b.runs; i++ {
			id := fmt.Sprintf("toolu_%d", i)
			file := filepath.Join(repo, "pkg00", "f0000.go")
			input := map[string]any{"file_path": file, "content": fmt.Sprint(i)}
			if tool == "Bash" {
				input = map[string]any{"command": fmt.Sprintf("echo %d > pkg00/f0000.go", i)}
			}
			s, err := b.hook(event("PreToolUse", session, "cwd", repo, "tool_name", tool, "tool_input", input, "tool_use_id", id))
			if err != nil {
				return err
			}
			pre = append(pre, s)
			if err := os.WriteFile(file, fmt.Append(nil, i), 0o644); err != nil {
				return err
			}
			if s, err = b.hook(event("PostToolUse", session, "cwd", repo, "tool_name", tool, "tool_input", input, "tool_use_id", id,
				"tool_response", map[string]any{})); err != nil {
				return err
			}
			post = append(post, s)
			ev := event("Stop", session, "cwd", repo, "last_assistant_message", "Not done yet.", "stop_hook_active", true, "prompt_id", id)
			if s, err = b.hook(ev); err == nil && !bytes.Contains(s.out, []byte(`"decision":"block"`)) {
				err = fmt.Errorf("the stop was not blocked: %s", s.out)
			}
			if err != nil {
				return err
			}
			stop = append(stop, s)
		}
		for _, c := range []struct {
			name    string
			samples []sample
		}{{"PreToolUse", pre}, {"PostToolUse", post}, {"Stop", stop}} {
			r := rowOf(fmt.Sprintf("7 git repository, a %s each iteration: %s", tool, c.name), c.samples)
			r.note = fmt.Sprintf("CPU %s (%+.2f ms vs baseline)", ms(r.cpu), float64(r.cpu-base.cpu)/1e6)
			b.rows = append(b.rows, r)
		}
	}
	return nil
}

// rowOf summarises samples: wall times, peak RSS and the mean CPU time.
func rowOf(name string, samples []sample) row {
	r := row{name: name, runs: len(samples)}
	var walls, cpus []time.Duration
	for _, s := range samples {
		walls, cpus = append(walls, s.wall), append(cpus, s.cpu)
		r.rssKB, r.floorKB = max(r.rssKB, s.rssKB), max(r.floorKB, s.floorKB)
	}
	slices.Sort(walls)
	r.median, r.max, r.cpu = walls[len(walls)/2], walls[len(walls)-1], mean(cpus)
	r.p99 = walls[(len(walls)*99+99)/100-1]
	return r
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}
