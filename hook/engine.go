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
	"github.com/ralph-loop/ralph-loop/hook/guard"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
	"github.com/ralph-loop/ralph-loop/usage"
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
	if !env.Started.IsZero() && env.Started.Before(start) {
		start = env.Started
	}
	ev, err := h.Decode(stdin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ralph-loop: error: %v\n", err)
		return 1
	}
	if ev.Kind == Ignored {
		return 0
	}
	e := &engine{env: env, host: h, ev: ev, start: start, facts: h.Facts(env.Getenv, ev.Cwd)}
	if e.facts.SaidLog && state.ValidSessionID(ev.SessionID) == nil {
		// The host's transcript is the session's said log, which the engine keeps.
		e.facts.Transcript = saidLog{}
		e.ev.TranscriptPath = env.Store.SaidPath(ev.SessionID)
	}
	rep := e.handle(ctx)
	if e.badInput {
		return 1
	}
	var code int
	if se, ok := h.(StderrEncoder); ok {
		code, err = se.EncodeStderr(stdout, env.Stderr, ev, rep)
	} else {
		code, err = h.Encode(stdout, ev, rep)
	}
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
	// Who ran the hook (see caller).
	callerRead, callerOK bool
	callerInfo           proc.Caller
}

func (e *engine) handle(ctx context.Context) Reply {
	switch e.ev.Kind {
	case Prompt:
		r := e.prompt(ctx)
		r.Notice = joinNotices(r.Notice, e.silentNotice())
		return r
	case Stop:
		return e.stop(ctx)
	case ToolUsed:
		return e.toolUsed()
	case ToolCheck:
		return e.toolCheck()
	case SessionStart:
		r := e.sessionStart(ctx)
		r.Notice = joinNotices(r.Notice, e.silentNotice())
		return r
	case SessionEnd:
		return e.sessionEnd(ctx)
	case Said:
		return e.said()
	case ConfigChange:
		return e.configChange(ctx)
	case Continuation:
		return e.continuation()
	}
	return Reply{}
}

