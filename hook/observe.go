package hook

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// observed is what observe found.
type observed struct {
	Observation
	pos         state.TranscriptPos
	toolsOffset int64
	// sawLast: the transcript showed the host's last message; queued are prompts the user
	// typed while the turn ran, in order.
	sawLast bool
	queued  []string
	// partial: the agent's output may hold text this stop did not read (the host hands over
	// only the end of it, and the transcript did not show the rest); lagging: the transcript
	// is there but did not show the last message, and the stop did not wait for it.
	partial, lagging bool
	// late: the marker was in the end of the last iteration, which reached the transcript
	// after its stop blocked without finding one (state.TranscriptPos.LateMarker).
	late bool
	// seenTools are the tool calls the transcript shows since the last decision: with
	// Transcript.ToolLogLags, the calls the tool log should hold.
	seenTools []string
	// recorded: the transcript was read (its file is there), so the tool calls count by
	// the host's record (Transcript.Record) from now on (state.Loop.Recorded).
	recorded bool
	// note says what the transcript contributed, for the event log.
	note string
	// err is a failure to read the transcript or the tool log; the decision is made
	// without them.
	err error
}

// observe gathers what the agent did in the iteration that just ended: the promise in the
// host's last message or in any text block the transcript holds since the last decision,
// and the tool calls the tool log and the transcript show. When a block looks likely and
// the transcript does not yet hold the last message (the host writes it asynchronously),
// it waits a bounded time for the transcript to catch up before deciding.
func observe(env Env, facts Facts, l *state.Loop, ev Event, now time.Time) observed {
	last := ev.LastMessage
	if ev.HasText {
		last = ev.Text
	}
	o := observed{
		Observation: Observation{
			Now:        now,
			Found:      promise.ContainsMode(last, l.CompletionPromise, promise.Mode(l.PromiseMatch)),
			BlockCap:   facts.BlockCap,
			HostBlocks: ev.HostBlocks,
			Words:      facts.Words,
			Background: ev.Background,
		},
		pos: l.Transcript,
	}
	if l.Recorded {
		o.Record = facts.transcript().Record
	}
	if r, ok := facts.transcript().Read.(BackgroundReader); ok {
		if path := cmp.Or(ev.TranscriptPath, l.Transcript.Path); path != "" {
			o.Background = append(slices.Clip(o.Background), r.Background(path, ev.SessionID)...)
		}
	}
	o.Other, o.HasOther = promise.Other(last, l.CompletionPromise)
	if l.Missed != "" {
		// A stop before went through undecided (its hook was killed): this one is blocked
		// whatever its output holds, unless the loop ends at its limits (see undecided).
		o.Unread = l.Missed
	}
	o.Logged, o.toolsOffset, o.err = env.Store.ToolUses(l)
	o.Usage = ev.Usage
	if facts.transcript().Read == nil || ev.HasText {
		return o
	}
	o.readTranscript(env, facts, l, ev, now)
	if facts.transcript().ToolLogLags && o.err == nil {
		o.awaitTools(env, l, now)
	}
	return o
}

// awaitTools waits for the tool calls the transcript shows and the tool log does not hold
// yet (the host logs them in the background: Transcript.ToolLogLags), for at most
// env.ToolWait after now, and only where counting them could change the decision (a
// promise that lacks work without them, a stall they would break, the host's block cap
// they would reset) or the stop ends the loop (no later stop would count them, and the
// loop's count would stay short). Otherwise the stop is decided at once, and the next one
// counts them as they come. A call still missing at the end is one the host refused before
// it ran (it fires no tool hook): it never counts.
func (o *observed) awaitTools(env Env, l *state.Loop, now time.Time) {
	missing := o.unlogged(l)
	if len(missing) == 0 {
		return
	}
	if !o.toolsWouldChange(l, missing) {
		o.note = joinNote(o.note, inject.NoteToolsLate(len(missing)))
		return
	}
	deadline := now.Add(env.ToolWait)
	for env.Now().Before(deadline) {
		env.Sleep(5 * time.Millisecond)
		logged, offset, err := env.Store.ToolUses(l)
		if err != nil {
			o.err = err
			return
		}
		o.Logged, o.toolsOffset = logged, offset
		if missing = o.unlogged(l); len(missing) == 0 {
			o.note = joinNote(o.note, inject.NoteToolsWaited(env.Now().Sub(now).Round(time.Millisecond)))
			return
		}
	}
	o.note = joinNote(o.note, inject.NoteToolsNotLogged(len(missing), env.ToolWait))
}

