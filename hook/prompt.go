package hook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// command finds the loop command in a prompt of the host's (see Commands.Text).
func (e *engine) command(prompt string) (c Command, ok, looksLike bool) {
	if e.facts.Commands.Text != nil {
		prompt = e.facts.Commands.Text(prompt)
	}
	return ParseCommand(prompt)
}

func (e *engine) prompt(ctx context.Context) Reply {
	c, ok, looksLike := e.command(e.ev.Prompt)
	if (ok || looksLike) && e.facts.Commands.Event != "" && e.ev.Name != e.facts.Commands.Event {
		return Reply{} // handled at the command's own event, just before
	}
	if looksLike {
		return blockPrompt(inject.CommandNotRecognised(e.facts.Words))
	}
	if ok {
		if r := e.refuseLoopCommand(ctx, c.Name); r != nil {
			return *r
		}
		if state.ValidSessionID(e.ev.SessionID) == nil {
			// The ended loop's last turn is counted before a new loop takes its place.
			if l, err := e.env.Store.Peek(e.ev.SessionID); err == nil {
				e.settle(ctx, l)
			}
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
		e.settle(ctx, l)
		if e.facts.Words.HidesPromptNotice {
			return Reply{} // told at the next stop, where the user sees it
		}
		return Reply{Notice: e.ended(ctx, l)}
	}
	if e.unverified != nil {
		return Reply{Notice: inject.UnverifiedNotice(e.unverified.Why, e.facts.Words, false)}
	}
	st := e.judge(l)
	if st.refused() {
		return Reply{} // not the loop's host: the loop does not take it for the user's turn
	}
	e.env.Store.Touch(e.ev.SessionID)
	return e.userTurn(ctx, st)
}

// userTurn takes a prompt of the user's in a session whose loop is active: a new turn, so
// the host's count of consecutive blocks starts again. If the last turn ended on a block,
// the host ended it (an interruption, an API error or its block cap): the log says so. On
// a host that halts turns with no stop (Facts.Halts), a turn of the loop that no stop ended
// was halted: the loop ends there (haltedTurn).
func (e *engine) userTurn(ctx context.Context, st standing) Reply {
	now := e.env.Now()
	var notice []string
	var ended *state.Loop
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		e.claim(cur, st)
		if n := takePending(cur, e.facts.Words); n != "" {
			notice = append(notice, n)
		}
		if cur.Paused() {
			notice = append(notice, e.resumePaused(tx, cur, now))
		}
		if cur.MaxCost > 0 && !cur.Spent.CostKnown() {
			notice = append(notice, e.price(tx, cur, now))
		}
		if cur.AwaitCancel {
			// The last stop was let through for a /cancel-ralph the transcript showed
			// queued; this prompt is not it, so nobody typed it: the loop goes on.
			cur.AwaitCancel = false
			notice = append(notice, inject.QueuedCancelNotSent(cur, e.facts.Words))
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActMessage,
				Reason: inject.ReasonQueuedCancelNotSent})
		}
		if cur.Waiting() {
			// The loop waited with the host for its background work: this is the host's
			// wake-up turn (Claude Code's task notification) or the user's message, and the
			// iteration goes on in it.
			cur.LastAction = state.ActWoken
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActWoken,
				Reason: inject.ReasonWoken(now.Sub(cur.WaitSince))})
		}
		if e.ev.InTurn || e.ev.Turn != "" && e.ev.Turn == cur.Turn {
			// Typed while the agent worked, in the running turn: the host queues it and
			// hands it to the agent within the turn (at its next tool result) or, if the
			// turn ends first, as the next turn (see the stop's yield). The turn goes on:
			// its count of blocks is not reset.
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActMessage,
				Reason: inject.ReasonMessageInTurn})
			cur.LastSeenAt = now
			return cur, nil
		}
		if e.haltedTurn(cur, st) {
			why := inject.EndHalted(e.facts.Words, e.facts.Halts)
			cur.Finish(state.NoProgress, state.ByHost, why, now)
			cur.LastAction, cur.Told = state.ActNoProgress, true
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActNoProgress, Reason: why})
			notice = append(notice, inject.NoProgressHalted(cur, e.facts.Words))
			ended = cur
			return cur, nil
		}
		if cur.LastAction == state.ActBlocked {
			tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActTurnEnded,
				Reason: inject.ReasonTurnEnded})
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
	e.notify(ended)
	return Reply{Notice: strings.Join(notice, " ")}
}