// configChange refuses, while the session's loop is active, a change to the host's settings
// that would leave the session without ralph-loop's hooks: every hook turned off, or
// ralph-loop's hooks removed or the file that held them replaced. The loop's next stop tells
// the user what was tried.
func (e *engine) configChange(ctx context.Context) Reply {
	if e.facts.Hooked == nil || !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	ok, why := e.facts.Hooked()
	if ok {
		return Reply{}
	}
	e.refusal(ctx, e.ev.SessionID, fmt.Sprintf("a change to %s (%s)", e.ev.ConfigFile, why))
	return Reply{Block: true, Reason: inject.ConfigRefused(e.ev.ConfigFile, why, e.facts.Words)}
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

// look is the cheap first look every event takes: the session's loop (nil if it has none)
// and whether it is active. An unreadable state file is moved aside and reported.
func (e *engine) look() (*state.Loop, *Reply) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil {
		r := e.stateError(err)
		return nil, &r
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

// ended is what to tell the user at a stop or prompt of a session whose loop is not active:
// an ending the user did not see, or what happened to its state meanwhile.
func (e *engine) ended(ctx context.Context, l *state.Loop) string {
	return e.tell(ctx, l)
}

// tell returns the notice for a loop that ended without the user seeing it (a cancel from a
// terminal, the session's end), with what the user has not been told of it yet, and marks
// it told, so that it is said once. "" when there is nothing to tell.
func (e *engine) tell(ctx context.Context, l *state.Loop) string {
	if l == nil || l.Status == state.Active || l.Told && len(l.Pending) == 0 {
		return ""
	}
	var notice string
	_, err := update(ctx, e.env, e.ev.SessionID, func(_ *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.LoopID != l.LoopID || cur.Status == state.Active || cur.Told && len(cur.Pending) == 0 {
			return nil, nil
		}
		notice = takePending(cur, e.facts.Words)
		if !cur.Told {
			notice = joinNotices(notice, inject.EndedUnseen(cur, e.facts.Words))
		}
		cur.Told = true
		return cur, nil
	})
	if err != nil {
		fmt.Fprintf(e.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	return notice
}

// Command is a loop command found in a prompt: which one, and the text after it.
type Command struct {
	Name, Rest string
	// Wrapped: the command was inside text the host wraps around a paste.
	Wrapped bool
}

// ParseCommand finds the loop command a prompt holds: at its start (after blanks), or at
// the start of pasted text the host wrapped in a tag of its own. ok is false when the
// prompt is no loop command. looksLike reports a prompt that holds a loop command somewhere
// it was not recognised (e.g. inside an unknown wrapper), so that it is never passed on
// silently unarmed.
func ParseCommand(prompt string) (c Command, ok, looksLike bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if name, rest, ok := splitCommand(p); ok {
		return Command{Name: name, Rest: rest}, true, false
	}
	if inner, ok := unwrapPaste(p); ok {
		if name, rest, ok := splitCommand(strings.TrimLeft(inner, " \t\r\n")); ok {
			return Command{Name: name, Rest: rest, Wrapped: true}, true, false
		}
	}
	if strings.HasPrefix(p, "<") {
		// A wrapper with more than the command in it (text typed after a paste).
		if _, after, ok := strings.Cut(p, ">"); ok {
			if _, _, ok := splitCommand(strings.TrimLeft(after, " \t\r\n")); ok {
				return Command{}, false, true
			}
		}
	}
	for _, line := range strings.Split(p, "\n") {
		line = strings.TrimLeft(line, " \t\r>")
		if _, _, ok := splitCommand(line); ok && strings.HasPrefix(p, "<") {
			return Command{}, false, true
		}
	}
	return Command{}, false, false
}

// pluginNamespace is how Claude Code names a plugin's commands in full
// ("/ralph-loop:cancel-ralph"); the short form works when no other command has the name.
const pluginNamespace = "/ralph-loop:"

// splitCommand returns the loop command that starts p (in its short form or with the
// plugin's namespace) and the text after it.
func splitCommand(p string) (cmd, rest string, ok bool) {
	if r, ok := strings.CutPrefix(p, pluginNamespace); ok {
		p = "/" + r
	}
	for _, c := range []string{CommandLoop, CommandULW, CommandCancel} {
		if r, ok := strings.CutPrefix(p, c); ok && (r == "" || strings.ContainsRune(" \t\r\n", rune(r[0]))) {
			return c, r, true
		}
	}
	return "", "", false
}

// unwrapPaste returns the text inside a paste wrapper at the start of p: Claude Code's
// TUI collapses a long paste into "[Pasted text #1]" and hands the hook
// <pasted_content id="N">\nTEXT\n</pasted_content id="N"> (2.1.330: the closing tag
// carries the id too; see testdata/claude/UserPromptSubmit.pasted.json).
func unwrapPaste(p string) (string, bool) {
	const open, closing = "<pasted_content", "</pasted_content"
	if !strings.HasPrefix(p, open) {
		return "", false
	}
	end := strings.IndexByte(p, '>')
	if end < 0 {
		return "", false
	}
	inner := p[end+1:]
	if i := strings.LastIndex(inner, closing); i >= 0 {
		after := inner[i+len(closing):]
		gt := strings.IndexByte(after, '>')
		if gt < 0 || (after[0] != '>' && after[0] != ' ') {
			return "", false
		}
		if strings.TrimSpace(after[gt+1:]) != "" {
			return "", false // text typed after the paste: not only a command
		}
		inner = inner[:i]
	}
	return inner, true
}

func (e *engine) prompt(ctx context.Context) Reply {
	c, ok, looksLike := ParseCommand(e.ev.Prompt)
	if (ok || looksLike) && e.facts.CommandEvent != "" && e.ev.Name != e.facts.CommandEvent {
		return Reply{} // handled at the command's own event, just before
	}
	if looksLike {
		return blockPrompt(inject.CommandNotRecognised(e.facts.Words))
	}
	if ok {
		if r := e.refuseLoopCommand(ctx, c.Name); r != nil {
			return *r
		}
		switch c.Name {
		case CommandLoop:
			return e.arm(ctx, c.Rest, state.ModeRalph)
		case CommandULW:
			return e.arm(ctx, c.Rest, state.ModeULW)
		case CommandCancel:
			return e.cancel(ctx)
		}
	}
	if !e.session() {
		return Reply{}
	}
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil || l.Status != state.Active {
		if e.facts.Words.HidesPromptNotice {
			return Reply{} // told at the next stop, where the user sees it
		}
		return Reply{Notice: e.ended(ctx, l)}
	}
	st := e.judge(l)
	if st.refused() {
		return Reply{} // not the loop's host: the loop does not take it for the user's turn
	}
	e.env.Store.Touch(e.ev.SessionID)
	// A new user prompt in a session with an active loop: a new turn, so the host's count of
	// consecutive blocks starts again. If the last turn ended on a block, the host ended it
	// (an interruption, an API error or its block cap): say so in the log.
	now := e.env.Now()
	var notice []string
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		e.claim(cur, st)
		if n := takePending(cur, e.facts.Words); n != "" {
			notice = append(notice, n)
		}
		if cur.AwaitCancel {
			// The last stop was let through for a /cancel-ralph the transcript showed
			// queued; this prompt is not it, so nobody typed it: the loop goes on.
			cur.AwaitCancel = false
			notice = append(notice, inject.QueuedCancelNotSent(cur, e.facts.Words))
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActMessage,
				Reason: "the cancel the transcript showed queued did not come as the user's prompt; the loop goes on"})
		}
		if e.ev.Turn != "" && e.ev.Turn == cur.Turn {
			// Typed while the agent worked, in the running turn: the host queues it and
			// hands it to the agent within the turn (at its next tool result) or, if the
			// turn ends first, as the next turn (see the stop's yield). The turn goes on:
			// its count of blocks is not reset.
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActMessage,
				Reason: "the user typed a message while the agent worked; the loop goes on"})
			cur.LastSeenAt = now
			return cur, nil
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
	return Reply{Notice: strings.Join(notice, " ")}
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
	if err != nil {
		return blockPrompt(inject.ArgError(err, e.facts.Words))
	}
	if e.ev.CannotLoop != "" {
		return blockPrompt("ralph-loop: " + e.ev.CannotLoop + "; nothing was started")
	}
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		return blockPrompt(fmt.Sprintf("ralph-loop: error: %v; nothing was started", err))
	}
	req := ArmRequest{
		SessionID:      e.ev.SessionID,
		Host:           e.host.Name(),
		Cwd:            e.ev.Cwd,
		ArmedBy:        "slash-command",
		TranscriptPath: e.ev.TranscriptPath,
		Key:            e.ev.Key,
		Started:        e.start,
		Turn:           e.ev.Turn,
	}
	if c, ok := e.caller(); ok {
		req.Owner = ownerOf(c)
	}
	if p.Resume {
		old, iteration, err := e.resumable(p)
		if err != nil {
			return blockPrompt(inject.ArgError(err, e.facts.Words))
		}
		req.Config, req.Resume, req.Iteration = old.Config, old, iteration
		req.Config.Mode = old.Mode
		if mode == state.ModeULW {
			req.Config.Mode = mode
		}
		if req.Config, err = args.Over(req.Config, p); err != nil {
			return blockPrompt(inject.ArgError(err, e.facts.Words))
		}
		if iteration > req.Config.MaxIterations {
			return blockPrompt(inject.ArgError(fmt.Errorf("the last loop used all its %d iterations: give it more with --max-iterations N (more than %d)",
				old.MaxIterations, iteration-1), e.facts.Words))
		}
		req.ArmedBy = "resume"
	} else {
		p.Config.Mode = mode
		if req.Config, err = args.Resolve(p, e.facts.ProjectDir); err != nil {
			return blockPrompt(inject.ArgError(err, e.facts.Words))
		}
	}
	if err := e.budgetArmable(req.Config); err != nil {
		return blockPrompt(inject.ArgError(err, e.facts.Words))
	}
	res, err := Arm(ctx, e.env, req)
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not start the loop: %v", err)
		fmt.Fprintln(e.env.Stderr, msg)
		return blockPrompt(msg)
	}
	if res.Duplicate {
		return Reply{} // the hook that armed it answers
	}
	notice := inject.Armed(&res.Loop, res.Replaced, e.facts.Words, e.facts.BlockCap, e.stopTimeout())
	if res.Quarantined != "" {
		notice += fmt.Sprintf(" (an unreadable state file was moved to %s)", res.Quarantined)
	}
	return Reply{Notice: notice, Context: inject.Contract(&res.Loop, e.facts.Words)}
}

