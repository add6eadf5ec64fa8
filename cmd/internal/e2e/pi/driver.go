// Package pi runs the real pi coding agent (pi, npm @mariozechner/pi-coding-agent), offline,
// against a scripted fake of the OpenAI Chat Completions API (a provider of its own in
// ~/.pi/agent/models.json), with ralph-loop's extension written by "ralph-loop install
// --host pi": in RPC mode (pi --mode rpc, JSON lines on stdin and stdout) and in its TUI
// under tmux. Nothing here is used by ralph-loop itself.
package pi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// Model is the fake's model, as pi's flags name it.
const (
	Provider = "fake"
	Model    = "fake-model"
)

type (
	Script = fakechat.Script
	Turn   = fakechat.Turn
	Fake   = fakechat.Fake
	Loop   = e2e.Loop
)

// Text is an answer of plain text.
var Text = fakechat.Text

// Shell is an answer with optional text, then one call of pi's bash tool.
func Shell(text, command string) Turn {
	return fakechat.Tool(text, "bash", map[string]any{"command": command})
}

// Write is an answer with one call of pi's write tool.
func Write(text, path, content string) Turn {
	return fakechat.Tool(text, "write", map[string]any{"path": path, "content": content})
}

// Env is one isolated world (see e2e.Base) with pi's user directory, and a directory for
// PATH that holds ralph-loop when OnPath.
type Env struct {
	e2e.Base
	Pi, Bin string
	// ModelCost, if set, is the fake model's price in models.json ({"input", "output",
	// "cacheRead", "cacheWrite"}, USD per million tokens): pi computes each reply's cost
	// from it. Without it pi knows no price and records 0.
	ModelCost map[string]float64
}

// NewEnv lays out an Env under root.
func NewEnv(root, pi, ralphLoop string) (*Env, error) {
	e := &Env{Pi: pi, Bin: filepath.Join(root, "bin")}
	if err := e.Lay("pi", root, ralphLoop, e.Environ, e.Bin); err != nil {
		return nil, err
	}
	return e, nil
}

// AgentDir is pi's user directory.
func (e *Env) AgentDir() string { return filepath.Join(e.Home, ".pi", "agent") }

// OnPath puts ralph-loop on the PATH pi runs with (a project's extension runs the one on
// PATH).
func (e *Env) OnPath() error {
	return os.Symlink(e.RalphLoop, filepath.Join(e.Bin, "ralph-loop"))
}

