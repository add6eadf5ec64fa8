package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/state"
)

func TestMain(m *testing.M) {
	testscript.Main(removeStressBinary{m}, map[string]func(){
		"ralph-loop": func() { os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"fixture":    func() { os.Exit(fixture(os.Args[1:])) },
	})
}

// TestScripts runs testdata/script/*.txtar: the command-line behaviour, end to end through
// the real binary, with Claude Code's captured hook payloads.
func TestScripts(t *testing.T) {
	captured, err := filepath.Abs("../../testdata/claude")
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := filepath.Abs("../../plugins/ralph-loop")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// model stands for the model call between two stops of a loop: a host never
			// fires a stop within a few ticks of the last decision, and an identical event
			// that soon is taken for a second delivery of the same one (see hook.duplicate).
			// 100 ms, not a few ticks: the hook reckons its start from the clock it reads
			// and the kernel's ticks, and a hook descheduled between the two on a loaded
			// machine reckons it tens of ms early (hook-max-iterations failed so at 30 ms
			// under a load of 17 on two cores; make test runs the scripts beside the
			// real-CLI suites).
			// "model FILE TEXT" also appends the model's reply, TEXT, to the transcript FILE,
			// as Claude Code does before its Stop hook, so the stop finds its last message
			// there and does not wait for the transcript to catch up.
			"model": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 && len(args) != 2 {
					ts.Fatalf("usage: model [TRANSCRIPT TEXT]")
				}
				time.Sleep(100 * time.Millisecond)
				if len(args) == 2 {
					ts.Check(fixtureLine([]string{ts.MkAbs(args[0]), "text", args[1]}))
				}
			},
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1", // rewrite cmp files after a deliberate change
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "unshare":
				// A process namespace of one's own, without privileges (unprivileged user
				// namespaces are turned off on some systems).
				return unshareWorks(), nil
			case "timens":
				// A time namespace of one's own, without privileges.
				return exec.Command("unshare", "-UrT", "--boottime", "1", "true").Run() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, "state"))
			e.Setenv("STATE", filepath.Join(e.WorkDir, "state", "ralph-loop"))
			keep := state.NewStore(filepath.Join(e.WorkDir, "state", "ralph-loop"))
			keep.SetKeepDir(filepath.Join(e.WorkDir, "home", ".local", "share", "ralph-loop"))
			e.Setenv("KEEP", keep.CopiesDir())
			e.Setenv("CAPTURED", captured)
			e.Setenv("PLUGIN", plugin) // the Claude Code plugin, as committed
			// A -race binary sleeps 1s at exit by default; the scripts run hundreds of them.
			e.Setenv("GORACE", "atexit_sleep_ms=0")
			for _, k := range []string{"CLAUDE_CODE_SESSION_ID", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "CLAUDE_PROJECT_DIR"} {
				e.Setenv(k, "")
			}
			for _, h := range hosts.All { // a session of the host running the tests
				if v := sessionEnv(h); v != "" {
					e.Setenv(v, "")
				}
			}
			// Stand-ins for ralph-loop installed elsewhere, for install --binary (which
			// checks that it names an executable ralph-loop), written with no process forked
			// meanwhile: a child of another script's exec would hold one open for writing,
			// and running it would fail "text file busy" (golang.org/issue/22315).
			if err := writeStandIns(e.WorkDir); err != nil {
				return err
			}
			// No script sleeps through the hook's bounded wait for a lagging transcript
			// unless it tests that wait: its stops find their last message in a transcript
			// ("model FILE TEXT").
			name := strings.TrimPrefix(filepath.Base(e.WorkDir), "script-")
			e.Defer(func() {
				if waits := catchUpWaits(filepath.Join(e.WorkDir, "state")); waits > 0 && !testsCatchUp[name] {
					e.T().Fatal(fmt.Sprintf("%d stops of %s waited %s for a transcript: give them one that shows the last message (model FILE TEXT)",
						waits, name, hook.DefaultCatchUp))
				}
			})
			return os.MkdirAll(filepath.Join(e.WorkDir, "home"), 0o755)
		},
	})
}