// budgetArmable refuses a token or cost budget the loop could not keep: on a host that
// records no usage ralph-loop reads, or, for a cost budget, when the model the session uses
// (as the host's event names it, or as its last loop found) has no known price.
func (e *engine) budgetArmable(c state.Config) error {
	if c.MaxTokens == 0 && c.MaxCost == 0 {
		return nil
	}
	flag := "--" + args.FlagMaxTokens
	if c.MaxTokens == 0 {
		flag = "--" + args.FlagMaxCost
	}
	if e.facts.NoUsage != "" {
		return fmt.Errorf("%s: %s, so it cannot keep a budget", flag, e.facts.NoUsage)
	}
	if c.MaxCost == 0 {
		return nil
	}
	used := []string{e.ev.Model}
	if last, err := e.env.Store.Peek(e.ev.SessionID); err == nil && last != nil {
		used = append(used, last.Spent.Unpriced...)
	}
	for _, m := range used {
		if m == "" {
			continue
		}
		if _, ok := usage.Lookup(m, c.Prices); !ok {
			return fmt.Errorf("--%s: this session uses %s, which has no known price (see \"ralph-loop prices\"; set one under %q in %s)",
				args.FlagMaxCost, m, args.SettingPrices, args.ProjectSettings)
		}
	}
	return nil
}

