package gemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// syncBuffer is a bytes.Buffer safe for one writer and polling readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TUI is Gemini CLI's interactive terminal UI running in a pseudo-terminal made by
// script(1), its keyboard a pipe.
type TUI struct {
	Fake   *Fake
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *syncBuffer
	waited chan struct{}
}

// StartTUI starts "gemini --yolo" interactively in the project, against a fake with script.
func (e *Env) StartTUI(script Script) (*TUI, error) {
	sh, err := exec.LookPath("script")
	if err != nil {
		return nil, err
	}
	fake, err := StartFake(script)
	if err != nil {
		return nil, err
	}
	line := "stty rows 40 cols 120; exec " + shellQuote(e.Gemini) + " --yolo -m " + Model
	cmd := exec.Command(sh, "-qfec", line, "/dev/null")
	cmd.Dir = e.Project
	cmd.Env = append(e.environ(fake.URL), "TERM=xterm-256color")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &TUI{Fake: fake, cmd: cmd, out: &syncBuffer{}, waited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t.out, t.out
	if t.in, err = cmd.StdinPipe(); err != nil {
		fake.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		fake.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(t.waited) }()
	return t, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Screen is everything the TUI wrote, escape sequences removed.
func (t *TUI) Screen() string {
	return ansi.ReplaceAllString(t.out.String(), "")
}

var ansi = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// WaitFor polls until cond holds or the timeout passes.
func WaitFor(timeout time.Duration, cond func() bool) bool {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Type types text, then Enter a moment later (the TUI takes a fast Enter as part of a paste).
func (t *TUI) Type(text string) error {
	if _, err := io.WriteString(t.in, text); err != nil {
		return err
	}
	// Enter once the prompt box shows the text, and again while it still does: on a loaded
	// machine the UI can take the text late, or drop an Enter while it runs a hook.
	head := text[:min(len(text), 20)]
	typed := func() bool { return strings.Contains(t.promptLine(), head) }
	WaitFor(30*time.Second, typed)
	for range 5 {
		time.Sleep(200 * time.Millisecond)
		if _, err := io.WriteString(t.in, "\r"); err != nil {
			return err
		}
		if WaitFor(5*time.Second, func() bool { return !typed() }) {
			return nil
		}
	}
	return nil
}

// promptLine is the prompt box's line as last drawn: the last line that starts with "*"
// (the box's mark, before the typed text or the placeholder).
func (t *TUI) promptLine() string {
	lines := strings.Split(t.Screen(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "* ") || l == "*" {
			return l
		}
	}
	return ""
}

// Close kills the TUI and stops the fake. script(1) runs the CLI in a session of its own
// (the pseudo-terminal's), which some of its processes outlive: each child of script is
// killed with its process group, then script's own group.
func (t *TUI) Close() {
	for _, pid := range childrenOf(t.cmd.Process.Pid) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-t.waited:
	case <-time.After(10 * time.Second):
	}
	t.in.Close()
	t.Fake.Close()
}

// childrenOf lists the processes whose parent is pid (from /proc; none where there is no
// /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == fmt.Sprint(pid) {
			var child int
			if _, err := fmt.Sscan(e.Name(), &child); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}
