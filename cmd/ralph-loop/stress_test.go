package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// The reliability tests run the built binary as Claude Code does, many processes at once or
// killed halfway. "make test" runs them small; "make stress" (RALPH_STRESS=1) at full size.

func stress() bool { return os.Getenv("RALPH_STRESS") == "1" }

// stressDir holds the binary the reliability tests build; removed when the tests end.
var stressDir string

// removeStressBinary runs the tests, then removes the binary they built.
type removeStressBinary struct{ m *testing.M }

func (r removeStressBinary) Run() int {
	code := r.m.Run()
	if stressDir != "" {
		os.RemoveAll(stressDir)
	}
	return code
}

// buildBinary builds ralph-loop once per test run.
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ralph-loop-stress-")
	if err != nil {
		return "", err
	}
	stressDir = dir
	bin := filepath.Join(dir, "ralph-loop")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, out)
	}
	return bin, nil
})

type hookRunner struct {
	bin   string
	state string // XDG_STATE_HOME
}

func newRunner(t *testing.T) *hookRunner {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return &hookRunner{bin: bin, state: t.TempDir()}
}

// cmd runs the binary. A hook's input is handed over in a file, not a pipe or socket as a
// host does: these tests are about concurrency and files, and a process that reads its
// events from a file is not taken for a session's host (the test binary would be the
// "host" of every loop, and its own cancel refused).
func (r *hookRunner) cmd(stdin any, args ...string) *exec.Cmd {
	c := exec.Command(r.bin, args...)
	c.Env = append(os.Environ(), "XDG_STATE_HOME="+r.state, "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0", "HOME="+r.state,
		"XDG_DATA_HOME="+filepath.Join(r.state, "data"), "XDG_CACHE_HOME="+filepath.Join(r.state, "cache"))
	var data []byte
	switch v := stdin.(type) {
	case nil:
		return c
	case []byte:
		data = v
	default:
		data, _ = json.Marshal(v)
	}
	f, err := os.CreateTemp(r.state, "stdin-*.json")
	if err == nil {
		f.Write(data)
		f.Seek(0, 0)
		c.Stdin = f // closed by the garbage collector; the directory goes with the test
	}
	return c
}

func (r *hookRunner) hook(t *testing.T, ev map[string]any) []byte {
	t.Helper()
	out, err := r.cmd(ev, "hook", "--host", "claude").Output()
	if err != nil {
		t.Fatalf("hook %v: %v", ev["hook_event_name"], err)
	}
	return out
}

func (r *hookRunner) store() *state.Store {
	return state.NewStore(filepath.Join(r.state, "ralph-loop"))
}