// resumable returns the session's loop that --resume picks up and the iteration it goes on
// at: the one in progress when it ended (the session's end, a cancel), or the next one.
func (e *engine) resumable(p args.Parsed) (*state.Loop, int, error) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil {
		return nil, 0, err
	}
	if l == nil {
		return nil, 0, errors.New("--resume: this session has had no loop to pick up")
	}
	switch l.Status {
	case state.Active:
		return nil, 0, fmt.Errorf("--resume: this session's loop is still active (iteration %d/%d)", l.Iteration, l.MaxIterations)
	case state.PromiseAccepted:
		return nil, 0, errors.New("--resume: this session's last loop was completed (its promise was accepted)")
	case state.SessionEnded, state.Cancelled:
		return l, l.Iteration, nil
	}
	return l, l.Iteration + 1, nil
}

func (e *engine) cancel(ctx context.Context) Reply {
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		return blockPrompt(fmt.Sprintf("ralph-loop: error: %v", err))
	}
	l, err := Cancel(ctx, e.env, e.ev.SessionID, state.ByUser, "cancelled with "+CommandCancel, true)
	if err != nil {
		msg := fmt.Sprintf("ralph-loop: error: could not cancel the loop: %v", err)
		fmt.Fprintln(e.env.Stderr, msg)
		return blockPrompt(msg)
	}
	if l != nil {
		return blockPrompt(inject.Cancelled(l))
	}
	// No active loop: it may have ended at the stop before this prompt (the cancel typed
	// while the loop ran, applied there), or elsewhere. Say what became of it.
	last, _ := e.env.Store.Peek(e.ev.SessionID)
	if last != nil && last.Status != state.Active && e.env.Now().Sub(*last.EndedAt) < 24*time.Hour {
		if n := e.tell(ctx, last); n != "" {
			return blockPrompt(n)
		}
		return blockPrompt(inject.AlreadyEnded(last))
	}
	return blockPrompt(inject.NothingToCancel)
}