// haltedTurn reports whether the loop's last turn, which had no stop, was one the host
// halted itself (Facts.Halts): the user's prompt comes from the loop's own host process
// (not a new one that resumed the session) after a turn of the loop (its first, or one a
// block began) that no stop ended.
func (e *engine) haltedTurn(cur *state.Loop, st standing) bool {
	return e.facts.Halts != "" && st != standNew && (cur.LastAction == state.ActArmed || cur.LastAction == state.ActBlocked)
}

// price answers the user's prompt to a loop paused for a model's price (PausedForPrice):
// the prices are read again from the user's own settings, and the tokens held for the
// models that now have one are counted. It returns what to tell the user.
func (e *engine) price(tx *state.Tx, l *state.Loop, now time.Time) string {
	var cfg state.Config
	if err := e.userPrices(&cfg); err != nil {
		return inject.StillPaused(l, e.facts.Words, err)
	}
	prices := maps.Clone(l.Prices)
	for m, p := range cfg.Prices {
		if prices == nil {
			prices = map[string]spend.Price{}
		}
		prices[m] = p
	}
	before := l.Spent.Unpriced
	l.Spent = l.Spent.Price(prices)
	var priced []string
	for _, m := range before {
		if !slices.Contains(l.Spent.Unpriced, m) {
			priced = append(priced, m)
		}
	}
	if len(priced) == 0 {
		return inject.StillPaused(l, e.facts.Words, nil)
	}
	l.Prices = prices
	tx.Record(state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActPaused, Reason: inject.ReasonPriced(l, priced)})
	if !l.Spent.CostKnown() {
		return inject.StillPaused(l, e.facts.Words, nil)
	}
	return inject.PriceResumed(l, priced)
}

func blockPrompt(reason string) Reply { return Reply{Block: true, Reason: reason} }

// arm starts a loop from the command the user typed (rest: its arguments): the request
// (armRequest), the loop (Arm), and what the user and the agent are told (armReply).
func (e *engine) arm(ctx context.Context, rest, mode string) Reply {
	req, refused := e.armRequest(rest, mode)
	if refused != nil {
		return *refused
	}
	goal := e.goalNote()
	if goal != "" && e.facts.Words.HidesPromptNotice {
		req.Pending = append(req.Pending, state.Pending{At: e.env.Now(), What: state.PendingGoal, Why: goal})
	}
	res, err := Arm(ctx, e.env, req)
	if err != nil {
		msg := inject.ArmFailed(err)
		if errors.Is(err, state.ErrUnverified) {
			msg = inject.ArmUnverified(err, e.facts.Words)
		}
		fmt.Fprintln(e.env.Stderr, msg)
		return blockPrompt(msg)
	}
	if res.Duplicate {
		return Reply{} // the hook that armed it answers
	}
	r := e.armReply(res)
	if goal != "" {
		r.Notice += ". " + goal
	}
	return r
}

// goalNote says what the arming notice says of the host's own goal for the session (see
// HostGoal), "" when there is none: one the host's record shows active (Claude Code's
// /goal, Codex's goals, Qwen Code's /goal: GoalReader), or one the event reports (Kilo
// Code's /goal: Event.Goal). Where the host does not show the arming notice, the loop's
// first stop says it.
func (e *engine) goalNote() string {
	g := e.ev.Goal
	if r, ok := e.facts.transcript().Read.(GoalReader); ok && e.ev.TranscriptPath != "" && g == nil {
		if text, active := r.ActiveGoal(e.ev.TranscriptPath); active {
			g = &HostGoal{Text: text}
		}
	}
	switch {
	case g == nil:
		return ""
	case g.Paused:
		return inject.GoalPaused(g.Text, e.facts.Words)
	}
	return inject.GoalActive(g.Text, e.facts.Words)
}

