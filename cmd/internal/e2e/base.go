package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Base is what each host suite's Env is built on: one isolated world under Root (a home, a
// project, ralph-loop's state directory, a temporary directory), and ralph-loop's commands
// run there with the host's environment. A host's Env embeds it and adds the host's own:
// its CLI, its configuration files, the environment its CLI runs with (see Offline).
type Base struct {
	RalphLoop string
	Root      string
	Home      string
	Project   string
	State     string // XDG_STATE_HOME
	Tmp       string // TMPDIR

	host    string
	environ func() []string
}

// Lay lays out the Base under root for host (ralph-loop's name for it: "qwen"), with the
// directories more made too. environ is the environment ralph-loop runs with: the host's,
// as its CLI runs the hooks (read at each command, so that it may change).
func (b *Base) Lay(host, root, ralphLoop string, environ func() []string, more ...string) error {
	*b = Base{RalphLoop: ralphLoop, Root: root, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"),
		State: filepath.Join(root, "state"), Tmp: filepath.Join(root, "tmp"), host: host, environ: environ}
	for _, d := range append([]string{b.Home, b.Project, b.State, b.Tmp}, more...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// World is the Base itself, for an Env that embeds it: what the shared suites read of any
// host's world (see ChatEnv).
func (b *Base) World() *Base { return b }

// Offline is the environment of a host CLI and ralph-loop in the world: the caller's, less
// anything that could reach a real account or another session (the variables whose names
// start with one of drop, in any case, and every XDG_*, *_proxy, HOME and TMPDIR), plus the
// world's HOME, TMPDIR and XDG_STATE_HOME, no proxy for 127.0.0.1, and set. A variable of
// set replaces the caller's of that name.
func (b *Base) Offline(drop []string, set ...string) []string {
	replaced := map[string]bool{}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		replaced[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if replaced[k] || k == "HOME" || k == "TMPDIR" || hasPrefixFold(k, "XDG_") || strings.HasSuffix(strings.ToLower(k), "_proxy") {
			continue
		}
		if dropped(k, drop) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+b.Home, "TMPDIR="+b.Tmp, "XDG_STATE_HOME="+b.State,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	return append(env, set...)
}

// dropped says whether the name k starts with one of the prefixes, in any case.
func dropped(k string, prefixes []string) bool {
	for _, p := range prefixes {
		if hasPrefixFold(k, p) {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// PathWith is $PATH with dir first ("PATH=dir:$PATH"), for Offline's set.
func PathWith(dir string) string {
	return "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// RalphLoopCmd runs ralph-loop in the project, in the host's environment, and returns its
// stdout; its error names the command and holds ralph-loop's stderr.
func (b *Base) RalphLoopCmd(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.RalphLoop, args...)
	cmd.Dir = b.Project
	cmd.Env = b.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("ralph-loop %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// Install runs "ralph-loop install --host HOST --scope SCOPE" (user: into the home;
// project: into the project, with --dir).
func (b *Base) Install(ctx context.Context, scope string) (string, error) {
	return b.InstallAs(ctx, b.host, scope)
}

// InstallAs is Install for the host named host (a CLI of another's family).
func (b *Base) InstallAs(ctx context.Context, host, scope string) (string, error) {
	args := []string{"install", "--host", host, "--scope", scope}
	if scope == "project" {
		args = append(args, "--dir", b.Project)
	}
	return b.RalphLoopCmd(ctx, args...)
}

// Status returns the loops of "ralph-loop status --json".
func (b *Base) Status(ctx context.Context) ([]Loop, error) { return b.StatusOf(ctx, "") }

// StatusOf returns the loops of "ralph-loop status --json", for one session if given.
func (b *Base) StatusOf(ctx context.Context, session string) ([]Loop, error) {
	args := []string{"status", "--json"}
	if session != "" {
		args = append(args, "--session", session)
	}
	out, err := b.RalphLoopCmd(ctx, args...)
	if err != nil {
		return nil, err
	}
	return DecodeStatus(out)
}