func (e *engine) stop(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	start := e.env.Now()
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil || l.Status != state.Active {
		return Reply{Notice: e.ended(ctx, l)}
	}
	st := e.judge(l)
	if st.refused() {
		e.notTaken("stop")
		return Reply{}
	}
	e.env.Store.Touch(e.ev.SessionID)
	var (
		verdict Verdict
		after   state.Loop
		decided bool
		readErr error
		other   string
		yield   string // a prompt the user typed while the turn ran, answered before the loop goes on
		cancel  bool   // the transcript shows the cancel command queued while the turn ran
		resumed bool   // the loop yielded to the user's message at the last stop
		pending string // what the user has not been told yet
		paused  bool   // the loop awaits the user's cancel: the stop is let through
		// interrupted: the host ended the last blocked turn (Esc) and a prompt of the
		// user's came since.
		interrupted bool
	)
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active || duplicate(cur, e.ev.Key, e.start) {
			return nil, nil
		}
		e.claim(cur, st)
		if cur.AwaitCancel {
			// Paused for a /cancel-ralph the transcript showed, and no prompt of the user's
			// has come since: this turn is the host's own (a background command's
			// notification), not the loop's. It is let through, and the loop stays paused.
			paused = true
			cur.LastKey, cur.LastKeyAt, cur.LastSeenAt = e.ev.Key, e.env.Now(), e.env.Now()
			tx.Record(state.Event{At: start, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActYielded,
				Reason: fmt.Sprintf("a stop with no prompt of the user's since the loop paused for %s: let through, the loop stays paused", CommandCancel)})
			return cur, nil
		}
		o := observe(e.env, e.facts, cur, e.ev, start)
		readErr = o.err
		for _, q := range o.queued {
			if c, ok, _ := ParseCommand(q); ok && c.Name == CommandCancel {
				cancel = true
			} else if yield == "" {
				yield = q
			}
		}
		resumed = cur.Yielded
		interrupted = cur.LastAction == state.ActTurnEnded
		verdict, after = Decide(*cur, o.Observation)
		after.Transcript = o.pos
		after.ToolsOffset = o.toolsOffset
		after.Yielded = false
		after.LastKey, after.LastKeyAt, after.Turn = e.ev.Key, e.env.Now(), e.ev.Turn
		decided = true
		blocks := verdict == Continue || verdict == ContinueNoWork
		after.Transcript.Unseen = blocks && e.facts.TranscriptLags && (e.ev.LastMessage != "" || e.ev.TurnMark != "") && !o.sawLast
		reason := eventReason(verdict, &after, nil)
		if verdict == Continue && o.HasOther {
			other = promise.Marker(o.Other)
			reason = fmt.Sprintf("promise not found, but a different token was: %s (the marker is %s); continuing with iteration %d/%d",
				other, promise.Marker(after.CompletionPromise), after.Iteration, after.MaxIterations)
		}
		pending = takePending(&after, e.facts.Words)
		switch {
		case blocks && cancel:
			// The transcript shows /cancel-ralph queued while the agent worked: the stop is
			// let through so that the host hands it over as the user's prompt, which ends
			// the loop. A line in the transcript alone ends nothing (anything can write
			// one): if the next prompt is not the cancel, the loop goes on.
			after = yielded(*cur, after)
			after.AwaitCancel = true
			reason = fmt.Sprintf("the transcript shows %s queued while the loop ran; this stop is let through for it, and the loop "+
				"ends when it comes as the user's prompt (or resumes at the next stop, iteration %d/%d)", CommandCancel, after.Iteration, after.MaxIterations)
		case blocks && yield != "":
			// The user typed a message while the agent worked: let this stop through so
			// that it is answered as its own turn; the loop goes on at the next stop, and
			// the iteration that was blocked is not used up.
			after = yielded(*cur, after)
			reason = fmt.Sprintf("the user typed a message while the loop ran; this stop is let through so that it is answered, "+
				"and the loop resumes at the next stop (iteration %d/%d)", after.Iteration, after.MaxIterations)
		}
		if o.note != "" {
			reason += " (" + o.note + ")"
		}
		if verdict == NeedChecks {
			after.LastAction = state.ActChecking
		}
		tx.Record(spentIn(state.Event{At: start, LoopID: after.LoopID, Iteration: cur.Iteration, Action: after.LastAction, Reason: reason},
			cur.Spent, after.Spent))
		return &after, nil
	})
	if err != nil {
		if r, ok := e.blockAnyway(l, decided, verdict, &after, err); ok {
			return r
		}
		return e.stateError(err)
	}
	if paused {
		return Reply{}
	}
	if !decided {
		return Reply{}
	}
	if after.Yielded {
		n := inject.Yielded(&after, e.facts.Words)
		if after.AwaitCancel {
			n = inject.CancelQueued(&after, e.facts.Words)
		}
		return Reply{Notice: joinNotices(pending, n)}
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
			verdict, after = Decide(*cur, Observation{Now: now, Found: true, BlockCap: e.facts.BlockCap,
				CapCountsTools: e.facts.CapCountsTools, HostBlocks: e.ev.HostBlocks, Words: e.facts.Words, Checks: checks})
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
		if notice != "" {
			s += " (" + notice + ")"
		}
		return joinNotices(pending, s)
	}
	w := e.facts.Words
	switch verdict {
	case Continue, ContinueNoWork, ContinueCheckFailed:
		why := inject.Why{Kind: inject.BlockNoPromise, Check: failedCheck(checks), Resumed: resumed}
		switch {
		case verdict == ContinueNoWork:
			why.Kind = inject.BlockNoWork
		case verdict == ContinueCheckFailed:
			why.Kind = inject.BlockCheckFailed
		case other != "":
			why.Kind, why.Other = inject.BlockWrongToken, other
		}
		n := inject.BlockNotice(&after, why)
		if w.HidesPromptNotice && after.Iteration == 2 {
			// The user never saw the arming notice: its warning comes with the first block.
			if cw := inject.CapWarning(&after, w, e.facts.BlockCap); cw != "" {
				n += ". " + cw
			}
		}
		if w.QueuesCommands && interrupted {
			n += "; " + inject.AfterInterrupt(&after, w)
		} else if w.QueuesCommands && after.Iteration == 2 {
			n += ". " + inject.EscHint(w)
		}
		if w.BlockLabel != "" && after.Iteration == 2 {
			n += " " + inject.BlockLabelNote(w)
		}
		return Reply{Block: true, Reason: inject.Continuation(&after, why, w), Notice: join(n)}
	case Accept:
		return Reply{Notice: join(inject.Accepted(&after))}
	case MaxIterations:
		return Reply{Notice: join(inject.MaxReached(&after))}
	case TimeBudget:
		return Reply{Notice: join(inject.TimeUp(&after))}
	case Budget:
		return Reply{Notice: join(inject.BudgetOut(&after))}
	case CutByHost:
		return Reply{Notice: join(inject.CutByHost(&after, w, e.facts.BlockCap))}
	case NoProgress:
		return Reply{Notice: join(inject.NoProgress(&after, w))}
	}
	return Reply{}
}