// unlogged are the tool calls of seenTools that neither the tool log nor the loop's count
// holds. A tool the model's API ran itself (server_tool_use, its id "srvtoolu_…") fires no
// tool hook: it is never waited for.
func (o *observed) unlogged(l *state.Loop) []string {
	var ids []string
	for _, id := range o.seenTools {
		if id == "" || strings.HasPrefix(id, "srvtoolu_") || slices.Contains(l.ToolIDs, id) ||
			slices.ContainsFunc(o.Logged, func(u state.ToolUse) bool { return u.ToolUseID == id }) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// wouldDecide is a speculative decision: what Decide would say on o, with nothing saved. A
// stop asks it whether waiting for what the host has not written yet could change its
// verdict: the transcript's end (waitCouldChange), the tool log's calls (toolsWouldChange).
func wouldDecide(l *state.Loop, o Observation) (Verdict, state.Loop) { return Decide(*l, o) }

// toolsWouldChange reports whether the tool calls ids, once logged, would change the stop's
// verdict (speculatively: wouldDecide), or the verdict without them lets the stop through
// other than to wait with the host (whose wake-up comes with a stop that counts them).
func (o *observed) toolsWouldChange(l *state.Loop, ids []string) bool {
	without, _ := wouldDecide(l, o.Observation)
	with := o.Observation
	with.Logged = slices.Clip(with.Logged)
	for _, id := range ids {
		with.Logged = append(with.Logged, state.ToolUse{LoopID: l.LoopID, ToolUseID: id})
	}
	v, _ := wouldDecide(l, with)
	return v != without || !without.Blocks() && without != Wait
}

// readTranscript adds what the transcript holds since the last decision: the promise in
// any text block, tool calls, the user's queued prompts and the model's usage. When the
// transcript does not show the agent's last message yet (the host writes it late), it
// reads again, for a bounded time, until it does.
func (o *observed) readTranscript(env Env, facts Facts, l *state.Loop, ev Event, now time.Time) {
	tr := facts.Transcript.Read
	path := ev.TranscriptPath
	if path == "" {
		path = o.pos.Path
	}
	if path == "" {
		return
	}
	textAfter, ok := o.startAt(tr, l, path)
	if !ok {
		return
	}
	waitFor := ev.LastMessage
	if waitFor == "" {
		waitFor = ev.TurnMark
	}
	opt := o.scanOptions(env, l, ev, textAfter, waitFor)
	// Text the host hands over only part of is in the transcript alone.
	textHere := facts.transcript().LastMessagePart || ev.LastMessage == ""
	res, err := tr.Scan(path, o.pos.Offset, opt)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		o.err = fmt.Errorf("read transcript %s: %w", path, err)
		o.partial = textHere
		return
	}
	o.take(&res, facts, missing)
	if facts.transcript().Lags && waitFor != "" && !res.SawLast && !res.Cut {
		// A transcript file that does not exist yet tells nothing of the calls it lacks.
		behind := !missing && o.behindTools(l)
		if o.waitCouldChange(l, ev, textHere, facts.transcript().ToolLogLags, behind) {
			missing = o.catchUp(env, facts, path, opt, now, &res, missing)
		} else if !missing {
			o.note, o.lagging = inject.NoteLate, true
		}
		o.partial = textHere && !res.SawLast
	}
	o.noteScan(env, &res, missing)
}

// startAt finds where this stop reads the transcript at path from. Text counts by its place
// in the transcript: after where the last decision stopped reading (and, when that decision
// did not see the agent's last message yet, after the next user line). Only when that place
// is not known (the first stop, or a transcript of another path) are the lines' times used:
// textAfter is then the loop's start. ok is false when the transcript cannot be read.
func (o *observed) startAt(tr TranscriptReader, l *state.Loop, path string) (textAfter time.Time, ok bool) {
	if path != o.pos.Path {
		o.pos = state.TranscriptPos{Path: path, Offset: -1}
	}
	if o.pos.Offset >= 0 {
		return time.Time{}, true
	}
	start, err := tr.OffsetAfter(path, l.StartedAt)
	switch {
	case errors.Is(err, transcript.ErrBound):
		o.Unread = inject.UnreadBack
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		o.err = fmt.Errorf("read transcript %s: %w", path, err)
		return time.Time{}, false
	}
	o.pos.Offset, o.pos.InLine = start, false
	return l.StartedAt, true
}

// scanOptions says what a scan of the transcript looks for, from where the last decision
// left it (o.pos): the loop's marker, text and tool calls after textAfter (when the place
// is not known), the host's last message (waitFor), the model's usage.
func (o *observed) scanOptions(env Env, l *state.Loop, ev Event, textAfter time.Time, waitFor string) transcript.Options {
	opt := transcript.Options{
		Token:      l.CompletionPromise,
		Mode:       promise.Mode(l.PromiseMatch),
		TextAfter:  textAfter,
		ToolsAfter: textAfter,
		SkipToUser: o.pos.Unseen,
		LateUntil:  o.pos.UnseenAt,
		Last:       waitFor,
		UsageSeen:  o.pos.UsageID,
		Model:      o.pos.Model,
		MaxRead:    env.MaxRead,
		Deadline:   time.Now().Add(readTime),
		InLine:     o.pos.InLine,
	}
	if ev.Model != "" {
		opt.Model = ev.Model // the model of this turn, which may have begun before the last scan's end
	}
	return opt
}

// noteScan says in the stop's event what the scan met (missing: there is no transcript
// file), and, when the transcript grew by more than one stop reads, why the output was not
// read to its end.
func (o *observed) noteScan(env Env, res *transcript.Result, missing bool) {
	if missing && o.note == "" {
		o.note = inject.NoteNoTranscript(0)
	}
	if o.late {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteLateMarker, "; ")
	}
	if res.Bad > 0 {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteMalformed(res.Bad), "; ")
	}
	if res.Holes > 0 {
		o.note = strings.TrimPrefix(o.note+"; "+inject.NoteHoles(res.Holes), "; ")
	}
	if res.Cut {
		max := env.MaxRead
		if max <= 0 {
			max = transcript.MaxRead
		}
		o.Unread = inject.UnreadCut(res.Read, max)
	}
}