// unshareWorks reports whether an unprivileged process can run a command in a process
// namespace of its own, with its own /proc.
var unshareWorks = sync.OnceValue(func() bool {
	return exec.Command("unshare", "-Urpf", "--mount-proc", "true").Run() == nil
})

// testsCatchUp are the scripts whose stops wait for a lagging transcript on purpose: they
// test that wait (a budget the late turn could reach, a transcript that never comes).
var testsCatchUp = map[string]bool{"hook-transcript-lag": true}

// catchUpWaits counts the decisions, in the loops' event logs under dir, that waited the
// whole bounded time for a transcript.
func catchUpWaits(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) != "events.jsonl" {
			return nil
		}
		data, _ := os.ReadFile(p)
		n += strings.Count(string(data), " within "+hook.DefaultCatchUp.String())
		return nil
	})
	return n
}

// fixture is a helper program for the scripts:
//
//	fixture payload TEMPLATE OUT [key=value...]  a captured hook payload with fields replaced
//	                                            (value @FILE reads the file; key:=JSON sets raw JSON)
//	fixture line FILE KIND [ARG]                append a transcript line stamped now; KIND is
//	                                            text TEXT (@FILE reads it), tool ID, user TEXT,
//	                                            blocks JSON or raw JSON
//	fixture late FILE KIND [ARG]                the same, stamped a minute ago: a line of a turn
//	                                            that ended before the last stop, written late
//	fixture usage FILE ID INPUT OUTPUT [TEXT]   append a reply with its usage, stamped now
//	fixture after DURATION fixture-args...      sleep, then run the rest (for background use)
//	fixture hold-lock SESSION DURATION READY    hold a session's lock (in $STATE) for a while,
//	                                            creating the file READY once it is held
//	fixture wait-file FILE                      wait (up to 10s) until FILE exists
//	fixture bigfile FILE SIZE [PREFIX]          write PREFIX then "x" up to SIZE bytes (e.g. 50MB)
//	fixture length-under FILE N                 fail unless every JSON string in FILE is shorter
//	                                            than N characters (UTF-16 units, as Claude Code counts)
//	fixture task-file-matches SESSION FILE      the session's task file holds FILE's task
//	fixture set-status SESSION STATUS           edit a loop's status in its file, by hand
//	fixture age SESSION DURATION                make the session's loop last heard from DURATION ago
//	fixture age-updated SESSION DURATION        make the session's loop last updated DURATION ago
//	fixture age-started SESSION DURATION        make the session's loop armed DURATION ago
//	fixture processes-gone FILE                 the processes whose ids FILE lists are gone
//	fixture mkfifo FILE                         make a FIFO (named pipe) at FILE
//	fixture terminal CMD ARGS...                run a command as the user's terminal would: below
//	                                            a process that leads a session of its own (the
//	                                            terminal's shell), not below this one (so not
//	                                            below the host of a loop armed from here), with its
//	                                            output and exit code passed on
func fixture(argv []string) int {
	if len(argv) > 0 && argv[0] == "terminal" {
		return fixtureTerminal(argv[1:])
	}
	if len(argv) > 0 && argv[0] == "ask" {
		return fixtureAsk(argv[1:])
	}
	if err := runFixture(argv); err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 1
	}
	return 0
}

