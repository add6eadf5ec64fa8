package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// Slash commands the engine handles in the user's prompts.
const (
	CommandLoop   = "/ralph-loop"
	CommandULW    = "/ulw-loop"
	CommandCancel = "/cancel-ralph"
)

// Handle answers one hook event of host h read from stdin: the reply goes to stdout in the
// host's protocol, errors to env.Stderr, and the exit code is returned. Malformed input is
// an error the host reports without blocking anything; every other failure lets the agent
// stop and is reported on stderr and to the user.
func Handle(ctx context.Context, env Env, h Host, stdin io.Reader, stdout io.Writer) int {
	env.defaults()
	start := env.Now()
	ev, err := h.Decode(stdin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: %v\n", err)
		return 1
	}
	if ev.Kind == Ignored {
		return 0
	}
	e := &engine{env: env, host: h, ev: ev, start: start, facts: h.Facts(env.Getenv, ev.Cwd)}
	rep := e.handle(ctx)
	if e.badInput {
		return 1
	}
	code, err := h.Encode(stdout, ev, rep)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: write the %s reply: %v\n", h.Name(), err)
		return 1
	}
	return code
}

// engine handles one event.
type engine struct {
	env   Env
	host  Host
	facts Facts
	ev    Event
	// start is when the hook began.
	start    time.Time
	badInput bool
}

func (e *engine) handle(ctx context.Context) Reply {
	switch e.ev.Kind {
	case Prompt:
		return e.prompt(ctx)
	case Stop:
		return e.stop(ctx)
	case ToolUsed:
		return e.toolUsed()
	case ToolCheck:
		return e.toolCheck()
	case SessionEnd:
		return e.sessionEnd(ctx)
	}
	return Reply{}
}

// fail reports an error that lets the agent go on: one line on stderr, and the same line
// for the user.
func (e *engine) fail(format string, a ...any) Reply {
	msg := "ralph-loop: error: " + fmt.Sprintf(format, a...)
	fmt.Fprintln(e.env.Stderr, msg)
	return Reply{Notice: msg, Failed: true}
}

// session checks the session id; a bad one is malformed input.
func (e *engine) session() bool {
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		fmt.Fprintf(e.env.Stderr, "ralph-loop: error: %s hook: %v\n", e.ev.Name, err)
		e.badInput = true
		return false
	}
	return true
}

// active is the cheap first look every event takes: the session's loop if it is active. An
// unreadable state file is moved aside and reported.
func (e *engine) active() (*state.Loop, *Reply) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil {
		r := e.stateError(err)
		return nil, &r
	}
	if l == nil || l.Status != state.Active {
		return nil, nil
	}
	return l, nil
}

// stateError turns a state failure into a message, moving a corrupt file aside so the next
// hook starts clean. The agent is never held by it.
func (e *engine) stateError(err error) Reply {
	if errors.Is(err, state.ErrCorrupt) {
		to, qerr := e.env.Store.Quarantine(e.ev.SessionID, e.env.Now())
		if qerr == nil {
			return e.fail("%v; moved it to %s and let the agent stop", err, to)
		}
		return e.fail("%v; moving it aside failed too: %v", err, qerr)
	}
	if errors.Is(err, state.ErrLockTimeout) {
		return e.fail("%v; another ralph-loop process is stuck, so this stop is allowed", err)
	}
	return e.fail("%v", err)
}

func orEmpty(r *Reply) Reply {
	if r == nil {
		return Reply{}
	}
	return *r
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

func (e *engine) prompt(ctx context.Context) Reply {
	cmd, rest := splitCommand(e.ev.Prompt)
	switch cmd {
	case CommandLoop:
		return e.arm(ctx, rest, state.ModeRalph)
	case CommandULW:
		return e.arm(ctx, rest, state.ModeULW)
	case CommandCancel:
		return e.cancel(ctx)
	}
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	// A new user prompt in a session with an active loop: a new turn, so the host's count of
	// consecutive blocks starts again. If the last turn ended on a block, the host ended it
	// (an interruption, an API error or its block cap): say so in the log.
	now := e.env.Now()
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		if cur.LastAction == state.ActBlocked {
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActTurnEnded,
				Reason: "the host ended the turn after a block (interrupted, API error or its stop-block cap); the loop goes on with the next prompt"})
			cur.LastAction = state.ActTurnEnded
		}
		cur.BlocksSinceTool = 0
		cur.BlocksInTurn = 0
		cur.LastSeenAt = now
		cur.UpdatedAt = now
		return cur, nil
	})
	if err != nil {
		return e.stateError(err)
	}
	return Reply{}
}

