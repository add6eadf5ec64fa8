package gemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Model is the model name the CLI is told to use (the fake answers any).
const Model = "gemini-2.5-flash"

// Env is one isolated world (see e2e.Base) with Gemini CLI's user settings and a trusted
// project.
type Env struct {
	e2e.Base
	Gemini string
}

// NewEnv lays out an Env under root: Gemini CLI set up for the fake API key, the project
// trusted (what Gemini CLI's trust dialog writes when the user trusts it), and ralph-loop
// installed by "ralph-loop install --host gemini" with the given scope.
func NewEnv(ctx context.Context, root, gemini, ralphLoop, scope string) (*Env, error) {
	e := &Env{Gemini: gemini}
	if err := e.Lay("gemini", root, ralphLoop, func() []string { return e.environ("") }, filepath.Join(root, "home", ".gemini")); err != nil {
		return nil, err
	}
	// Written by hand, as Gemini CLI reads it (through stripJsonComments): comments and
	// tabs (not a trailing comma: Gemini CLI stops on one). Install keeps them, and Gemini
	// CLI loads the hooks it adds.
	settings := `// offline, for the tests
{
	"security": {"auth": {"selectedType": "gemini-api-key"}}, // the fake API's key
	"privacy": {"usageStatisticsEnabled": false},
	/* no telemetry */ "telemetry": {"enabled": false},
	"general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		return nil, err
	}
	trust, _ := json.Marshal(map[string]string{e.Project: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "trustedFolders.json"), trust, 0o644); err != nil {
		return nil, err
	}
	if _, err := e.RalphLoopCmd(ctx, "install", "--host", "gemini", "--scope", scope, "--dir", e.Project); err != nil {
		return nil, err
	}
	return e, nil
}

// environ is the environment of gemini and ralph-loop (see e2e.Base.Offline), ralph-loop
// first on PATH, with the fake at apiURL when given. CI is left out too: Gemini CLI runs
// differently on a CI machine.
func (e *Env) environ(apiURL string) []string {
	set := []string{e2e.PathWith(filepath.Dir(e.RalphLoop)), "TERM=dumb", "GEMINI_API_KEY=dummy-local-key"}
	if apiURL != "" {
		set = append(set, "GOOGLE_GEMINI_BASE_URL="+apiURL)
	}
	return slices.DeleteFunc(e.Offline([]string{"GEMINI", "GOOGLE"}, set...), func(kv string) bool { return strings.HasPrefix(kv, "CI=") })
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Status returns the session's loops as "ralph-loop status --json" prints them (none when
// the session never had one).
func (e *Env) Status(ctx context.Context, session string) ([]Loop, error) {
	loops, err := e.StatusOf(ctx, session)
	if err != nil && strings.Contains(err.Error(), "has no ralph loop") {
		return nil, nil
	}
	return loops, err
}

// Run is one headless run: "gemini -p PROMPT --yolo" in the project.
type Run struct {
	Script    Script
	Prompt    string
	SessionID string // "" for a new random one
	// Resume resumes the session ("latest"); SessionID then only names it for the result.
	Resume  string
	Args    []string
	Timeout time.Duration
	// KillWhen, if set, is polled while the run goes on: once it returns true the CLI is
	// killed (SIGKILL: no SessionEnd, as when a machine or terminal dies).
	KillWhen func(f *Fake) bool
}

// Result is what a run produced.
type Result struct {
	Fake           *Fake
	SessionID      string
	ExitCode       int
	Killed         bool
	Stdout, Stderr string
	Elapsed        time.Duration
}

// NewSessionID returns a random UUID.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Run starts a fake API for the run's script and runs gemini headless.
func (e *Env) Run(ctx context.Context, r Run) (*Result, error) {
	fake, err := StartFake(r.Script)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	if r.Timeout == 0 {
		r.Timeout = 4 * time.Minute
	}
	if r.SessionID == "" {
		r.SessionID = NewSessionID()
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	args := []string{"-p", r.Prompt, "--yolo", "-m", Model}
	if r.Resume != "" {
		args = append(args, "--resume", r.Resume)
	} else {
		args = append(args, "--session-id", r.SessionID)
	}
	args = append(args, r.Args...)
	cmd := exec.CommandContext(ctx, e.Gemini, args...)
	cmd.Dir = e.Project
	cmd.Env = e.environ(fake.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Gemini CLI relaunches itself as a child node process: the whole group is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gemini: %w", err)
	}
	killed, stop := false, func() {}
	if r.KillWhen != nil {
		stop = e2e.Watch(20*time.Millisecond, func() bool { return r.KillWhen(fake) },
			func() { killed = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) == nil })
	}
	runErr := cmd.Wait()
	stop()
	res := &Result{Fake: fake, SessionID: r.SessionID, Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start), Killed: killed}
	if killed {
		return res, nil
	}
	res.ExitCode, err = e2e.Exited(ctx, "gemini", runErr)
	return res, err
}