// fixtureTerminal runs argv as a process that does not descend from this one: an
// intermediate process in a session of its own starts it and exits at once, so that it is
// handed to the system's reaper, as a command typed in another terminal would be. Its
// output and exit code come back through files.
func fixtureTerminal(argv []string) int {
	dir, err := os.MkdirTemp("", "ralph-loop-terminal-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	c := exec.Command("fixture", append([]string{"detach", dir}, argv...)...)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := c.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "fixture: detach: %v: %s\n", err, out)
		return 1
	}
	for i := 0; i < 6000; i++ {
		if b, err := os.ReadFile(filepath.Join(dir, "rc")); err == nil && len(b) > 0 {
			out, _ := os.ReadFile(filepath.Join(dir, "out"))
			errs, _ := os.ReadFile(filepath.Join(dir, "err"))
			os.Stdout.Write(out)
			os.Stderr.Write(errs)
			rc, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return rc
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "fixture: terminal: the command did not finish within 60s")
	return 1
}

func runFixture(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("no subcommand")
	}
	switch argv[0] {
	case "payload":
		return fixturePayload(argv[1:])
	case "line":
		return fixtureLine(argv[1:])
	case "late":
		return fixtureLineAt(argv[1:], time.Now().Add(-time.Minute))
	case "usage":
		// usage FILE ID INPUT OUTPUT [TEXT]: a reply of claude-opus-5-5 with its usage.
		if len(argv) < 5 {
			return fmt.Errorf("usage FILE ID INPUT OUTPUT [TEXT]")
		}
		text := "ok"
		if len(argv) > 5 {
			text = argv[5]
		}
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		return fixtureLine([]string{argv[1], "raw", `{"type":"assistant","timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) +
			`","message":{"id":` + q(argv[2]) + `,"model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":` + q(text) +
			`}],"usage":{"input_tokens":` + argv[3] + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":` + argv[4] + `}}}`})
	case "after":
		if len(argv) < 3 {
			return fmt.Errorf("after DURATION fixture-args")
		}
		d, err := time.ParseDuration(argv[1])
		if err != nil {
			return err
		}
		time.Sleep(d)
		return runFixture(argv[2:])
	case "sleep":
		d, err := time.ParseDuration(strings.Join(argv[1:], ""))
		if err != nil {
			return err
		}
		time.Sleep(d)
		return nil
	case "mkfifo":
		if len(argv) != 2 {
			return fmt.Errorf("mkfifo FILE")
		}
		return syscall.Mkfifo(argv[1], 0o600)
	case "hold-lock":
		if len(argv) != 4 {
			return fmt.Errorf("hold-lock SESSION DURATION READY")
		}
		d, err := time.ParseDuration(argv[2])
		if err != nil {
			return err
		}
		store := newStore()
		return store.Update(context.Background(), argv[1], func(*state.Tx, *state.Loop) (*state.Loop, error) {
			if err := os.WriteFile(argv[3], nil, 0o644); err != nil {
				return nil, err
			}
			time.Sleep(d)
			return nil, nil
		})
	case "bigfile":
		if len(argv) < 3 {
			return fmt.Errorf("bigfile FILE SIZE [PREFIX]")
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(argv[2], "MB"), "KB"))
		if err != nil {
			return err
		}
		if strings.HasSuffix(argv[2], "MB") {
			n <<= 20
		} else if strings.HasSuffix(argv[2], "KB") {
			n <<= 10
		}
		prefix := ""
		if len(argv) > 3 {
			prefix = argv[3]
		}
		return os.WriteFile(argv[1], []byte(prefix+strings.Repeat("x", max(n-len(prefix), 0))), 0o644)
	case "length-under":
		data, err := os.ReadFile(argv[1])
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(argv[2])
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		return walkStrings(v, func(s string) error {
			if u := len(utf16.Encode([]rune(s))); u >= n {
				return fmt.Errorf("a string of %d characters", u)
			}
			return nil
		})
	case "task-file-matches":
		l, err := newStore().Peek(argv[1])
		if err != nil || l == nil {
			return fmt.Errorf("no loop: %v", err)
		}
		got, err := os.ReadFile(l.TaskFile)
		if err != nil {
			return err
		}
		want, _ := os.ReadFile(argv[2])
		if _, task, ok := strings.Cut(string(want), " -- "); !ok || string(got) != task || l.Task != task {
			return fmt.Errorf("task file of %d bytes, state task of %d, want %d", len(got), len(l.Task), len(task))
		}
		return nil
	case "set-status":
		// Edits a loop's status in its file by hand, as something other than ralph-loop would.
		store := state.NewStore(os.Getenv("STATE"))
		l, err := store.Peek(argv[1])
		if err != nil || l == nil {
			return fmt.Errorf("no loop: %v", err)
		}
		path := filepath.Join(store.SessionDir(argv[1]), "loop.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, []byte(strings.Replace(string(data), `"status": "ACTIVE"`, `"status": "`+argv[2]+`"`, 1)), 0o600)
	case "age", "age-updated", "age-started":
		d, err := time.ParseDuration(argv[2])
		if err != nil {
			return err
		}
		return newStore().Update(context.Background(), argv[1], func(_ *state.Tx, l *state.Loop) (*state.Loop, error) {
			switch argv[0] {
			case "age":
				l.LastSeenAt = time.Now().Add(-d)
			case "age-started":
				l.StartedAt = time.Now().Add(-d)
			default:
				l.UpdatedAt = time.Now().Add(-d)
			}
			return l, nil
		})
	case "age-marker":
		// Sets when a hook of the session last ran, by its active marker, to DURATION ago.
		d, err := time.ParseDuration(argv[2])
		if err != nil {
			return err
		}
		at := time.Now().Add(-d)
		return os.Chtimes(filepath.Join(os.Getenv("STATE"), "active", argv[1]), at, at)
	case "processes-gone":
		data, err := os.ReadFile(argv[1])
		if err != nil {
			return err
		}
		pids := strings.Fields(string(data))
		if len(pids) == 0 {
			return fmt.Errorf("no process ids in %s", argv[1])
		}
		for _, p := range pids {
			pid, err := strconv.Atoi(p)
			if err != nil {
				return err
			}
			for i := 0; alive(pid) && i < 250; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if alive(pid) {
				return fmt.Errorf("process %d still runs", pid)
			}
		}
		return nil
	case "host":
		return fixtureHost(argv[1])
	case "detach":
		// Started by terminal in a session of its own: start the command's runner and go,
		// leaving it to the reaper.
		c := exec.Command("fixture", append([]string{"run-to", strconv.Itoa(os.Getpid())}, argv[1:]...)...)
		return c.Start()
	case "run-to":
		// Not until detach has exited: before that, this process still descends from the
		// script's.
		for os.Getppid() == atoi(argv[1]) {
			time.Sleep(time.Millisecond)
		}
		// The terminal's shell: the leader of a session of its own, which the command runs
		// below.
		if _, err := syscall.Setsid(); err != nil {
			return err
		}
		dir := argv[2]
		out, _ := os.Create(filepath.Join(dir, "out"))
		errs, _ := os.Create(filepath.Join(dir, "err"))
		c := exec.Command(argv[3], argv[4:]...)
		c.Stdout, c.Stderr = out, errs
		rc := 0
		if err := c.Run(); err != nil {
			rc = 1
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			}
		}
		out.Close()
		errs.Close()
		tmp := filepath.Join(dir, "rc.tmp")
		os.WriteFile(tmp, []byte(strconv.Itoa(rc)+"\n"), 0o600)
		return os.Rename(tmp, filepath.Join(dir, "rc"))
	case "wait-file":
		for i := 0; i < 1000; i++ {
			if _, err := os.Stat(argv[1]); err == nil {
				return nil
			}
			time.Sleep(10 * time.Millisecond)
		}
		return fmt.Errorf("%s did not appear", argv[1])
	}
	return fmt.Errorf("unknown subcommand %q", argv[0])
}

func fixturePayload(argv []string) error {
	if len(argv) < 2 {
		return fmt.Errorf("payload TEMPLATE OUT [key=value...]")
	}
	data, err := os.ReadFile(filepath.Join(os.Getenv("CAPTURED"), argv[0]+".json"))
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for _, kv := range argv[2:] {
		if kv == "notranscript" {
			continue
		}
		if k, raw, ok := strings.Cut(kv, ":="); ok && !strings.Contains(k, "=") {
			var v any
			if err := json.Unmarshal([]byte(raw), &v); err != nil {
				return fmt.Errorf("%s: %w", kv, err)
			}
			m[k] = v
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", kv)
		}
		if strings.HasPrefix(v, "@") {
			b, err := os.ReadFile(v[1:])
			if err != nil {
				return err
			}
			v = string(b)
		}
		if v == "-" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(argv[1], out, 0o644); err != nil {
		return err
	}
	// Claude Code writes a call's tool_use block to the transcript before it runs the call
	// (and so before its PostToolUse hook): a tool call's payload comes with that line, so
	// that the call is in the host's record as in the tool log, when the script names the
	// transcript ("notranscript" leaves it out, for a call the transcript does not show).
	named := slices.ContainsFunc(argv[2:], func(kv string) bool { return strings.HasPrefix(kv, "transcript_path=") })
	if strings.HasPrefix(argv[0], "PostToolUse") && named && !slices.Contains(argv[2:], "notranscript") {
		path, _ := m["transcript_path"].(string)
		id, _ := m["tool_use_id"].(string)
		if path != "" && id != "" {
			return fixtureLine([]string{path, "tool", id})
		}
	}
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// alive reports whether a process runs (a zombie waiting for its parent does not count).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data))
	return len(f) > 2 && f[2] != "Z"
}

func walkStrings(v any, f func(string) error) error {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for _, e := range t {
			if err := walkStrings(e, f); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range t {
			if err := walkStrings(e, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// fixtureLine appends a line in Claude Code's transcript format (synthetic, in the shape of
// the captured ones), stamped with the current time.
func fixtureLine(argv []string) error { return fixtureLineAt(argv, time.Now()) }

func fixtureLineAt(argv []string, at time.Time) error {
	if len(argv) < 2 {
		return fmt.Errorf("line FILE KIND [ARG]")
	}
	file, kind := argv[0], argv[1]
	arg := ""
	if len(argv) > 2 {
		arg = argv[2]
	}
	if f, ok := strings.CutPrefix(arg, "@"); ok && kind == "text" {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		arg = string(b)
	}
	now := at.UTC().Format(time.RFC3339Nano)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	assistant := func(blocks string) string {
		return `{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_fixture","type":"message","role":"assistant","model":"claude-opus-5-5","content":[` +
			blocks + `],"stop_reason":null},"type":"assistant","uuid":"u","timestamp":"` + now + `"}`
	}
	var line string
	switch kind {
	case "text":
		line = assistant(`{"type":"text","text":` + q(arg) + `}`)
	case "tool":
		line = assistant(`{"type":"tool_use","id":` + q(arg) + `,"name":"Bash","input":{"command":"true"}}`)
	case "blocks":
		line = assistant(arg)
	case "user":
		line = `{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":` + q(arg) + `},"uuid":"u","timestamp":"` + now + `"}`
	case "raw":
		line = arg
	default:
		return fmt.Errorf("unknown line kind %q", kind)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeStandIns writes the stand-ins for ralph-loop installed elsewhere under dir.
func writeStandIns(dir string) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	for _, p := range []string{"opt/a/ralph-loop", "opt/b/ralph-loop", "opt/a b/ralph-loop", "opt/ralph loop/ralph-loop",
		"opt/tools/rl", "usr/bin/ralph-loop", "usr/local/bin/ralph-loop", "home/me/private/ralph-loop"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho ralph-loop v0.0.0-stand-in\n"), 0o755); err != nil {
			return err
		}
	}
	return nil
}