// take keeps what a scan of the transcript found (res: everything read since the last
// decision; missing: there is no transcript file yet).
func (o *observed) take(res *transcript.Result, facts Facts, missing bool) {
	o.Found = o.Found || res.Found
	if res.LateFound && o.pos.LateMarker && !o.Found {
		o.Found, o.late = true, true
	}
	if res.HasOther && !o.HasOther {
		o.Other, o.HasOther = res.Other, true
	}
	if !missing && !o.recorded {
		o.recorded, o.Record = true, facts.transcript().Record
	}
	if o.Record != RecordNone {
		o.ToolIDs = res.ToolIDs
	}
	o.seenTools = res.ToolIDs
	if res.FailedStops > 0 && o.Unread == "" {
		// The host recorded a stop hook of ours that failed (killed, or an error) since the
		// last decision: that stop went through undecided, and this one is blocked.
		o.Unread = inject.UnreadMissed(res.FailedStops)
	}
	o.pos.Offset, o.pos.InLine = res.Offset, res.InLine
	o.sawLast = res.SawLast
	o.queued = res.Queued()
	o.NoReply = facts.transcript().StopsWithoutReply && !missing && res.Replies == 0
	o.Usage = res.Usage
	if res.UsageID != "" {
		o.pos.UsageID = res.UsageID
	}
	if res.Model != "" {
		o.pos.Model = res.Model
	}
}

// waitCouldChange reports, speculatively (wouldDecide), whether what the transcript does not
// show yet (the host writes the end of a turn after its stop hook has started) could change
// the stop's decision, which is then worth waiting for (textHere: the transcript may hold
// agent text the stop event did not hand over):
//
//   - the loop would end (or pause) without the marker, and the transcript may hold text of
//     the agent's: a marker there ends it accepted instead, and no later stop could count it;
//   - the stop would be blocked, and either the host hands over no text at all (the agent's
//     text is only in the transcript), or the last turn's usage could reach the loop's budget;
//   - the stop would be blocked without the marker, a marker would change that, and the
//     transcript is known to lack text of the agent's (behind): it does not show a tool call
//     the tool hooks logged in this iteration (behindTools), and the host writes its
//     transcript in order, so the text the agent wrote before that call is not in it yet
//     either (the agent says it is done, then runs one more command, then ends its turn);
//   - the promise would be rejected for too little work while the host logs tool calls in
//     the background (Transcript.ToolLogLags): the turn's calls may be in the part not
//     written yet, and awaitTools waits for those the transcript shows.
//
// A stop that waits with the host's background work (Wait) is not worth it: a marker in
// the rest would not count while the work runs (ContinueBusy, which would only block the
// agent's wait), and the wake-up's stop reads on from here.
//
// Otherwise the stop is decided at once. The tool calls come from the tool hooks, the
// promise from the host's last message; a block without it, when the host hands over only
// the end of the agent's output (Transcript.LastMessagePart), says so to the agent, and a marker
// in the rest counts at the next stop (state.TranscriptPos.LateMarker): that is left only
// for text the agent wrote in its last reply before the text the host handed over, after
// its last tool call, which neither the host's event nor the tool log tells of. The late
// turn's usage is counted when it appears (the next stop, or the next event once the loop
// has ended: see settle), so the totals stay exact.
func (o *observed) waitCouldChange(l *state.Loop, ev Event, textHere, toolsLate, behind bool) bool {
	v, after := wouldDecide(l, o.Observation)
	switch v {
	case ContinueNoWork:
		return toolsLate || ev.LastMessage == "" || withinReach(&after)
	case Continue:
		return ev.LastMessage == "" || withinReach(&after) || textHere && behind && o.markerWouldChange(l, v)
	case Accept, NeedChecks, ContinueCheckFailed, ContinueBusy, ContinueOverdue, Wait:
		return false
	}
	return textHere && !o.Found
}

