// Package e2e runs the real Claude Code CLI, offline, against a scripted fake of the
// Anthropic Messages API, with ralph-loop installed as its hooks: the ground on which the
// real-CLI suites (Claude Code's in e2e/claude, each other host's in e2e/<host>, all set up
// by Suite) and "make demo" stand. Nothing here is used by ralph-loop itself.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// InstallClaude returns the path of the pinned Claude Code (Claude), installing it from the
// npm registry into the cache the first time ($CLAUDE_BIN, if set, is used instead). npm's
// output goes to log.
func InstallClaude(ctx context.Context, log io.Writer) (string, error) {
	if bin := os.Getenv("CLAUDE_BIN"); bin != "" {
		return bin, nil
	}
	return InstallNPM(ctx, Claude, log)
}

// BuildRalphLoop builds the ralph-loop binary into dir, and beside it its dashboard
// (ralph-loop-watch), as a user installs them.
func BuildRalphLoop(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "ralph-loop")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator),
		"github.com/ralph-loop/ralph-loop/cmd/ralph-loop", "github.com/ralph-loop/ralph-loop/cmd/ralph-loop-watch")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ralph-loop: %v: %s", err, stderr.String())
	}
	return out, nil
}

// Env is one isolated world (see Base) for Claude Code.
type Env struct {
	Base
	Claude string
}

// NewEnv lays out an Env under root.
func NewEnv(root, claude, ralphLoop string) (*Env, error) {
	e := &Env{Claude: claude}
	if err := e.Lay("claude", root, ralphLoop, func() []string { return e.Environ("", nil) }); err != nil {
		return nil, err
	}
	return e, nil
}