func ev(name, session string, kv ...any) map[string]any {
	m := map[string]any{"hook_event_name": name, "session_id": session, "cwd": "/work"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// TestConcurrentHooks runs many hook processes at once across several sessions: stops,
// tool calls and prompts mixed, with "status" and a "cancel" alongside and readers of the
// state files. No update may be lost, no reader may see a partial file, nothing may hang.
func TestConcurrentHooks(t *testing.T) {
	sessions, perSession := 4, 10
	if stress() {
		sessions, perSession = 10, 20
	}
	r := newRunner(t)
	for s := 0; s < sessions; s++ {
		r.hook(t, ev("UserPromptSubmit", fmt.Sprintf("s%d", s), "prompt", "/ralph-loop stress it --max-iterations 100000 --max-stalls 0"))
	}
	type job struct {
		stdin map[string]any
		args  []string
	}
	var jobs []job
	stops, tools := map[string]int{}, map[string]int{}
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("s%d", s)
		for i := 0; i < perSession; i++ {
			switch i % 5 {
			case 0, 1:
				stops[id]++
				// Each stop is its own event: the host never runs one stop's hooks twice
				// at once (that is a duplicate delivery, counted once).
				jobs = append(jobs, job{ev("Stop", id, "last_assistant_message", fmt.Sprintf("not yet (%d)", i)), []string{"hook", "--host", "claude"}})
			case 2, 3:
				tools[id]++
				jobs = append(jobs, job{ev("PostToolUse", id, "tool_use_id", fmt.Sprintf("toolu_%s_%d", id, i)), []string{"hook", "--host", "claude"}})
			default:
				jobs = append(jobs, job{ev("UserPromptSubmit", id, "prompt", "keep going"), []string{"hook", "--host", "claude"}})
			}
		}
	}
	// The last session is cancelled halfway; status runs throughout.
	cancelled := fmt.Sprintf("s%d", sessions-1)
	jobs = append(jobs, job{nil, []string{"cancel", "--session", cancelled}})
	for i := 0; i < len(jobs)/10; i++ {
		jobs = append(jobs, job{nil, []string{"status", "--json"}})
	}
	rand.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })

	// Readers: every loop file must always parse.
	stop := make(chan struct{})
	var readErrs []string
	var readers sync.WaitGroup
	var mu sync.Mutex
	reads := 0
	for i := 0; i < 2; i++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for s := 0; s < sessions; s++ {
					if _, err := r.store().Peek(fmt.Sprintf("s%d", s)); err != nil {
						mu.Lock()
						readErrs = append(readErrs, err.Error())
						mu.Unlock()
					}
					mu.Lock()
					reads++
					mu.Unlock()
				}
			}
		}()
	}

	var wg sync.WaitGroup
	var failures []string
	start := make(chan struct{})
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c := r.cmd(j.stdin, j.args...)
			var stderr bytes.Buffer
			c.Stderr = &stderr
			out, err := c.Output()
			mu.Lock()
			defer mu.Unlock()
			if err != nil || strings.Contains(string(out), "error") || stderr.Len() > 0 {
				failures = append(failures, fmt.Sprintf("%v: %v: %s %s", j.args, err, out, stderr.String()))
			}
			if len(j.args) > 1 && j.args[0] == "status" && !json.Valid(out) {
				failures = append(failures, "status printed invalid JSON")
			}
		}()
	}
	began := time.Now()
	close(start)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("hooks still running after 2 minutes: a deadlock")
	}
	close(stop)
	readers.Wait()
	t.Logf("%d processes across %d sessions in %s; %d state reads alongside", len(jobs), sessions, time.Since(began).Round(time.Millisecond), reads)
	for _, f := range failures {
		t.Error(f)
	}
	for _, e := range readErrs {
		t.Errorf("a reader saw a broken state file: %s", e)
	}
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("s%d", s)
		l, err := r.store().Peek(id)
		if err != nil || l == nil {
			t.Fatalf("%s: %v", id, err)
		}
		calls := l.ToolCalls + r.store().PendingToolCalls(l)
		if id == cancelled {
			if l.Status != state.Cancelled || l.Iteration > 1+stops[id] {
				t.Errorf("%s: %s at iteration %d", id, l.Status, l.Iteration)
			}
			continue
		}
		if l.Status != state.Active || l.Iteration != 1+stops[id] || calls != tools[id] {
			t.Errorf("%s: %s, iteration %d (want %d), tool calls %d (want %d)", id, l.Status, l.Iteration, 1+stops[id], calls, tools[id])
		}
	}
}