func blockPrompt(reason string) Reply { return Reply{Block: true, Reason: reason} }

func (e *engine) arm(ctx context.Context, rest, mode string) Reply {
	words, err := args.Split(rest)
	var p args.Parsed
	if err == nil {
		p, err = args.Parse(words, args.Options{})
	}
	if errors.Is(err, args.ErrHelp) {
		return blockPrompt(inject.Help(e.facts.Words))
	}
	var cfg state.Config
	if err == nil {
		p.Config.Mode = mode
		cfg, err = args.Resolve(p, e.facts.ProjectDir)
	}
	if err != nil {
		return blockPrompt(inject.ArgError(err))
	}
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		return blockPrompt(fmt.Sprintf("ralph-loop: error: %v; nothing was started", err))
	}
	res, err := Arm(ctx, e.env, ArmRequest{
		SessionID:      e.ev.SessionID,
		Host:           e.host.Name(),
		Cwd:            e.ev.Cwd,
		Config:         cfg,
		ArmedBy:        "slash-command",
		TranscriptPath: e.ev.TranscriptPath,
	})
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not start the loop: %v", err)
		fmt.Fprintln(e.env.Stderr, msg)
		return blockPrompt(msg)
	}
	notice := inject.Armed(&res.Loop, res.Replaced, e.facts.Words, e.facts.BlockCap, e.stopTimeout())
	if res.Quarantined != "" {
		notice += fmt.Sprintf(" (an unreadable state file was moved to %s)", res.Quarantined)
	}
	return Reply{Notice: notice, Context: inject.Contract(&res.Loop, e.facts.Words)}
}

func (e *engine) cancel(ctx context.Context) Reply {
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		return blockPrompt(fmt.Sprintf("ralph-loop: error: %v", err))
	}
	l, err := Cancel(ctx, e.env, e.ev.SessionID, "cancelled with "+CommandCancel)
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not cancel the loop: %v", err)
		fmt.Fprintln(e.env.Stderr, msg)
		return blockPrompt(msg)
	}
	if l == nil {
		return blockPrompt(inject.NothingToCancel)
	}
	return blockPrompt(inject.Cancelled(l))
}

func (e *engine) stop(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	start := e.env.Now()
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	var (
		verdict Verdict
		after   state.Loop
		decided bool
		readErr error
		other   string
	)
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		o := observe(e.env, e.facts, cur, e.ev, start)
		readErr = o.err
		verdict, after = Decide(*cur, o.Observation)
		after.Transcript = o.pos
		after.ToolsOffset = o.toolsOffset
		decided = true
		reason := eventReason(verdict, &after, nil)
		if verdict == Continue && o.HasOther {
			other = promise.Marker(o.Other)
			reason = fmt.Sprintf("promise not found, but a different token was: %s (the marker is %s); continuing with iteration %d/%d",
				other, promise.Marker(after.CompletionPromise), after.Iteration, after.MaxIterations)
		}
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
		return e.stateError(err)
	}
	if !decided {
		return Reply{}
	}
	var checks []check.Result
	if verdict == NeedChecks {
		// The checks run without the lock (they may take minutes); then the decision is
		// made again with their results, if the loop is still the one they checked.
		checks = e.runChecks(ctx, &after, start)
		checked := after
		decided = false
		_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
			if cur == nil || cur.LoopID != checked.LoopID || cur.Status != state.Active || cur.Iteration != checked.Iteration {
				return nil, nil // cancelled or replaced meanwhile
			}
			now := e.env.Now()
			for _, r := range checks {
				tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActCheck,
					Reason: fmt.Sprintf("check %d/%d `%s` %s (log: %s)", r.Index, r.Total, r.Command, r.Describe(), r.LogPath)})
			}
			verdict, after = Decide(*cur, Observation{Now: now, Found: true, BlockCap: e.facts.BlockCap, Words: e.facts.Words, Checks: checks})
			decided = true
			tx.Record(state.Event{At: now, LoopID: after.LoopID, Iteration: cur.Iteration, Action: after.LastAction,
				Reason: eventReason(verdict, &after, checks)})
			return &after, nil
		})
		if err != nil {
			return e.stateError(err)
		}
		if !decided {
			return Reply{}
		}
	}
	var notice string
	if readErr != nil {
		notice = fmt.Sprintf("ralph-loop: warning: %v; decided on the last message alone", readErr)
		fmt.Fprintln(e.env.Stderr, notice)
	}
	join := func(s string) string {
		if notice == "" {
			return s
		}
		return s + " (" + notice + ")"
	}
	w := e.facts.Words
	switch verdict {
	case Continue, ContinueNoWork, ContinueCheckFailed:
		why := inject.Why{Kind: inject.BlockNoPromise, Check: failedCheck(checks)}
		switch {
		case verdict == ContinueNoWork:
			why.Kind = inject.BlockNoWork
		case verdict == ContinueCheckFailed:
			why.Kind = inject.BlockCheckFailed
		case other != "":
			why.Kind, why.Other = inject.BlockWrongToken, other
		}
		return Reply{Block: true, Reason: inject.Continuation(&after, why, w), Notice: join(inject.BlockNotice(&after, why))}
	case Accept:
		return Reply{Notice: join(inject.Accepted(&after))}
	case MaxIterations:
		return Reply{Notice: join(inject.MaxReached(&after))}
	case TimeBudget:
		return Reply{Notice: join(inject.TimeUp(&after))}
	case CutByHost:
		return Reply{Notice: join(inject.CutByHost(&after, w, e.facts.BlockCap))}
	}
	return Reply{}
}