// Environ is the environment of claude and ralph-loop (see Base.Offline), ralph-loop first
// on PATH (project-scope hooks run the one found there, as a user's), with the fake at
// apiURL when given, and extra.
func (e *Env) Environ(apiURL string, extra []string) []string {
	set := []string{PathWith(filepath.Dir(e.RalphLoop)), "ANTHROPIC_API_KEY=sk-ant-test-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "IS_SANDBOX=1"}
	if apiURL != "" {
		set = append(set, "ANTHROPIC_BASE_URL="+apiURL)
	}
	return e.Offline([]string{"CLAUDE", "ANTHROPIC"}, append(set, extra...)...)
}

// Install runs "ralph-loop install --host claude --scope project" into the project.
func (e *Env) Install(ctx context.Context) error {
	_, err := e.Base.Install(ctx, "project")
	return err
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop struct {
	SessionID         string `json:"session_id"`
	Host              string `json:"host"`
	Task              string `json:"task"`
	Status            string `json:"status"`
	Iteration         int    `json:"iteration"`
	MaxIterations     int    `json:"max_iterations"`
	ToolCalls         int    `json:"tool_calls"`
	MinToolCalls      int    `json:"min_tool_calls"`
	CompletionPromise string `json:"completion_promise"`
	EndReason         string `json:"end_reason"`
	EndedBy           string `json:"ended_by"`
	// Unverified says what was changed of a loop whose state could not be verified.
	Unverified string `json:"unverified"`
	// Tokens and CostUSD are what the model used since arming (CostUSD nil: unknown).
	Tokens  int64    `json:"tokens"`
	CostUSD *float64 `json:"cost_usd"`
	Owner   *struct {
		PID     int    `json:"pid"`
		Program string `json:"program"`
	} `json:"owner"`
	// Pause, for a PAUSED loop, says why and until when.
	Pause *struct {
		Error string     `json:"error"`
		Why   string     `json:"why"`
		Until *time.Time `json:"until"`
	} `json:"pause"`
	// Wait, for an active loop that waits with the host for its background work, is since
	// when and for what.
	Wait *struct {
		Since time.Time `json:"since"`
		On    []struct {
			ID, Kind, Name, Command string
		} `json:"on"`
	} `json:"wait"`
	MaxStalls   int `json:"max_stalls"`
	Stalls      int `json:"stalls"`
	Checkpoints *struct {
		Repo, Refs, Last string
	} `json:"checkpoints"`
	// Protection is what protects the loop's files from the agent's processes; Sandbox why
	// the host's sandbox does not.
	Protection string `json:"protection"`
	Sandbox    string `json:"sandbox"`
	Events     []struct {
		Iteration int    `json:"iteration"`
		Action    string `json:"action"`
		Reason    string `json:"reason"`
		Tokens    int64  `json:"tokens"`
	} `json:"events"`
}

// Status returns the loops of "ralph-loop status --json", for one session if given.
func (e *Env) Status(ctx context.Context, session string) ([]Loop, error) {
	return e.StatusOf(ctx, session)
}

// DecodeStatus reads the loops of "ralph-loop status --json" output.
func DecodeStatus(out string) ([]Loop, error) {
	var st struct{ Loops []Loop }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return nil, fmt.Errorf("decode status: %w: %s", err, out)
	}
	return st.Loops, nil
}

// Session is one run of claude.
type Session struct {
	Script Script
	// Prompts are the user's turns. One prompt runs "claude -p PROMPT"; with StreamInput,
	// each prompt is a user message of "claude -p --input-format stream-json", sent once
	// the previous turn has its result.
	Prompts     []string
	StreamInput bool
	// Inputs, instead of Prompts, script the stream-json input step by step.
	Inputs  []Input
	Args    []string // more claude flags
	Env     []string // more environment
	Timeout time.Duration
}

// Input is one step of a stream-json session.
type Input struct {
	// Wait holds the step back until it returns true for the output so far (polled).
	Wait func(r *Result) bool
	// Prompt is a user message; with Interrupt, an interrupt request is sent instead (what
	// the Agent SDK sends when the user stops a turn).
	Prompt    string
	Interrupt bool
}

// AfterResults waits for n "result" lines: n finished turns.
func AfterResults(n int) func(*Result) bool {
	return func(r *Result) bool { return len(r.Results()) >= n }
}

// Result is what a run produced.
type Result struct {
	// Lines are claude's stream-json output lines.
	Lines     []map[string]any
	Fake      *Fake
	ExitCode  int
	Stderr    string
	SessionID string
	Elapsed   time.Duration
}

// Run starts a fake API for the session's script and runs claude in the project.
func (e *Env) Run(ctx context.Context, s Session) (*Result, error) {
	fake, err := StartFake(s.Script)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	if s.Timeout == 0 {
		s.Timeout = 3 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	inputs := s.Inputs
	args := []string{"-p"}
	if s.StreamInput || len(inputs) > 0 {
		args = append(args, "--input-format", "stream-json")
		for i, p := range s.Prompts {
			inputs = append(inputs, Input{Prompt: p, Wait: AfterResults(i)})
		}
	} else {
		if len(s.Prompts) != 1 {
			return nil, errors.New("a -p run takes one prompt")
		}
		args = append(args, s.Prompts[0])
	}
	args = append(args, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions")
	args = append(args, s.Args...)
	cmd := exec.CommandContext(ctx, e.Claude, args...)
	cmd.Dir = e.Project
	cmd.Env = e.Environ(fake.URL, s.Env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stdin io.WriteCloser
	if len(inputs) > 0 {
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	res := &Result{Fake: fake}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start claude: %w", err)
	}
	var mu sync.Mutex
	snapshot := func() *Result {
		mu.Lock()
		defer mu.Unlock()
		c := *res
		c.Lines = append([]map[string]any(nil), res.Lines...)
		return &c
	}
	feedErr := make(chan error, 1)
	go func() {
		if stdin == nil {
			feedErr <- nil
			return
		}
		defer stdin.Close()
		for i, in := range inputs {
			for in.Wait != nil && !in.Wait(snapshot()) {
				select {
				case <-ctx.Done():
					feedErr <- fmt.Errorf("input %d: %w", i+1, ctx.Err())
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
			msg := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": in.Prompt}}
			if in.Interrupt {
				msg = map[string]any{"type": "control_request", "request_id": fmt.Sprintf("req-%d", i), "request": map[string]any{"subtype": "interrupt"}}
			}
			line, _ := json.Marshal(msg)
			if _, err := stdin.Write(append(line, '\n')); err != nil {
				feedErr <- fmt.Errorf("input %d: %w", i+1, err)
				return
			}
		}
		feedErr <- nil
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			mu.Lock()
			res.Lines = append(res.Lines, m)
			if id, ok := m["session_id"].(string); ok && res.SessionID == "" {
				res.SessionID = id
			}
			mu.Unlock()
		}
	}
	runErr := cmd.Wait()
	res.Stderr, res.Elapsed = stderr.String(), time.Since(start)
	if res.ExitCode, err = Exited(ctx, "claude", runErr); err != nil {
		return res, err
	}
	if err := <-feedErr; err != nil {
		return res, err
	}
	return res, nil
}

// Notices returns the hook messages Claude Code showed the user ("Stop says: …",
// "UserPromptSubmit says: …", "… operation blocked by hook: …").
func (r *Result) Notices() []string {
	var out []string
	for _, m := range r.Lines {
		if m["type"] == "system" && m["subtype"] == "informational" {
			if s, ok := m["content"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Feedback returns the block reasons the model was sent, in order: the text after
// "Stop hook feedback:\n" of each feedback message, counted once, in the first agent
// request that carries it.
func (r *Result) Feedback() []string {
	var out []string
	for _, req := range r.Fake.MainRequests() {
		var all []string
		for _, m := range req.Messages() {
			if m.Role != "user" {
				continue
			}
			// Consecutive user messages may be merged into one: split on the prefix.
			parts := strings.Split(m.Text, "Stop hook feedback:\n")
			all = append(all, parts[1:]...)
		}
		if len(all) > len(out) {
			for _, f := range all[len(out):] {
				out = append(out, strings.TrimSpace(strings.SplitN(f, "\n\n[Request interrupted", 2)[0]))
			}
		}
	}
	return out
}

// AssistantTexts returns the agent's text blocks, as claude printed them.
func (r *Result) AssistantTexts() []string {
	var out []string
	for _, m := range r.Lines {
		if m["type"] != "assistant" {
			continue
		}
		msg, _ := m["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				out = append(out, fmt.Sprint(bm["text"]))
			}
		}
	}
	return out
}

// Results returns claude's "result" lines: one per user turn.
func (r *Result) Results() []map[string]any {
	var out []map[string]any
	for _, m := range r.Lines {
		if m["type"] == "result" {
			out = append(out, m)
		}
	}
	return out
}
