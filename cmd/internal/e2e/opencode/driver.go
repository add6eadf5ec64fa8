// Package opencode runs the real opencode, offline, under "opencode serve" (opencode run
// exits at the first idle, so loops run in the TUI and under serve), against a scripted fake
// of the OpenAI Chat Completions API, with ralph-loop's plugin written by "ralph-loop install
// --host opencode". It drives sessions through serve's HTTP API and reads its event stream.
// Nothing here is used by ralph-loop itself.
package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// The scripted fake model (see fakechat).
type (
	Turn   = fakechat.Turn
	Script = fakechat.Script
	Fake   = fakechat.Fake
)

// Text is a plain answer.
func Text(s string) Turn { return fakechat.Text(s) }

// Shell is an answer with optional text, then a call of opencode's bash tool.
func Shell(text, command string) Turn {
	return fakechat.Tool(text, "bash", map[string]any{"command": command, "description": "run a command"})
}

// Flavor is a CLI of opencode's family: opencode, or a fork with its plugin API and server
// (Kilo Code's kilo) that differs in its names.
type Flavor struct {
	Host      string // ralph-loop's name for it, and the user configuration directory's
	Config    string // the project's configuration file
	EnvPrefix string // the prefix of its variables ("OPENCODE")
}

// Opencode is opencode's Flavor.
var Opencode = Flavor{Host: "opencode", Config: "opencode.json", EnvPrefix: "OPENCODE"}

// Env is one isolated world (see e2e.Base) of a CLI of opencode's family, with a directory
// for PATH that holds ralph-loop when OnPath.
type Env struct {
	Flavor
	e2e.Base
	Opencode, Bin string
	// Model is the fake's model name ("": fake-model). opencode picks the tools it offers
	// by it: a "gpt-" model gets apply_patch instead of edit and write.
	Model string
	// ModelCost, if set, is the fake model's price in opencode's config ({"input",
	// "output", "cache_read", "cache_write"}, USD per million tokens): opencode computes
	// each message's cost from it. Without it opencode knows no price and reports 0.
	ModelCost map[string]float64
}

// NewEnv lays out an Env under root.
func NewEnv(root, opencode, ralphLoop string) (*Env, error) {
	e := &Env{Flavor: Opencode, Opencode: opencode, Bin: filepath.Join(root, "bin")}
	if err := e.Lay("opencode", root, ralphLoop, e.environ, e.Bin); err != nil {
		return nil, err
	}
	return e, nil
}

// OnPath puts ralph-loop on the PATH opencode runs with (a project's plugin runs the one
// on PATH).
func (e *Env) OnPath() error {
	return os.Symlink(e.RalphLoop, filepath.Join(e.Bin, "ralph-loop"))
}

// ConfigDir is opencode's user configuration directory.
func (e *Env) ConfigDir() string { return filepath.Join(e.Home, ".config", e.Host) }

