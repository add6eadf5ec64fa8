package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Env is one isolated world (see e2e.Base) with Codex's configuration in CodexHome.
type Env struct {
	e2e.Base
	Codex, CodexHome string
	Fake             *Fake
	// Path, if set, is put before $PATH (for hooks that run the ralph-loop on PATH).
	Path string
}

// NewEnv lays out an Env under root, with Codex configured to use fake as its model. The
// project is marked trusted, as Codex's first-run question would (for project hooks).
func NewEnv(root, codex, ralphLoop string, fake *Fake) (*Env, error) {
	e := &Env{Codex: codex, CodexHome: filepath.Join(root, "home", ".codex"), Fake: fake}
	if err := e.Lay("codex", root, ralphLoop, e.environ, e.CodexHome); err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"
`, fake.URL, e.Project)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	return e, nil
}

// UseModel makes Codex ask the fake for model (its catalog entry says which tools Codex
// offers: gpt-5.5 gets the apply_patch tool).
func (e *Env) UseModel(model string) error {
	path := filepath.Join(e.CodexHome, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Replace(string(b), `model = "fake-model"`, fmt.Sprintf("model = %q", model), 1)), 0o644)
}

// environ is the environment of codex and ralph-loop (see e2e.Base.Offline), with the
// fake's key.
func (e *Env) environ() []string {
	set := []string{"CODEX_HOME=" + e.CodexHome, "FAKE_API_KEY=sk-test-dummy"}
	if e.Path != "" {
		set = append(set, e2e.PathWith(e.Path))
	}
	return e.Offline([]string{"CODEX", "OPENAI"}, set...)
}

// InstallHooks runs "ralph-loop install --host codex" for the user's Codex, as a user would.
func (e *Env) InstallHooks(ctx context.Context, extra ...string) (string, error) {
	return e.RalphLoopCmd(ctx, append([]string{"install", "--host", "codex", "--scope", "user"}, extra...)...)
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Status returns the loops of "ralph-loop status --json", for one session if given.
func (e *Env) Status(ctx context.Context, session string) ([]Loop, error) {
	return e.StatusOf(ctx, session)
}

// Result is one run of "codex exec".
type Result struct {
	ExitCode  int
	SessionID string
	Stdout    string // the --json event stream
	Stderr    string
	Elapsed   time.Duration
}

// Messages are the agent's messages of the run, from its --json events.
func (r *Result) Messages() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type, Text string
			} `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "item.completed" && ev.Item.Type == "agent_message" {
			out = append(out, ev.Item.Text)
		}
	}
	return out
}

// Exec runs "codex exec --json PROMPT" in the project, or, with a session id, resumes that
// session with the prompt. Hooks run as Codex's trust allows: no bypass.
func (e *Env) Exec(ctx context.Context, session, prompt string) (*Result, error) {
	return e.ExecInterrupt(ctx, session, prompt, nil)
}

// ExecInterrupt is Exec, with Ctrl-C (SIGINT) sent to codex once interrupt returns true
// (polled; nil: never), as a user at the terminal would.
func (e *Env) ExecInterrupt(ctx context.Context, session, prompt string, interrupt func() bool) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	args := []string{"exec", "--json", "--skip-git-repo-check"}
	if session != "" {
		args = append(args, "resume", session, prompt)
	} else {
		args = append(args, prompt)
	}
	cmd := exec.CommandContext(ctx, e.Codex, args...)
	cmd.Dir = e.Project
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	if err == nil && interrupt != nil {
		defer e2e.Watch(20*time.Millisecond, interrupt, func() { cmd.Process.Signal(os.Interrupt) })()
	}
	if err == nil {
		err = cmd.Wait()
	}
	r := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start), SessionID: session}
	if r.ExitCode, err = e2e.Exited(ctx, "codex", err); err != nil {
		return r, err
	}
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "thread.started" && ev.ThreadID != "" {
			r.SessionID = ev.ThreadID
		}
	}
	return r, nil
}
