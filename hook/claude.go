package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Slash commands handled in UserPromptSubmit.
const (
	CommandLoop   = "/ralph-loop"
	CommandULW    = "/ulw-loop"
	CommandCancel = "/cancel-ralph"
)

// output is Claude Code's hook output object.
type output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
}

type specific struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Claude handles one Claude Code hook event read from stdin: it writes the protocol answer
// (if any) to stdout and returns the exit code. Malformed input gives exit code 1, which
// Claude Code treats as a non-blocking error; every other failure lets the agent stop and is
// reported on stderr and in a systemMessage.
func Claude(ctx context.Context, env Env, stdin io.Reader, stdout io.Writer) int {
	env.defaults()
	in, err := DecodeInput(stdin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: %v\n", err)
		return 1
	}
	h := &claude{env: env, in: in}
	var out *output
	switch in.Event {
	case "UserPromptSubmit":
		out = h.prompt(ctx)
	case "Stop":
		out = h.stop(ctx)
	case "PostToolUse", "PostToolUseFailure":
		out = h.toolUsed(ctx)
	case "PreToolUse":
		out = h.preTool()
	case "SessionEnd":
		out = h.sessionEnd(ctx)
	default:
		return 0
	}
	if h.badInput {
		return 1
	}
	if out == nil {
		return 0
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: encode hook output: %v\n", err)
		return 1
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: write hook output: %v\n", err)
		return 1
	}
	return 0
}

type claude struct {
	env      Env
	in       Input
	badInput bool
}

// fail reports an error that lets the agent go on: one line on stderr, and the same line as
// a systemMessage for the user.
func (h *claude) fail(format string, a ...any) *output {
	msg := "ralph-loop: error: " + fmt.Sprintf(format, a...)
	fmt.Fprintln(h.env.Stderr, msg)
	return &output{SystemMessage: msg}
}

// session checks the session id; a bad one is malformed input.
func (h *claude) session() bool {
	if err := state.ValidSessionID(h.in.SessionID); err != nil {
		fmt.Fprintf(h.env.Stderr, "ralph-loop: error: %s hook: %v\n", h.in.Event, err)
		h.badInput = true
		return false
	}
	return true
}

// active is the cheap first look every event takes: the session's loop if it is active. An
// unreadable state file is moved aside and reported.
func (h *claude) active() (*state.Loop, *output) {
	l, err := h.env.Store.Peek(h.in.SessionID)
	if err != nil {
		return nil, h.stateError(err)
	}
	if l == nil || l.Status != state.Active {
		return nil, nil
	}
	return l, nil
}

// stateError turns a state failure into a message, moving a corrupt file aside so the next
// hook starts clean. The agent is never held by it.
func (h *claude) stateError(err error) *output {
	if errors.Is(err, state.ErrCorrupt) {
		to, qerr := h.env.Store.Quarantine(h.in.SessionID, h.env.Now())
		if qerr == nil {
			return h.fail("%v; moved it to %s and let the agent stop", err, to)
		}
		return h.fail("%v; moving it aside failed too: %v", err, qerr)
	}
	if errors.Is(err, state.ErrLockTimeout) {
		return h.fail("%v; another ralph-loop process is stuck, so this stop is allowed", err)
	}
	return h.fail("%v", err)
}

// splitCommand returns the slash command that starts prompt and the text after it.
func splitCommand(prompt string) (cmd, rest string) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	for _, c := range []string{CommandLoop, CommandULW, CommandCancel} {
		if r, ok := strings.CutPrefix(p, c); ok && (r == "" || strings.ContainsRune(" \t\r\n", rune(r[0]))) {
			return c, r
		}
	}
	return "", ""
}

func (h *claude) prompt(ctx context.Context) *output {
	cmd, rest := splitCommand(h.in.Prompt)
	switch cmd {
	case CommandLoop:
		return h.arm(ctx, rest, state.ModeRalph)
	case CommandULW:
		return h.arm(ctx, rest, state.ModeULW)
	case CommandCancel:
		return h.cancel(ctx)
	}
	if !h.session() {
		return nil
	}
	l, out := h.active()
	if l == nil {
		return out
	}
	// A new user prompt in a session with an active loop: a new turn, so the host's count of
	// consecutive blocks starts again. If the last turn ended on a block, the host ended it
	// (an interruption, an API error or its block cap): say so in the log.
	now := h.env.Now()
	_, err := update(ctx, h.env, h.in.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		if cur.LastAction == state.ActBlocked {
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActTurnEnded,
				Reason: "the host ended the turn after a block (interrupted, API error or its stop-block cap); the loop goes on with the next prompt"})
			cur.LastAction = state.ActTurnEnded
		}
		cur.BlocksSinceTool = 0
		cur.LastSeenAt = now
		cur.UpdatedAt = now
		return cur, nil
	})
	if err != nil {
		return h.stateError(err)
	}
	return nil
}

func block(reason string) *output {
	return &output{Decision: "block", Reason: reason}
}