// TestCrashConsistency kills Stop hooks with SIGKILL at random moments, mostly while they
// write the state: the state file is always the old or the new version, and the next hook
// works and removes what the killed one left.
func TestCrashConsistency(t *testing.T) {
	kills := 50
	if stress() {
		kills = 500
	}
	r := newRunner(t)
	const id = "crash"
	// Before each stop, the turn's lines go to the transcript: some tool output, so that a
	// stop takes a few milliseconds, and the last message.
	transcript := filepath.Join(r.state, "t.jsonl")
	var b strings.Builder
	for b.Len() < 256<<10 {
		b.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat("x", 4000) + `"}]}}` + "\n")
	}
	b.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"not yet"}]}}` + "\n")
	turn := []byte(b.String())
	appendTurn := func() {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(turn)
		f.Close()
	}
	r.hook(t, ev("UserPromptSubmit", id, "prompt", "/ralph-loop survive --max-iterations 100000 --max-stalls 0", "transcript_path", transcript))
	stopEv := ev("Stop", id, "last_assistant_message", "not yet", "transcript_path", transcript)
	dir := r.store().SessionDir(id)
	// How long a stop takes here: the kills land between a fifth of it and its end, where
	// the state is read, decided and written.
	var took []time.Duration
	for i := 0; i < 7; i++ {
		time.Sleep(30 * time.Millisecond) // a model call
		appendTurn()
		t0 := time.Now()
		r.hook(t, stopEv)
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	d := took[len(took)/2]
	midWrite, finished := 0, 0
	for i := 0; i < kills; i++ {
		before, err := r.store().Peek(id)
		if err != nil || before == nil {
			t.Fatalf("kill %d: state before: %v", i, err)
		}
		appendTurn()
		c := r.cmd(stopEv, "hook", "--host", "claude")
		c.Stdout, c.Stderr = nil, nil
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d/5 + time.Duration(rand.Int64N(int64(d)*7/10)))
		c.Process.Signal(syscall.SIGKILL)
		if err := c.Wait(); err == nil {
			finished++
		}
		after, err := r.store().Peek(id)
		if err != nil || after == nil {
			t.Fatalf("kill %d: the state is broken: %v", i, err)
		}
		if after.Iteration != before.Iteration && after.Iteration != before.Iteration+1 {
			t.Fatalf("kill %d: iteration went from %d to %d", i, before.Iteration, after.Iteration)
		}
		if temps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(temps) > 0 {
			midWrite++
		}
	}
	// The next hook works and cleans up. It comes a model call after the last kill: the
	// same input any sooner is a second delivery of the killed one's event (hook.duplicate).
	time.Sleep(30 * time.Millisecond)
	appendTurn()
	before, _ := r.store().Peek(id)
	out := r.hook(t, stopEv)
	if !bytes.Contains(out, []byte(`"decision":"block"`)) {
		t.Fatalf("the stop after the kills: %s", out)
	}
	after, _ := r.store().Peek(id)
	if after.Iteration != before.Iteration+1 {
		t.Fatalf("iteration %d after %d", after.Iteration, before.Iteration)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(temps) > 0 {
		t.Fatalf("temp files left: %v", temps)
	}
	events, err := r.store().Events(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a stop takes %s; %d kills: %d landed mid-write (a temp file left behind), %d came after the process had finished; %d events readable",
		d.Round(time.Microsecond), kills, midWrite, finished, len(events))
	if kills >= 100 && midWrite == 0 {
		t.Errorf("no kill landed mid-write: the test did not test what it says")
	}
}

// TestPlantedFiles plants a FIFO, a symbolic link to a file and one to a directory (and, at full size, a dangling link, a
// link to /dev/zero, a directory and a hard link) at every path ralph-loop keeps state in,
// then runs every kind of hook and command against it. None may hang (each process is
// killed after 30 seconds, which fails the test), write through a link, or print anything
// but the host protocol on stdout.
func TestPlantedFiles(t *testing.T) {
	// Small: a FIFO everywhere, a link to a file at the files, a link to a directory at the
	// directories.
	kindsOf := func(name string) []string {
		if stress() {
			return []string{"fifo", "symlink", "dir-link", "dangling", "dev-zero", "directory", "hardlink"}
		}
		if strings.HasSuffix(name, "directory") {
			return []string{"fifo", "dir-link"}
		}
		return []string{"fifo", "symlink"}
	}
	type target struct {
		name string
		path func(r *hookRunner, l *state.Loop) string
	}
	session := func(r *hookRunner, name string) string { return filepath.Join(r.store().SessionDir("p"), name) }
	targets := []target{
		{"loop.json", func(r *hookRunner, _ *state.Loop) string { return session(r, "loop.json") }},
		{"loop.lock", func(r *hookRunner, _ *state.Loop) string { return session(r, "loop.lock") }},
		{"events.jsonl", func(r *hookRunner, _ *state.Loop) string { return session(r, "events.jsonl") }},
		{"tools.jsonl", func(r *hookRunner, _ *state.Loop) string { return session(r, "tools.jsonl") }},
		{"history", func(r *hookRunner, l *state.Loop) string {
			return session(r, filepath.Join("history", l.LoopID+".json"))
		}},
		{"history directory", func(r *hookRunner, _ *state.Loop) string { return session(r, "history") }},
		{"task file", func(r *hookRunner, l *state.Loop) string { return session(r, "task-"+l.LoopID+".md") }},
		{"check log", func(r *hookRunner, l *state.Loop) string {
			// The stop before the promise's makes it iteration 2.
			return session(r, filepath.Join("checks", l.LoopID+"-iteration-2-check-1.log"))
		}},
		{"checks directory", func(r *hookRunner, _ *state.Loop) string { return session(r, "checks") }},
		{"session directory", func(r *hookRunner, _ *state.Loop) string { return r.store().SessionDir("p") }},
		{"keep copy", func(r *hookRunner, _ *state.Loop) string {
			return filepath.Join(r.state, "data", "ralph-loop", "loops", "p.json")
		}},
		{"keep key", func(r *hookRunner, _ *state.Loop) string {
			return filepath.Join(r.state, "data", "ralph-loop", "key")
		}},
		{"active marker", func(r *hookRunner, _ *state.Loop) string {
			return filepath.Join(r.state, "ralph-loop", "active", "p")
		}},
	}
	type step struct {
		name  string
		stdin map[string]any
		args  []string
	}
	hook := []string{"hook", "--host", "claude"}
	for _, tg := range targets {
		for _, kind := range kindsOf(tg.name) {
			t.Run(tg.name+"/"+kind, func(t *testing.T) {
				r := newRunner(t)
				cwd := t.TempDir()
				arm := ev("UserPromptSubmit", "p", "cwd", cwd, "prompt", "/ralph-loop planted --check true --max-iterations 50")
				r.hook(t, arm)
				l, err := r.store().Peek("p")
				if err != nil || l == nil {
					t.Fatalf("armed: %v, %v", l, err)
				}
				outside := filepath.Join(t.TempDir(), "precious")
				os.WriteFile(outside, []byte("precious\n"), 0o600)
				outsideDir := t.TempDir()
				path := tg.path(r, l)
				os.MkdirAll(filepath.Dir(path), 0o700)
				os.RemoveAll(path)
				switch kind {
				case "fifo":
					err = syscall.Mkfifo(path, 0o600)
				case "symlink":
					err = os.Symlink(outside, path)
				case "dir-link":
					err = os.Symlink(outsideDir, path)
				case "dangling":
					err = os.Symlink(filepath.Join(t.TempDir(), "nothing"), path)
				case "dev-zero":
					err = os.Symlink("/dev/zero", path)
				case "directory":
					err = os.Mkdir(path, 0o700)
				case "hardlink":
					err = os.Link(outside, path)
				}
				if err != nil {
					t.Fatal(err)
				}
				steps := []step{
					{"PreToolUse", ev("PreToolUse", "p", "cwd", cwd, "tool_name", "Bash", "tool_use_id", "toolu_pre",
						"tool_input", map[string]any{"command": "ralph-loop cancel --all"}), hook},
					{"PostToolUse", ev("PostToolUse", "p", "cwd", cwd, "tool_name", "Bash", "tool_use_id", "toolu_post",
						"tool_input", map[string]any{"command": "ls"}), hook},
					{"Stop", ev("Stop", "p", "cwd", cwd, "last_assistant_message", "not yet"), hook},
					{"Stop with the promise", ev("Stop", "p", "cwd", cwd, "last_assistant_message", "<promise>DONE</promise>"), hook},
					{"SessionStart", ev("SessionStart", "p", "cwd", cwd, "source", "resume"), hook},
					{"arming", arm, hook},
					{"status", nil, []string{"status"}},
					{"status --session", nil, []string{"status", "--session", "p", "--json"}},
					{"log", nil, []string{"log", "--session", "p"}},
					{"cancel", nil, []string{"cancel", "--session", "p"}},
					{"gc", nil, []string{"gc", "--older-than", "0s"}},
				}
				for _, s := range steps {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					c := r.cmd(s.stdin, s.args...)
					cc := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
					cc.Env, cc.Stdin = c.Env, c.Stdin
					var stdout, stderr bytes.Buffer
					cc.Stdout, cc.Stderr = &stdout, &stderr
					err := cc.Run()
					hung := ctx.Err() != nil
					cancel()
					if hung {
						t.Fatalf("%s hangs with a %s planted as the %s", s.name, kind, tg.name)
					}
					if s.args[0] == "hook" && stdout.Len() > 0 && !json.Valid(stdout.Bytes()) {
						t.Errorf("%s: stdout is not the host protocol: %q", s.name, stdout.String())
					}
					if strings.Count(strings.TrimSpace(stderr.String()), "\n") > 3 {
						t.Errorf("%s: %v; stderr:\n%s", s.name, err, stderr.String())
					}
					if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
						t.Fatalf("%s wrote through a %s planted as the %s: %q", s.name, kind, tg.name, data)
					}
					if entries, _ := os.ReadDir(outsideDir); len(entries) > 0 {
						t.Fatalf("%s wrote %s through a %s planted as the %s", s.name, entries[0].Name(), kind, tg.name)
					}
				}
			})
		}
	}
}

// TestDuplicateDelivery delivers each stop to two hook processes started together, as a
// host does when ralph-loop's hooks are installed twice (a forced second install, a user and
// a project copy): the loop advances once per stop, however quickly the first answers. Many
// rounds, since the two processes race.
func TestDuplicateDelivery(t *testing.T) {
	rounds := 40
	if stress() {
		rounds = 300
	}
	r := newRunner(t)
	r.hook(t, ev("UserPromptSubmit", "d1", "prompt", "/ralph-loop twice --max-iterations 100000 --min-tool-calls 0 --max-stalls 0"))
	for i := 1; i <= rounds; i++ {
		stop, _ := json.Marshal(ev("Stop", "d1", "last_assistant_message", fmt.Sprintf("not yet (%d)", i)))
		// A host forks the hooks of one event before any of them answers: both processes
		// are started, then both get the event on stdin (on a loaded machine, starting the
		// second only when the first is done would be a later event, not a duplicate).
		var cmds []*exec.Cmd
		var ins []io.WriteCloser
		for range 2 {
			c := r.cmd(nil, "hook", "--host", "claude")
			in, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, ins = append(cmds, c), append(ins, in)
		}
		var wg sync.WaitGroup
		for _, in := range ins {
			wg.Add(1)
			go func() { defer wg.Done(); in.Write(stop); in.Close() }()
		}
		wg.Wait()
		for _, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		l, err := r.store().Peek("d1")
		if err != nil || l == nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if l.Iteration != 1+i {
			t.Fatalf("after %d stops, each delivered twice: iteration %d, want %d (a duplicate counted)", i, l.Iteration, 1+i)
		}
	}
}