// spentIn adds to a stop decision's event what the model used in its iteration: what was
// spent since before.
func spentIn(ev state.Event, before, now usage.Spent) state.Event {
	d := now.Minus(before)
	if d.Total() == 0 && d.CostUSD == 0 {
		return ev
	}
	ev.Tokens = d.Total()
	if d.CostKnown() && now.CostKnown() {
		c := d.CostUSD
		ev.CostUSD = &c
	}
	return ev
}

// joinNotices joins notices for the user, leaving out empty ones.
func joinNotices(ns ...string) string {
	var out []string
	for _, n := range ns {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// writeGrace bounds how long stops are blocked on a decision that could not be saved (a
// full disk): the loop cannot count them, so past it they are let through.
const writeGrace = 10 * time.Minute

// blockAnyway answers a stop whose state transaction failed when letting it through would
// hand the loop to whoever made it fail: the decision to block could not be saved (a full
// disk: for a while, the host's block cap the backstop), or the session's lock is held by a
// process that is not ralph-loop. ok is false when the failure lets the stop through as
// before.
func (e *engine) blockAnyway(l *state.Loop, decided bool, v Verdict, after *state.Loop, err error) (Reply, bool) {
	w := e.facts.Words
	switch {
	case decided && (v == Continue || v == ContinueNoWork) && errors.Is(err, state.ErrWrite) && e.env.Now().Sub(l.UpdatedAt) < writeGrace:
		n := inject.WriteFailed(err)
		fmt.Fprintln(e.env.Stderr, n)
		why := inject.Why{Kind: inject.BlockNoPromise}
		if v == ContinueNoWork {
			why.Kind = inject.BlockNoWork
		}
		return Reply{Block: true, Reason: inject.Continuation(after, why, w), Notice: n}, true
	case errors.Is(err, state.ErrLockForeign):
		n := inject.LockHeld(err)
		fmt.Fprintln(e.env.Stderr, n)
		return Reply{Block: true, Reason: inject.Continuation(l, inject.Why{Kind: inject.BlockNoPromise}, w), Notice: n}, true
	}
	return Reply{}, false
}

// notTaken logs an event of the loop's session that changed nothing because it did not come
// from the loop's host (see judge).
func (e *engine) notTaken(what string) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil || l == nil {
		return
	}
	who := "an unknown process"
	if c, ok := e.caller(); ok {
		who = c.String()
	}
	_ = e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActRefused,
		Reason: fmt.Sprintf("a %s event from %s, which is not the loop's host, changed nothing", what, who)})
}