func (h *claude) arm(ctx context.Context, rest, mode string) *output {
	words, err := args.Split(rest)
	var p args.Parsed
	if err == nil {
		p, err = args.Parse(words, args.Options{})
	}
	if errors.Is(err, args.ErrHelp) {
		return block(inject.Help)
	}
	var cfg state.Config
	if err == nil {
		p.Config.Mode = mode
		cfg, err = args.Resolve(p, projectDir(h.env.Getenv, h.in.Cwd))
	}
	if err != nil {
		return block(inject.ArgError(err))
	}
	if err := state.ValidSessionID(h.in.SessionID); err != nil {
		return block(fmt.Sprintf("ralph-loop: error: %v; nothing was started", err))
	}
	res, err := Arm(ctx, h.env, ArmRequest{
		SessionID:      h.in.SessionID,
		Host:           HostClaude,
		Cwd:            h.in.Cwd,
		Config:         cfg,
		ArmedBy:        "slash-command",
		TranscriptPath: h.in.TranscriptPath,
	})
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not start the loop: %v", err)
		fmt.Fprintln(h.env.Stderr, msg)
		return block(msg)
	}
	notice := inject.Armed(&res.Loop, res.Replaced, blockCap(h.env.Getenv), stopTimeout(h.env.Getenv, h.in.Cwd))
	if res.Quarantined != "" {
		notice += fmt.Sprintf(" (an unreadable state file was moved to %s)", res.Quarantined)
	}
	return &output{
		SystemMessage: notice,
		HookSpecificOutput: &specific{
			HookEventName:     "UserPromptSubmit",
			AdditionalContext: inject.Contract(&res.Loop),
		},
	}
}

func (h *claude) cancel(ctx context.Context) *output {
	if err := state.ValidSessionID(h.in.SessionID); err != nil {
		return block(fmt.Sprintf("ralph-loop: error: %v", err))
	}
	l, err := Cancel(ctx, h.env, h.in.SessionID, "cancelled with "+CommandCancel)
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not cancel the loop: %v", err)
		fmt.Fprintln(h.env.Stderr, msg)
		return block(msg)
	}
	if l == nil {
		return block(inject.NothingToCancel)
	}
	return block(inject.Cancelled(l))
}

func (h *claude) stop(ctx context.Context) *output {
	if !h.session() {
		return nil
	}
	start := h.env.Now()
	l, out := h.active()
	if l == nil {
		return out
	}
	var (
		verdict Verdict
		after   state.Loop
		decided bool
		readErr error
	)
	_, err := update(ctx, h.env, h.in.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		o := observe(h.env, cur, h.in, start)
		readErr = o.err
		verdict, after = Decide(*cur, o.Observation)
		after.Transcript = o.pos
		after.ToolsOffset = o.toolsOffset
		decided = true
		reason := eventReason(verdict, &after, nil)
		if o.note != "" {
			reason += " (" + o.note + ")"
		}
		if verdict == NeedChecks {
			after.LastAction = state.ActChecking
		}
		tx.Record(state.Event{At: start, LoopID: after.LoopID, Iteration: cur.Iteration, Action: after.LastAction, Reason: reason})
		return &after, nil
	})
	if err != nil {
		return h.stateError(err)
	}
	if !decided {
		return nil
	}
	var checks []check.Result
	if verdict == NeedChecks {
		// The checks run without the lock (they may take minutes); then the decision is
		// made again with their results, if the loop is still the one they checked.
		checks = h.runChecks(ctx, &after, start)
		checked := after
		decided = false
		_, err := update(ctx, h.env, h.in.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
			if cur == nil || cur.LoopID != checked.LoopID || cur.Status != state.Active || cur.Iteration != checked.Iteration {
				return nil, nil // cancelled or replaced meanwhile
			}
			now := h.env.Now()
			for _, r := range checks {
				tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActCheck,
					Reason: fmt.Sprintf("check %d/%d `%s` %s (log: %s)", r.Index, r.Total, r.Command, r.Describe(), r.LogPath)})
			}
			verdict, after = Decide(*cur, Observation{Now: now, Found: true, BlockCap: blockCap(h.env.Getenv), Checks: checks})
			decided = true
			tx.Record(state.Event{At: now, LoopID: after.LoopID, Iteration: cur.Iteration, Action: after.LastAction,
				Reason: eventReason(verdict, &after, checks)})
			return &after, nil
		})
		if err != nil {
			return h.stateError(err)
		}
		if !decided {
			return nil
		}
	}
	var notice string
	if readErr != nil {
		notice = fmt.Sprintf("ralph-loop: warning: %v; decided on the last message alone", readErr)
		fmt.Fprintln(h.env.Stderr, notice)
	}
	join := func(s string) string {
		if notice == "" {
			return s
		}
		return s + " (" + notice + ")"
	}
	switch verdict {
	case Continue, ContinueNoWork, ContinueCheckFailed:
		why, f := inject.BlockNoPromise, failedCheck(checks)
		switch verdict {
		case ContinueNoWork:
			why = inject.BlockNoWork
		case ContinueCheckFailed:
			why = inject.BlockCheckFailed
		}
		return &output{Decision: "block", Reason: inject.Continuation(&after, why, f), SystemMessage: join(inject.BlockNotice(&after, why, f))}
	case Accept:
		return &output{SystemMessage: join(inject.Accepted(&after))}
	case MaxIterations:
		return &output{SystemMessage: join(inject.MaxReached(&after))}
	case TimeBudget:
		return &output{SystemMessage: join(inject.TimeUp(&after))}
	case CutByHost:
		return &output{SystemMessage: join(inject.CutByHost(&after, blockCap(h.env.Getenv)))}
	}
	return nil
}