// environ is the environment of opencode and ralph-loop (see e2e.Base.Offline): the home's
// directories for XDG's, Bin first on PATH, PWD the project (opencode takes its directory
// from it, not from the working directory), and the offline settings (no models.dev fetch,
// no update, no LSP download; the npm install opencode runs into its config directories
// fails at once instead of retrying).
func (e *Env) environ() []string {
	p := e.EnvPrefix
	return e.Offline([]string{"OPENCODE", p, "OPENAI", "ANTHROPIC", "npm_config"},
		"PWD="+e.Project, e2e.PathWith(e.Bin), "XDG_CONFIG_HOME="+filepath.Join(e.Home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(e.Home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(e.Home, ".cache"),
		p+"_DISABLE_MODELS_FETCH=1", p+"_DISABLE_AUTOUPDATE=1", p+"_DISABLE_LSP_DOWNLOAD=1", p+"_DISABLE_SHARE=1",
		"npm_config_offline=true", "npm_config_registry=http://127.0.0.1:9/")
}

// Install runs "ralph-loop install --host HOST" (the flavour's) at a scope (user: the
// plugin in ~/.config/opencode; project: in the project's .opencode).
func (e *Env) Install(ctx context.Context, scope string) (string, error) {
	return e.InstallAs(ctx, e.Host, scope)
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Server is a running "opencode serve" in the project, with its event stream read.
type Server struct {
	URL  string
	Fake *Fake
	Log  *bytes.Buffer // opencode's own log (--print-logs)

	env    *Env
	cmd    *exec.Cmd
	cancel context.CancelFunc
	mu     sync.Mutex // Log's
	events fakeserver.Log[Event]
}

// Event is one event of serve's stream.
type Event struct {
	At         time.Time
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

// Configure starts a fake serving script and writes the project's opencode.json for it (the
// fake is the only provider; without a project config opencode falls back to a hosted
// model).
func (e *Env) Configure(script Script) (*Fake, error) {
	fake, err := fakechat.StartFake(script)
	if err != nil {
		return nil, err
	}
	model := e.Model
	if model == "" {
		model = "fake-model"
	}
	spec := map[string]any{"name": "Fake Model"}
	if e.ModelCost != nil {
		spec["cost"] = e.ModelCost
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": fake.URL, "apiKey": "dummy-local-key"},
			"models":  map[string]any{model: spec},
		}},
		"enabled_providers": []string{"fake"}, "model": "fake/" + model, "small_model": "fake/" + model,
		"autoupdate": false, "share": "disabled",
		// The agent's tools run without asking, as in the other hosts' suites (Kilo 7.7.9
		// asked, once in a while, before "sleep 8" in the TUI, and the test waited on it).
		"permission": map[string]any{"bash": "allow", "edit": "allow"},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(e.Project, e.Config), b, 0o644); err != nil {
		fake.Close()
		return nil, err
	}
	return fake, nil
}

// Environ is the environment opencode runs with here (see environ).
func (e *Env) Environ() []string { return e.environ() }

// Serve configures the project for a fake serving script (Configure) and starts "opencode
// serve" on a free port of 127.0.0.1.
func (e *Env) Serve(ctx context.Context, script Script) (*Server, error) {
	fake, err := e.Configure(script)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{Fake: fake, Log: &bytes.Buffer{}, env: e, cancel: cancel}
	s.cmd = exec.CommandContext(ctx, e.Opencode, "serve", "--port", "0", "--hostname", "127.0.0.1", "--print-logs")
	s.cmd.Dir = e.Project
	s.cmd.Env = e.environ()
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.Cancel = func() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) }
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: s.Log}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		s.Close()
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		s.Close()
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		re := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
		for sc.Scan() {
			if m := re.FindString(sc.Text()); m != "" {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case s.URL = <-found:
	case <-time.After(3 * time.Minute): // it takes seconds of CPU to start: minutes on a loaded machine
		s.Close()
		return nil, fmt.Errorf("%s serve did not start in 3 minutes; its log:\n%s", e.Host, s.Log)
	}
	if err := s.subscribe(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close stops the server and the fake.
func (s *Server) Close() {
	s.cancel()
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Wait()
	}
	s.Fake.Close()
}

func (s *Server) request(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-opencode-directory", url.PathEscape(s.env.Project))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, res.Status, data)
	}
	if out != nil && len(data) > 0 {
		return json.Unmarshal(data, out)
	}
	return nil
}

// subscribe reads serve's event stream (GET /event) until the server stops.
func (s *Server) subscribe(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/event", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-opencode-directory", url.PathEscape(s.env.Project))
	var res *http.Response
	for range 100 {
		if res, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("GET /event: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return fmt.Errorf("GET /event: %s", res.Status)
	}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var ev Event
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) != nil {
				continue
			}
			ev.At = time.Now()
			s.events.Add(ev)
		}
	}()
	return nil
}

// Events are the events seen so far.
func (s *Server) Events() []Event { return s.events.All() }

// Toasts are the messages of the toasts shown so far (what a user of the TUI sees).
func (s *Server) Toasts() []string {
	var out []string
	for _, ev := range s.Events() {
		if ev.Type != "tui.toast.show" {
			continue
		}
		var p struct{ Message string }
		json.Unmarshal(ev.Properties, &p)
		out = append(out, p.Message)
	}
	return out
}

