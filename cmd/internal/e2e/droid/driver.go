package droid

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
	"strings"
	"sync"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// Model is the custom model's id on droid's command line.
const Model = "custom:fake-model"

// keyEnv holds the fake's API key; the settings name it, as a person keeps a key out of
// the file.
const keyEnv = "RALPH_E2E_FAKE_API_KEY"

// Env is one isolated world (see e2e.Base) with Factory Droid's user directory.
type Env struct {
	e2e.Base
	Droid string
}

// NewEnv lays out an Env under root.
func NewEnv(root, droid, ralphLoop string) (*Env, error) {
	e := &Env{Droid: droid}
	if err := e.Lay("droid", root, ralphLoop, func() []string { return e.environ(nil) }, filepath.Join(root, "home", ".factory")); err != nil {
		return nil, err
	}
	return e, nil
}

// writeSettings points Factory Droid's custom model at the fake (BYOK, an OpenAI
// chat-completions provider). Hooks are not here: "ralph-loop install" writes hooks.json.
func (e *Env) writeSettings(apiURL string) error {
	s := map[string]any{"customModels": []any{map[string]any{
		"model": "fake-model", "displayName": "Fake", "baseUrl": apiURL, "apiKey": "${" + keyEnv + "}",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 4096}}}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(e.Home, ".factory", "settings.json"), b, 0o644)
}