// runChecks runs the loop's checks in its directory, within the Stop hook's timeout.
func (h *claude) runChecks(ctx context.Context, l *state.Loop, start time.Time) []check.Result {
	timeout := stopTimeout(h.env.Getenv, l.Cwd)
	prefix := filepath.Join(h.env.Store.SessionDir(l.SessionID), "checks", fmt.Sprintf("%s-iteration-%d", l.LoopID, l.Iteration))
	return check.Run(ctx, l.Checks, check.Options{
		Dir:       l.Cwd,
		Timeout:   time.Duration(l.CheckTimeout),
		Deadline:  time.Now().Add(timeout - 10*time.Second - h.env.Now().Sub(start)),
		LogPrefix: prefix,
		TailChars: l.CheckOutputChars,
	})
}

// failedCheck describes the failed check for the agent, if one failed.
func failedCheck(rs []check.Result) *inject.CheckFailure {
	if len(rs) == 0 || rs[len(rs)-1].Passed() {
		return nil
	}
	r := rs[len(rs)-1]
	return &inject.CheckFailure{Index: r.Index, Total: r.Total, Command: r.Command, Outcome: r.Describe(), Tail: r.Tail, LogPath: r.LogPath}
}

// eventReason is the log line of a stop decision.
func eventReason(v Verdict, l *state.Loop, checks []check.Result) string {
	switch v {
	case NeedChecks:
		return fmt.Sprintf("promise found after %s; running %s", inject.Plural(l.ToolCalls, "tool call", "tool calls"),
			inject.Plural(len(l.Checks), "check", "checks"))
	case ContinueCheckFailed:
		f := failedCheck(checks)
		return fmt.Sprintf("promise found but check %d/%d `%s` %s; rejected, continuing with iteration %d/%d",
			f.Index, f.Total, f.Command, f.Outcome, l.Iteration, l.MaxIterations)
	case Continue:
		return fmt.Sprintf("promise not found; continuing with iteration %d/%d", l.Iteration, l.MaxIterations)
	case ContinueNoWork:
		return fmt.Sprintf("promise found with %d of the %d tool calls required; rejected, continuing with iteration %d/%d",
			l.ToolCalls, l.MinToolCalls, l.Iteration, l.MaxIterations)
	case Accept:
		return fmt.Sprintf("%s after %s", l.EndReason, inject.Plural(l.ToolCalls, "tool call", "tool calls"))
	}
	return l.EndReason
}

func (h *claude) toolUsed(ctx context.Context) *output {
	if !h.session() {
		return nil
	}
	l, out := h.active()
	if l == nil {
		return out
	}
	// Appended to the tool log without the lock: parallel tool calls run their hooks at
	// once, and the next stop decision counts them.
	if err := h.env.Store.AppendToolUse(h.in.SessionID, l.LoopID, h.in.ToolUseID, false); err != nil {
		return h.fail("%v", err)
	}
	return nil
}

// preTool denies, while a loop is active, the agent's tool calls that would end or replace
// its loop or change its state (see guard).
func (h *claude) preTool() *output {
	if !h.session() {
		return nil
	}
	l, out := h.active()
	if l == nil {
		return out
	}
	reason := guard(h.in, h.env.Store.Dir(), h.env.Getenv("HOME"), h.env.Getenv("XDG_STATE_HOME"))
	if reason == "" {
		return nil
	}
	// The call never runs: remember it so that the transcript's record of it is not
	// counted as work, and log it for the user.
	if err := h.env.Store.AppendToolUse(h.in.SessionID, l.LoopID, h.in.ToolUseID, true); err != nil {
		fmt.Fprintf(h.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	what := h.in.ToolName
	if h.in.Command != "" {
		what += ": " + firstLine(h.in.Command, 200)
	} else if h.in.FilePath != "" {
		what += " " + h.in.FilePath
	}
	if err := h.env.Store.AppendEvent(h.in.SessionID, state.Event{At: h.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration,
		Action: state.ActDenied, Reason: "denied the agent's " + what}); err != nil {
		fmt.Fprintf(h.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	return &output{HookSpecificOutput: &specific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}}
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func (h *claude) sessionEnd(ctx context.Context) *output {
	if !h.session() {
		return nil
	}
	l, out := h.active()
	if l == nil {
		return out
	}
	why := "the session ended"
	if h.in.Reason != "" {
		why += " (" + h.in.Reason + ")"
	}
	if _, err := finish(ctx, h.env, h.in.SessionID, state.SessionEnded, state.ActEnded, why); err != nil {
		return h.stateError(err)
	}
	return nil
}