// NewSession creates a session (with a title, so that opencode asks the model for none).
func (s *Server) NewSession(ctx context.Context) (string, error) {
	var out struct{ ID string }
	if err := s.request(ctx, http.MethodPost, "/session", map[string]any{"title": "ralph-loop e2e"}, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// Prompt sends text to the session as typed (no command expansion) and returns at once.
func (s *Server) Prompt(ctx context.Context, id, text string) error {
	return s.request(ctx, http.MethodPost, "/session/"+id+"/prompt_async",
		map[string]any{"parts": []any{map[string]any{"type": "text", "text": text}}}, nil)
}

// Command runs a command in the session as the TUI does for "/NAME ARGUMENTS". serve
// answers it when the turn ends (at once when the plugin drops it); the answer is not
// waited for, but the channel returned is closed when it comes.
func (s *Server) Command(ctx context.Context, id, name, arguments string) <-chan struct{} {
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		s.request(ctx, http.MethodPost, "/session/"+id+"/command", map[string]any{"command": name, "arguments": arguments}, nil)
	}()
	return answered
}

// Settled waits until the session has gone idle after being busy (since a time) and has stayed idle for
// settle, and done reports true (or the session has stayed idle for a minute), or, for a
// command the plugin may drop (dropped, closed once the command is answered; nil for a
// prompt), the command is answered, the session has not gone busy for settle, and done
// reports true; it returns how many times the session went busy. done is what the caller waits for (a loop's end):
// the plugin's continuation follows an idle within milliseconds, but its decision can take
// longer on a loaded machine.
func (s *Server) Settled(ctx context.Context, id string, since time.Time, settle time.Duration, done func() bool, dropped <-chan struct{}) (turns int, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		status, at, busies := "", time.Time{}, 0
		for _, ev := range s.Events() {
			if ev.Type != "session.status" || ev.At.Before(since) {
				continue
			}
			var p struct {
				SessionID string
				Status    struct{ Type string }
			}
			json.Unmarshal(ev.Properties, &p)
			if p.SessionID != id {
				continue
			}
			if p.Status.Type == "busy" && status != "busy" {
				busies++
			}
			status, at = p.Status.Type, ev.At
		}
		if idle := time.Since(at); busies > 0 && status == "idle" && (idle >= settle && done() || idle >= time.Minute) {
			return busies, nil
		}
		// A command the plugin dropped (the cancel) never makes the session busy: it is
		// answered at once.
		if answered := closed(dropped); busies == 0 && answered && time.Since(since) >= settle && done() {
			return 0, nil
		}
		select {
		case <-ctx.Done():
			return busies, fmt.Errorf("session %s not settled (status %q): %w", id, status, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Message is one message of a session: its role and text parts.
type Message struct {
	Role string
	// Finish is why an assistant message ended ("stop", "tool-calls").
	Finish string
	Text   string
	Tools  []string // tool parts: "tool:status"
}

// Messages returns the session's messages.
func (s *Server) Messages(ctx context.Context, id string) ([]Message, error) {
	var raw []struct {
		Info  struct{ Role, Finish string }
		Parts []struct {
			Type, Text, Tool string
			State            struct{ Status string }
		}
	}
	if err := s.request(ctx, http.MethodGet, "/session/"+id+"/message", nil, &raw); err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range raw {
		msg := Message{Role: m.Info.Role, Finish: m.Info.Finish}
		var texts []string
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				texts = append(texts, p.Text)
			case "tool":
				msg.Tools = append(msg.Tools, p.Tool+":"+p.State.Status)
			}
		}
		msg.Text = strings.Join(texts, "\n")
		out = append(out, msg)
	}
	return out, nil
}

// Errors are the session errors seen (their names and messages).
func (s *Server) Errors() []string {
	var out []string
	for _, ev := range s.Events() {
		if ev.Type == "session.error" {
			out = append(out, string(ev.Properties))
		}
	}
	return out
}

// RunCLI runs "opencode run ARGS" in the project against a fake serving script, and returns
// its output and the fake.
func (e *Env) RunCLI(ctx context.Context, script Script, args ...string) (string, *Fake, error) {
	fake, err := e.Configure(script)
	if err != nil {
		return "", nil, err
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Opencode, append([]string{"run"}, args...)...)
	cmd.Dir = e.Project
	cmd.Env = e.environ()
	out, err := cmd.CombinedOutput()
	return string(out), fake, err
}

// closed reports whether c is closed (a nil c never is).
func closed(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}