// runChecks runs the loop's checks in its directory, within the Stop hook's timeout.
func (e *engine) runChecks(ctx context.Context, l *state.Loop, start time.Time) []check.Result {
	timeout := e.stopTimeout()
	if timeout <= 0 {
		timeout = 600 * time.Second
	}
	prefix := filepath.Join(e.env.Store.SessionDir(l.SessionID), "checks", fmt.Sprintf("%s-iteration-%d", l.LoopID, l.Iteration))
	return check.Run(ctx, l.Checks, check.Options{
		Dir:       l.Cwd,
		Timeout:   time.Duration(l.CheckTimeout),
		Deadline:  time.Now().Add(timeout - 10*time.Second - e.env.Now().Sub(start)),
		LogPrefix: prefix,
		TailChars: l.CheckOutputChars,
	})
}

// stopTimeout is the host's Stop hook timeout (0: unknown).
func (e *engine) stopTimeout() time.Duration {
	if e.facts.StopTimeout == nil {
		return 0
	}
	return e.facts.StopTimeout()
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

func (e *engine) toolUsed() Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	// Appended to the tool log without the lock: parallel tool calls run their hooks at
	// once, and the next stop decision counts them.
	if err := e.env.Store.AppendToolUse(e.ev.SessionID, l.LoopID, e.ev.ToolUseID, e.ev.Rejected); err != nil {
		return e.fail("%v", err)
	}
	return Reply{}
}

// toolCheck denies, while a loop is active, the agent's tool calls that would end or replace
// its loop or change its state (see guard).
func (e *engine) toolCheck() Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	in := Input{ToolName: e.ev.ToolName, Cwd: e.ev.Cwd}
	switch e.ev.ToolKind {
	case ShellTool:
		in.ToolName, in.Command = "Bash", e.ev.Command
	case WriteTool:
		in.ToolName, in.FilePath = "Write", e.ev.FilePath
	default:
		return Reply{}
	}
	reason := guard(in, e.env.Store.Dir(), e.env.Getenv("HOME"), e.env.Getenv("XDG_STATE_HOME"))
	if reason == "" {
		return Reply{}
	}
	// The call never runs: remember it so that the transcript's record of it is not
	// counted as work, and log it for the user.
	if err := e.env.Store.AppendToolUse(e.ev.SessionID, l.LoopID, e.ev.ToolUseID, true); err != nil {
		fmt.Fprintf(e.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	what := e.ev.ToolName
	if e.ev.Command != "" {
		what += ": " + firstLine(e.ev.Command, 200)
	} else if e.ev.FilePath != "" {
		what += " " + e.ev.FilePath
	}
	if err := e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration,
		Action: state.ActDenied, Reason: "denied the agent's " + what}); err != nil {
		fmt.Fprintf(e.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	return Reply{Deny: true, DenyReason: reason}
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func (e *engine) sessionEnd(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	why := "the session ended"
	if e.ev.Reason != "" {
		why += " (" + e.ev.Reason + ")"
	}
	if _, err := finish(ctx, e.env, e.ev.SessionID, state.SessionEnded, state.ActEnded, why); err != nil {
		return e.stateError(err)
	}
	return Reply{}
}