// yielded is the loop after a stop let through for the user's message: what the decision
// counted (tool calls, how far the transcript was read) is kept, but the iteration is not
// used up.
func yielded(before, decided state.Loop) state.Loop {
	l := decided
	l.Iteration = before.Iteration
	// The stop ends the host's turn: the user's message starts a new one (which fires no
	// prompt hook when it was typed in the running turn), so the host's count of blocks
	// starts again.
	l.BlocksSinceTool = 0
	l.BlocksInTurn = 0
	l.WindowStart = before.WindowStart
	l.Yielded = true
	l.LastAction = state.ActYielded
	return l
}

// stopTimeout is the host's Stop hook timeout (0: unknown).
func (e *engine) stopTimeout() time.Duration {
	if e.facts.StopTimeout == nil {
		return 0
	}
	return e.facts.StopTimeout()
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

// active is the first look of the events that only matter while a loop runs.
func (e *engine) active() (*state.Loop, *Reply) {
	l, out := e.look()
	if l == nil || l.Status != state.Active {
		return nil, out
	}
	return l, nil
}

func (e *engine) toolUsed() Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	if e.judge(l).refused() {
		return Reply{} // not the loop's host: no work of the loop's agent
	}
	e.env.Store.Touch(e.ev.SessionID)
	// Appended to the tool log without the lock: parallel tool calls run their hooks at
	// once, and the next stop decision counts them. A call the host refused before it ran
	// is logged as denied: it never counts, even when the transcript shows it.
	if err := e.env.Store.AppendToolUse(e.ev.SessionID, l.LoopID, e.ev.ToolUseID, e.ev.Rejected); err != nil {
		return e.fail("%v", err)
	}
	return Reply{}
}

// said keeps one of the agent's messages in the session's said log while a loop is active,
// for the loop's next stop to read (Facts.SaidLog). Like the tool log, it is appended
// without the lock.
func (e *engine) said() Reply {
	if !e.facts.SaidLog || !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	if e.judge(l).refused() {
		return Reply{}
	}
	m := state.Said{Timestamp: e.env.Now(), LoopID: l.LoopID, Turn: e.ev.TurnMark, Text: e.ev.Text}
	if err := e.env.Store.AppendSaid(e.ev.SessionID, m); err != nil {
		return e.fail("%v", err)
	}
	return Reply{}
}

func orEmpty(r *Reply) Reply {
	if r == nil {
		return Reply{}
	}
	return *r
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
	act := e.action()
	if act.Kind == guard.None {
		return Reply{}
	}
	reason := guard.Check(e.guardConfig(), act)
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
	} else if files := guard.PatchFiles(e.ev.Patch); len(files) > 0 {
		what += " of " + firstLine(strings.Join(files, ", "), 200)
	}
	if err := e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration,
		Action: state.ActDenied, Reason: "denied the agent's " + what}); err != nil {
		fmt.Fprintf(e.env.Stderr, "ralph-loop: error: %v\n", err)
	}
	return Reply{Deny: true, DenyReason: reason}
}

