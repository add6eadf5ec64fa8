package qwen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Version is the Qwen Code release the suite runs. It is pinned: it declares node >= 22,
// and on node 20 an unpinned install resolves to an old 0.15 (0.24.4 only warns and works).
const Version = "0.24.4"

// Qwen is Qwen Code on the npm registry.
var Qwen = e2e.Package{
	Name:    "@qwen-code/qwen-code",
	Version: Version,
	Bins:    []string{"node_modules/.bin/qwen"},
}

// Env is one isolated world: a home directory with Qwen Code's user settings, a project,
// ralph-loop's state directory.
type Env struct {
	Qwen, RalphLoop string
	Home, Project   string
	State, Tmp      string
}

// userSettings point Qwen Code at the fake (auth type openai) and switch off what would
// reach the network or send requests of its own (the background memory agents send
// tool-bearing requests after a turn). Hooks are not here: "ralph-loop install" adds them.
// They are written as a person may write them and Qwen Code reads them (a byte order mark,
// comments): install keeps those, and Qwen Code loads the hooks it adds.
const userSettings = "\ufeff" + `// offline, for the tests
{
  "security": {"auth": {"selectedType": "openai"}}, // the fake API
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false},
  "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false},
  "ui": {"enableFollowupSuggestions": false}
}
`

// NewEnv lays out an Env under root.
func NewEnv(root, qwen, ralphLoop string) (*Env, error) {
	e := &Env{Qwen: qwen, RalphLoop: ralphLoop, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"),
		State: filepath.Join(root, "state"), Tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{filepath.Join(e.Home, ".qwen"), e.Project, e.State, e.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return e, os.WriteFile(e.UserSettings(), []byte(userSettings), 0o644)
}

// UserSettings is the path of Qwen Code's user settings file.
func (e *Env) UserSettings() string { return filepath.Join(e.Home, ".qwen", "settings.json") }

// environ is the environment of qwen and ralph-loop: the caller's, less anything that could
// reach a real account or another session, plus the offline settings.
func (e *Env) environ(apiURL string, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "QWEN"), strings.HasPrefix(k, "OPENAI"), strings.HasPrefix(k, "GEMINI"), strings.HasPrefix(k, "GOOGLE"),
			strings.HasPrefix(k, "DASHSCOPE"), strings.HasPrefix(k, "ANTHROPIC"), strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "XDG_"),
			strings.HasSuffix(strings.ToLower(k), "_proxy"), k == "HOME", k == "TMPDIR", k == "TERM":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+e.Home, "TMPDIR="+e.Tmp, "XDG_STATE_HOME="+e.State, "TERM=dumb",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	if apiURL != "" {
		env = append(env, "OPENAI_API_KEY=dummy-local-key", "OPENAI_BASE_URL="+apiURL, "OPENAI_MODEL=fake-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	}
	return append(env, extra...)
}

// RalphLoopCmd runs ralph-loop in the project and returns its stdout.
func (e *Env) RalphLoopCmd(ctx context.Context, args ...string) (string, error) {
	return e2e.RalphLoopIn(ctx, e.RalphLoop, e.Project, e.environ("", nil), args...)
}

// Install runs "ralph-loop install --host qwen" with the given scope (user: into the home's
// ~/.qwen; project: into the project's .qwen).
func (e *Env) Install(ctx context.Context, scope string) (string, error) {
	return e2e.InstallAt(ctx, e.RalphLoopCmd, "qwen", scope, e.Project)
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Status returns the loops of "ralph-loop status --json".
func (e *Env) Status(ctx context.Context) ([]Loop, error) {
	return e2e.StatusVia(ctx, e.RalphLoopCmd)
}

// Run is one "qwen -p PROMPT --yolo" in the project.
type Run struct {
	Script Script
	Prompt string
	Args   []string // more qwen flags
	Env    []string // more environment
}

// Result is what a run produced.
type Result struct {
	Stdout, Stderr string
	Code           int
	Fake           *Fake
	// Start and End are when qwen started and exited, for the log.
	Start, End time.Time
}

// Timeline says when each request came and when qwen exited, from its start.
func (r *Result) Timeline() string {
	var b strings.Builder
	for i, q := range r.Fake.Requests() {
		fmt.Fprintf(&b, "request %d (tools %v) at %s; ", i+1, q.Tools > 0, q.At.Sub(r.Start).Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "exit at %s", r.End.Sub(r.Start).Round(time.Millisecond))
	return b.String()
}

// Run runs qwen headless against a fake serving r.Script, with stdin closed.
func (e *Env) Run(ctx context.Context, r Run) (*Result, error) {
	fake, err := StartFake(r.Script)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Qwen, append([]string{"-p", r.Prompt, "--yolo"}, r.Args...)...)
	cmd.Dir = e.Project
	cmd.Env = e.environ(fake.URL, r.Env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Fake: fake, Start: start, End: time.Now()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		return res, err
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("qwen did not finish: %v", ctx.Err())
	}
	return res, nil
}