// behindTools reports whether the tool log holds a call of this iteration (a completed one,
// or one the guard denied) that the transcript did not show: the transcript is behind on
// the agent's output up to that call. A call whose id the loop counted at an earlier stop
// is not this iteration's.
func (o *observed) behindTools(l *state.Loop) bool {
	for _, u := range o.Logged {
		id := u.ToolUseID
		if id == "" || strings.HasPrefix(id, "srvtoolu_") || slices.Contains(o.seenTools, id) || slices.Contains(l.ToolIDs, id) {
			continue
		}
		return true
	}
	return false
}

// markerWouldChange reports whether the marker, found in what the transcript does not show
// yet, would change the verdict v.
func (o *observed) markerWouldChange(l *state.Loop, v Verdict) bool {
	with := o.Observation
	with.Found = true
	w, _ := wouldDecide(l, with)
	return w != v
}

// withinReach reports whether one more reply could reach the loop's token or cost budget:
// a reply of the model the loop last counted, as large as the model allows (see
// spend.Limits), at its price.
func withinReach(l *state.Loop) bool {
	if l.MaxTokens == 0 && l.MaxCost == 0 {
		return false
	}
	lim := spend.LimitsOf(l.Ledger.Model)
	if l.MaxTokens > 0 && l.Spent.Total()+lim.Context+lim.Output >= l.MaxTokens {
		return true
	}
	if l.MaxCost == 0 {
		return false
	}
	p, ok := spend.Lookup(l.Ledger.Model, l.Prices)
	if !ok {
		return true // a reply of a model without a price would pause the loop
	}
	worst := p.Cost(spend.Tokens{Input: lim.Context, Output: lim.Output})
	if p.CacheWrite > p.Input {
		worst = p.Cost(spend.Tokens{CacheWrite: lim.Context, Output: lim.Output})
	}
	return l.Spent.CostUSD+worst >= l.MaxCost
}

// catchUp reads the transcript again, for at most env.CatchUp after now, until it shows the
// agent's last message (only when that could change the decision: see waitCouldChange). The file
// may not exist yet either: in stream-json sessions Claude Code creates it after the first
// Stop hook has started; with --no-session-persistence it never comes. It returns whether the
// file is still missing.
func (o *observed) catchUp(env Env, facts Facts, path string, opt transcript.Options, now time.Time, res *transcript.Result, missing bool) bool {
	waited := false
	deadline := now.Add(env.CatchUp)
	for !res.SawLast {
		if !env.Now().Before(deadline) {
			if missing {
				o.note = inject.NoteNoTranscript(env.CatchUp)
			} else {
				o.note = inject.NoteTranscriptBehind(env.CatchUp)
			}
			break
		}
		waited = true
		env.Sleep(10 * time.Millisecond)
		opt.UsageSeen, opt.InLine, opt.SkipToUser = o.pos.UsageID, o.pos.InLine, res.Skipping
		if o.pos.Model != "" {
			opt.Model = o.pos.Model
		}
		more, err := facts.Transcript.Read.Scan(path, res.Offset, opt)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			break
		}
		missing = false
		res.Merge(more)
		o.take(res, facts, missing)
	}
	if waited && res.SawLast {
		o.note = inject.NoteWaited(env.Now().Sub(now).Round(time.Millisecond))
	}
	return missing
}