// action is what the tool call does, as the host's adapter told it.
func (e *engine) action() guard.Action {
	dir := e.ev.Cwd
	if e.ev.ToolDir != "" {
		dir = e.ev.ToolDir
		if !filepath.IsAbs(dir) && e.ev.Cwd != "" {
			dir = filepath.Join(e.ev.Cwd, dir)
		}
	}
	act := guard.Action{Kind: e.ev.ToolKind, Tool: e.ev.ToolName, Dir: dir}
	switch act.Kind {
	case ShellTool:
		act.Command = e.ev.Command
	case WriteTool, DeleteTool, PatchTool:
		if e.ev.FilePath != "" {
			act.Paths = append(act.Paths, e.ev.FilePath)
		}
		act.Patch = e.ev.Patch
	}
	return act
}

// guardConfig is what the guard knows of this session.
func (e *engine) guardConfig() guard.Config {
	return guard.Config{
		StateDir:    e.env.Store.Dir(),
		Home:        e.env.Getenv("HOME"),
		StateHome:   e.env.Getenv("XDG_STATE_HOME"),
		CLI:         e.facts.CLI,
		SessionEnv:  e.facts.SessionEnv,
		SessionID:   e.ev.SessionID,
		Server:      e.facts.Server,
		ServerPorts: e.facts.ServerPorts,
		Words:       e.facts.Words,
		Protected:   e.protected(),
	}
}

// protected are the paths kept like the state directory: ralph-loop's keep of the loop's
// state, and the host's hook files.
func (e *engine) protected() []string {
	var p []string
	if k := e.env.Store.KeepDir(); k != "" {
		p = append(p, k)
	}
	if e.facts.HookFiles != nil {
		p = append(p, e.facts.HookFiles()...)
	}
	return p
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// sessionStart tells the user, when a session resumes, what became of its loop: still
// active, or ended with the session (and the one command that picks it up again). After a
// compaction or /clear, an active loop's contract is given to the model again.
func (e *engine) sessionStart(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil {
		return Reply{Notice: e.ended(ctx, l)}
	}
	if e.ev.Source == "resume" && e.facts.ResumeNoticeHidden {
		return Reply{} // told at the first prompt, where the user sees it
	}
	if l.Status == state.Active && e.judge(l).refused() {
		return Reply{}
	}
	if l.Status == state.Active {
		switch e.ev.Source {
		case "compact", "clear":
			return Reply{Context: inject.Contract(l, e.facts.Words)}
		case "resume":
			return Reply{Notice: inject.StillActive(l, e.facts.Words)}
		}
		return Reply{}
	}
	if e.ev.Source == "resume" || e.ev.Source == "startup" {
		return Reply{Notice: e.ended(ctx, l)}
	}
	return Reply{}
}

func (e *engine) sessionEnd(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	if e.judge(l).refused() {
		// A host the agent started on this session (claude -p --resume) ending, or an
		// event sent from inside: the loop's own session goes on.
		e.notTaken("session end")
		return Reply{}
	}
	why := "the session ended"
	if e.ev.Reason != "" {
		why += " (" + e.ev.Reason + ")"
	}
	if _, err := finish(ctx, e.env, e.ev.SessionID, state.SessionEnded, state.BySessionEnd, state.ActEnded, why, false); err != nil {
		return e.stateError(err)
	}
	return Reply{}
}

// continuation answers a blocked stop's reason handed back as the next prompt. A block is
// never delivered after its loop ended, nor after the loop went past it: such a reason
// (queued by the host and sent late, after a stop that ended the loop) is refused, so that
// the agent is not told to go on with a loop that is over.
func (e *engine) continuation() Reply {
	iteration, ok := inject.ContinuationIteration(e.ev.Prompt)
	if !ok || !e.session() {
		return Reply{}
	}
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil {
		return Reply{}
	}
	if l != nil && l.Status == state.Active && l.Iteration == iteration {
		return Reply{}
	}
	return blockPrompt(inject.StaleContinuation(l, iteration))
}
