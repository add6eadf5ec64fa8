package copilot

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// Env is one isolated world (see e2e.Base) with Copilot CLI's user directory. Copilot CLI
// unpacks itself (235 MB) into XDG_CACHE_HOME on its first run: that directory is shared by
// every run (Cache).
type Env struct {
	e2e.Base
	Copilot, Cache string
}

// NewEnv lays out an Env under root.
func NewEnv(root, copilot, ralphLoop string) (*Env, error) {
	cache, err := e2e.CacheDir()
	if err != nil {
		return nil, err
	}
	e := &Env{Copilot: copilot, Cache: filepath.Join(cache, "copilot-xdg-cache")}
	if err := e.Lay("copilot", root, ralphLoop, func() []string { return e.environ("", nil) },
		filepath.Join(root, "home", ".copilot"), e.Cache); err != nil {
		return nil, err
	}
	return e, nil
}

// UserDir is $COPILOT_HOME.
func (e *Env) UserDir() string { return filepath.Join(e.Home, ".copilot") }

// environ is the environment of copilot and ralph-loop (see e2e.Base.Offline), with the
// fake at apiURL as Copilot CLI's provider when given.
func (e *Env) environ(apiURL string, extra []string) []string {
	set := []string{"XDG_CACHE_HOME=" + e.Cache, "TERM=dumb", "COPILOT_HOME=" + e.UserDir(), "COPILOT_AUTO_UPDATE=false", "COPILOT_OFFLINE=true"}
	if apiURL != "" {
		set = append(set, "COPILOT_PROVIDER_BASE_URL="+apiURL, "COPILOT_PROVIDER_API_KEY=dummy-local-key", "COPILOT_MODEL=fake-model")
	}
	return e.Offline([]string{"COPILOT", "GITHUB", "GH_", "OPENAI", "ANTHROPIC", "CLAUDE"}, append(set, extra...)...)
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Run is one "copilot -p PROMPT --allow-all-tools --no-auto-update" in the project.
type Run struct {
	Script fakechat.Script
	Prompt string
	Args   []string // more copilot flags
	Env    []string // more environment
	// KillAt kills copilot (its whole process group, with SIGKILL: no sessionEnd hook
	// runs) once the fake has had this many agent requests (0: never).
	KillAt int
}

// Headless runs a prompt of the suite the hosts share (see e2e.ChatSuite): "copilot -p".
func (e *Env) Headless(ctx context.Context, p e2e.Prompt) (*e2e.Ran, error) {
	return e.Run(ctx, Run{Script: p.Script, Prompt: p.Prompt, Args: p.Args, Env: p.Env})
}

// Run runs copilot headless against a fake serving r.Script, with stdin closed, in a
// process group of its own.
func (e *Env) Run(ctx context.Context, r Run) (*e2e.Ran, error) {
	var killAt func(*fakechat.Fake) bool
	if r.KillAt > 0 {
		killAt = func(fake *fakechat.Fake) bool {
			if len(fake.MainRequests()) < r.KillAt {
				return false
			}
			time.Sleep(200 * time.Millisecond)
			return true
		}
	}
	return e2e.RunHeadless(ctx, "copilot", r.Script, func(ctx context.Context, fakeURL string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, e.Copilot, append([]string{"-p", r.Prompt, "--allow-all-tools", "--no-auto-update"}, r.Args...)...)
		cmd.Dir, cmd.Env = e.Project, e.environ(fakeURL, r.Env)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}, killAt)
}