// Environ is the environment of pi and ralph-loop (see e2e.Base.Offline): the home's
// directories for XDG's, Bin first on PATH, and pi's offline settings (no version check, no
// tool downloads, no telemetry, no npm registry).
func (e *Env) Environ() []string {
	return e.Offline([]string{"PI_", "OPENAI", "ANTHROPIC", "GEMINI", "npm_config"},
		"PWD="+e.Project, e2e.PathWith(e.Bin), "XDG_CONFIG_HOME="+filepath.Join(e.Home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(e.Home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(e.Home, ".cache"),
		"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0",
		"npm_config_offline=true", "npm_config_registry=http://127.0.0.1:9/")
}

// Configure starts a fake serving script and writes pi's models.json for it: the fake as a
// provider of its own, OpenAI-compatible.
func (e *Env) Configure(script Script) (*Fake, error) {
	fake, err := fakechat.StartFake(script)
	if err != nil {
		return nil, err
	}
	model := map[string]any{"id": Model, "name": "Fake model", "reasoning": false, "input": []string{"text"},
		"contextWindow": 128000, "maxTokens": 4096}
	if e.ModelCost != nil {
		model["cost"] = e.ModelCost
	}
	cfg := map[string]any{"providers": map[string]any{Provider: map[string]any{
		"baseUrl": fake.URL, "api": "openai-completions", "apiKey": "dummy",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{model},
	}}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(e.AgentDir(), 0o755); err != nil {
		fake.Close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(e.AgentDir(), "models.json"), b, 0o644); err != nil {
		fake.Close()
		return nil, err
	}
	return fake, nil
}

// Args are pi's flags for the fake's model.
func Args() []string { return []string{"--provider", Provider, "--model", Model} }

// RPC is a running "pi --mode rpc" in the project.
type RPC struct {
	Fake *Fake
	// Stderr is pi's stderr.
	Stderr *bytes.Buffer

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	cancel context.CancelFunc
	done   chan struct{}
	events fakeserver.Log[Event]
}

// Event is one line pi printed: an agent event, a response, or an extension UI request.
type Event struct {
	At         time.Time
	Type       string `json:"type"`
	Method     string `json:"method"`
	Message    string `json:"message"`
	NotifyType string `json:"notifyType"`
	Command    string `json:"command"`
	Success    *bool  `json:"success"`
	Error      string `json:"error"`
	Raw        []byte `json:"-"`
}

// StartRPC starts "pi --mode rpc" with script's fake and args more.
func (e *Env) StartRPC(ctx context.Context, script Script, args ...string) (*RPC, error) {
	fake, err := e.Configure(script)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, e.Pi, append(append([]string{"--mode", "rpc"}, Args()...), args...)...)
	cmd.Dir = e.Project
	cmd.Env = e.Environ()
	cmd.WaitDelay = 5 * time.Second
	r := &RPC{Fake: fake, Stderr: &bytes.Buffer{}, cmd: cmd, cancel: cancel, done: make(chan struct{})}
	cmd.Stderr = r.Stderr
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		cancel()
		fake.Close()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		fake.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		fake.Close()
		return nil, err
	}
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var ev Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			ev.At, ev.Raw = time.Now(), append([]byte(nil), sc.Bytes()...)
			r.events.Add(ev)
		}
	}()
	return r, nil
}

// Close ends pi (stdin closed, then killed if it goes on) and the fake.
func (r *RPC) Close() {
	r.stdin.Close()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
	}
	r.cancel()
	r.cmd.Wait()
	r.Fake.Close()
}

// Send writes one command.
func (r *RPC) Send(cmd map[string]any) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	_, err = r.stdin.Write(append(b, '\n'))
	return err
}

// Prompt sends text as the user's prompt ("/ralph-loop …" runs the extension's command);
// while the agent works, with steer, as pi's TUI sends a message typed then.
func (r *RPC) Prompt(text string, steer bool) error {
	cmd := map[string]any{"type": "prompt", "message": text}
	if steer {
		cmd["streamingBehavior"] = "steer"
	}
	return r.Send(cmd)
}

// Events are the lines pi printed so far.
func (r *RPC) Events() []Event { return r.events.All() }

// Notices are the extension's notifications to the user, in order.
func (r *RPC) Notices() []string {
	var out []string
	for _, ev := range r.Events() {
		if ev.Type == "extension_ui_request" && ev.Method == "notify" {
			out = append(out, ev.Message)
		}
	}
	return out
}

// Count is how many events of the type pi printed.
func (r *RPC) Count(typ string) int {
	n := 0
	for _, ev := range r.Events() {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// Settled waits until pi has answered the commands sent since the first from events (one
// response each), has been idle (as many agent_end as agent_start, no new event) for
// quiet, and done holds; it returns how many runs there were in all.
func (r *RPC) Settled(ctx context.Context, from, sent int, quiet time.Duration, done func() bool) (int, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		evs := r.Events()
		answered := 0
		for _, ev := range evs[min(from, len(evs)):] {
			if ev.Type == "response" {
				answered++
			}
		}
		starts, ends := 0, 0
		var last time.Time
		for _, ev := range evs {
			switch ev.Type {
			case "agent_start":
				starts++
			case "agent_end":
				ends++
			}
			last = ev.At
		}
		if answered >= sent && starts == ends && time.Since(last) >= quiet && done() {
			return starts, nil
		}
		select {
		case <-r.done:
			return starts, fmt.Errorf("pi exited: %s", r.Stderr.String())
		case <-ctx.Done():
			return starts, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return starts, fmt.Errorf("pi did not settle in 3 minutes (%d runs started, %d ended)", starts, ends)
		}
	}
}