// armRequest reads the command's arguments into the request for a new loop (or the
// session's last one, resumed), or the reply that refuses it, saying why.
func (e *engine) armRequest(rest, mode string) (ArmRequest, *Reply) {
	refuse := func(msg string) (ArmRequest, *Reply) {
		r := blockPrompt(msg)
		return ArmRequest{}, &r
	}
	words, err := args.Split(rest)
	var p args.Parsed
	if err == nil {
		p, err = args.Parse(words, args.Options{})
	}
	if errors.Is(err, args.ErrHelp) {
		return refuse(inject.Help(e.facts.Words))
	}
	if err != nil {
		return refuse(inject.ArgError(err, e.facts.Words))
	}
	if e.ev.CannotLoop != "" {
		return refuse(inject.CannotLoop(e.ev.CannotLoop))
	}
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		return refuse(inject.NothingStarted(err))
	}
	req := ArmRequest{
		SessionID:      e.ev.SessionID,
		Host:           e.host.Name(),
		Cwd:            e.ev.Cwd,
		ArmedBy:        "slash-command",
		TranscriptPath: e.ev.TranscriptPath,
		Key:            e.ev.Key,
		Started:        e.began(),
		Turn:           e.ev.Turn,
		HookBinaries:   e.readBinaries(),
	}
	if c, ok := e.caller(); ok {
		req.Owner = ownerOf(c)
	}
	if p.Resume {
		err = e.resumeConfig(&req, p, mode)
	} else {
		err = e.newConfig(&req, p, mode)
	}
	if err == nil {
		err = e.budgetArmable(req.Config)
	}
	if err != nil {
		return refuse(inject.ArgError(err, e.facts.Words))
	}
	req.Settings, req.Sandbox, req.SandboxRoots = Settings(e.facts, e.ev.TranscriptPath, Trusted(e.env.Store, e.facts, e.env.UserSettings))
	return req, nil
}

// newConfig is a new loop's configuration: the flags over the project's settings, the task
// read from its file where --task-file names one.
func (e *engine) newConfig(req *ArmRequest, p args.Parsed, mode string) error {
	p.Config.Mode = mode
	dir := e.ev.Cwd
	if dir == "" {
		dir = e.facts.ProjectDir
	}
	if err := args.ReadTask(&p, dir); err != nil {
		return err
	}
	c, err := args.Resolve(p, e.facts.ProjectDir)
	req.Config = c
	if err != nil {
		return err
	}
	return e.userPrices(&req.Config)
}

// userPrices sets the loop's prices, and what a model without one does, from the user's
// own settings (never a project's: see args.UserSettings).
func (e *engine) userPrices(c *state.Config) error {
	c.Prices, c.Unpriced = nil, ""
	if e.env.UserSettings == "" {
		return nil
	}
	var err error
	c.Prices, c.Unpriced, err = args.UserSettings(e.env.UserSettings)
	return err
}

// resumeConfig is the configuration of the session's last loop, resumed (--resume) where it
// ended, with the flags typed now over it.
func (e *engine) resumeConfig(req *ArmRequest, p args.Parsed, mode string) error {
	old, iteration, err := e.resumable(p)
	if err != nil {
		return err
	}
	req.Config, req.Resume, req.Iteration = old.Config, old, iteration
	req.Config.Mode = old.Mode
	if mode == state.ModeULW {
		req.Config.Mode = mode
	}
	if req.Config, err = args.Over(req.Config, p); err != nil {
		return err
	}
	if err := e.userPrices(&req.Config); err != nil {
		return err
	}
	if iteration > req.Config.MaxIterations {
		return fmt.Errorf("the last loop used all its %d iterations: give it more with --max-iterations N (more than %d)",
			old.MaxIterations, iteration-1)
	}
	req.ArmedBy = "resume"
	return nil
}

// armReply tells the user that the loop is armed (its limits, what protects it) and gives
// the agent the task and its contract.
func (e *engine) armReply(res Armed) Reply {
	notice := inject.Armed(&res.Loop, res.Replaced, e.facts.Words, e.facts.BlockCap, e.stopTimeout())
	if e.facts.Sandbox != nil {
		notice += inject.ProtectionNotice(&res.Loop, proc.Supported, e.facts.Words)
	}
	if res.Quarantined != "" {
		notice += inject.Quarantined(res.Quarantined)
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
	if no := e.facts.transcript().NoUsage; no != "" {
		return fmt.Errorf("%s: %s, so it cannot keep a budget", flag, no)
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
		if _, ok := spend.Lookup(m, c.Prices); !ok {
			return fmt.Errorf("--%s: this session uses %s, which has no known price (see \"ralph-loop prices\"; set one under %q in %s)",
				args.FlagMaxCost, m, args.SettingPrices, args.UserSettingsName)
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
		if l.Paused() {
			return l, l.Iteration, nil // the turn the provider refused used up no iteration
		}
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
		return blockPrompt(inject.Error(err))
	}
	r := e.cancelAnswer(ctx)
	r.Reason, r.Answered = inject.Answer(r.Reason, e.facts.Words), true
	return r
}

// cancelAnswer is /cancel-ralph's answer: the loop it ended, or what became of the last one.
func (e *engine) cancelAnswer(ctx context.Context) Reply {
	l, err := Cancel(ctx, e.env, e.ev.SessionID, state.ByUser, "cancelled with "+CommandCancel, true)
	if err != nil {
		msg := inject.CancelFailed(err)
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