// environ is the environment of droid and ralph-loop (see e2e.Base.Offline), with the
// fake's key.
func (e *Env) environ(extra []string) []string {
	set := []string{"TERM=dumb", keyEnv + "=dummy-local-key", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"}
	return e.Offline([]string{"FACTORY", "DROID", "OPENAI", "ANTHROPIC", "CLAUDE"}, append(set, extra...)...)
}

// Install runs "ralph-loop install" with the given scope (user: into the home's
// ~/.factory; project: into the project's .factory) and no --host: it must find Droid, with
// the droid binary on PATH.
func (e *Env) Install(ctx context.Context, scope string) (string, error) {
	args := []string{"install", "--scope", scope}
	if scope == "project" {
		args = append(args, "--dir", e.Project)
	}
	cmd := exec.CommandContext(ctx, e.RalphLoop, args...)
	cmd.Dir = e.Project
	cmd.Env = e.environ([]string{e2e.PathWith(filepath.Dir(e.Droid))})
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ralph-loop install: %v: %s", err, out)
	}
	return string(out), nil
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Run is one session: "droid exec" with the prompt (RPC false), or, with RPC, one "droid
// exec --input-format stream-jsonrpc" fed each prompt in turn, each after the last turn
// ended.
type Run struct {
	Script  fakechat.Script
	Prompts []string
	RPC     bool
	Env     []string // more environment
	// Session (RPC) loads that session instead of starting one.
	Session string
	// During (RPC) is a prompt sent while the first prompt's turn runs, once DuringWhen,
	// polled, is true (typed while the agent works).
	During     string
	DuringWhen func(*fakechat.Fake) bool
	// KillWhen (RPC), polled while droid runs, kills it when true (a terminal closed
	// mid-turn).
	KillWhen func(*fakechat.Fake) bool
}

// Result is what a run produced.
type Result struct {
	Stdout, Stderr string
	Code           int
	Fake           *fakechat.Fake
	// Notifications are the stream-jsonrpc notifications' inner objects (RPC).
	Notifications []map[string]any
	// SessionID is the session's id (RPC); Killed says KillWhen killed droid.
	SessionID string
	Killed    bool
}

// Headless runs a prompt of the suite the hosts share (see e2e.ChatSuite): one "droid exec"
// session in stream-jsonrpc, where the prompt hook runs.
func (e *Env) Headless(ctx context.Context, p e2e.Prompt) (*e2e.Ran, error) {
	res, err := e.Run(ctx, Run{RPC: true, Script: p.Script, Prompts: []string{p.Prompt}, Env: p.Env})
	if res == nil {
		return nil, err
	}
	return &e2e.Ran{Stdout: res.Stdout, Stderr: res.Stderr, Code: res.Code, Fake: res.Fake, Log: fmt.Sprintf("%d requests", len(res.Fake.Requests()))}, err
}

// Run runs droid against a fake serving r.Script.
func (e *Env) Run(ctx context.Context, r Run) (*Result, error) {
	fake, err := fakechat.StartFake(r.Script)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	if err := e.writeSettings(fake.URL); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	args := []string{"exec", "-m", Model, "--auto", "high"}
	if r.RPC {
		args = append(args, "--input-format", "stream-jsonrpc", "--output-format", "stream-jsonrpc")
	} else {
		args = append(args, r.Prompts...)
	}
	cmd := exec.CommandContext(ctx, e.Droid, args...)
	cmd.Dir = e.Project
	cmd.Env = e.environ(r.Env)
	var stdout, stderr bytes.Buffer
	cmd.Stderr = &stderr
	res := &Result{Fake: fake}
	if !r.RPC {
		cmd.Stdout = &stdout
		err = cmd.Run()
	} else {
		err = e.rpc(ctx, cmd, r, &stdout, res)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Code, err = e2e.Exited(ctx, "droid", err)
	return res, err
}

// rpc drives one stream-jsonrpc session: it starts the session, sends each prompt once
// the session is idle again after the last, then closes stdin, which ends droid.
func (e *Env) rpc(ctx context.Context, cmd *exec.Cmd, r Run, raw io.Writer, res *Result) error {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var mu sync.Mutex
	events := make(chan string, 1024) // "response:<id>", "idle"
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			raw.Write(append(line, '\n'))
			var m struct {
				Type, Method string
				ID           any
				Result       struct{ SessionID string }
				Params       struct {
					Notification map[string]any
				}
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			switch {
			case m.Type == "response":
				if m.Result.SessionID != "" {
					mu.Lock()
					res.SessionID = m.Result.SessionID
					mu.Unlock()
				}
				events <- fmt.Sprintf("response:%v", m.ID)
			case m.Params.Notification != nil:
				mu.Lock()
				res.Notifications = append(res.Notifications, m.Params.Notification)
				mu.Unlock()
				if m.Params.Notification["type"] == "droid_working_state_changed" && m.Params.Notification["newState"] == "idle" {
					events <- "idle"
				}
			}
		}
	}()
	send := func(id int, method string, params map[string]any) error {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "type": "request", "factoryApiVersion": "1.0.0",
			"id": fmt.Sprint(id), "method": method, "params": params})
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	wait := func(want string, d time.Duration) error {
		timer := time.NewTimer(d)
		defer timer.Stop()
		for {
			select {
			case ev := <-events:
				if ev == want {
					return nil
				}
			case <-timer.C:
				return fmt.Errorf("no %s within %s", want, d)
			case <-done:
				return fmt.Errorf("droid's output ended before %s", want)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	fail := func(err error) error {
		stdin.Close()
		cmd.Process.Kill()
		<-done
		cmd.Wait()
		return err
	}
	if r.KillWhen != nil {
		stop := e2e.Watch(50*time.Millisecond, func() bool { return r.KillWhen(res.Fake) }, func() {
			mu.Lock()
			res.Killed = true
			mu.Unlock()
			cmd.Process.Kill()
		})
		go func() { <-done; stop() }() // until droid's output ends
	}
	method, params := "droid.initialize_session", map[string]any{"machineId": "ralph-loop-e2e", "cwd": e.Project,
		"modelId": Model, "autonomyLevel": "high"}
	if r.Session != "" {
		method, params = "droid.load_session", map[string]any{"sessionId": r.Session}
	}
	if err := send(1, method, params); err != nil {
		return fail(err)
	}
	if err := wait("response:1", time.Minute); err != nil {
		return fail(err)
	}
	for i, p := range r.Prompts {
		id := i + 2
		if err := send(id, "droid.add_user_message", map[string]any{"text": p}); err != nil {
			return fail(err)
		}
		if err := wait(fmt.Sprintf("response:%d", id), time.Minute); err != nil {
			return fail(err)
		}
		if i == 0 && r.During != "" {
			for !r.DuringWhen(res.Fake) {
				select {
				case <-done:
					return fail(fmt.Errorf("droid's output ended before the message typed during the turn"))
				case <-time.After(20 * time.Millisecond):
				}
			}
			if err := send(100, "droid.add_user_message", map[string]any{"text": r.During}); err != nil {
				return fail(err)
			}
			if err := wait("response:100", time.Minute); err != nil {
				return fail(err)
			}
		}
		// A prompt the hook refused starts no turn: the session stays idle.
		if err := wait("idle", 10*time.Second); err != nil && !strings.HasPrefix(err.Error(), "no idle") {
			if res.Killed {
				break
			}
			return fail(err)
		}
	}
	stdin.Close()
	<-done
	err = cmd.Wait()
	if res.Killed {
		return nil
	}
	return err
}

// Messages are the texts of the messages the session created (stream-jsonrpc), one line
// each with its role.
func (r *Result) Messages() string {
	var b strings.Builder
	for _, n := range r.Notifications {
		if n["type"] != "create_message" {
			continue
		}
		m, _ := n["message"].(map[string]any)
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				fmt.Fprintf(&b, "%v: %v\n", m["role"], pm["text"])
			}
		}
	}
	return b.String()
}
