package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// Verdict is the outcome of a stop decision.
type Verdict int

// Verdicts. The Continue ones block the stop; NeedChecks is decided again once the checks
// have run; the others end the loop.
const (
	// Continue blocks: the promise was not in the iteration's output.
	Continue Verdict = iota
	// ContinueNoWork blocks: the promise came before the minimum number of tool calls.
	ContinueNoWork
	// Accept ends the loop on the promise.
	Accept
	// MaxIterations ends the loop at its iteration limit.
	MaxIterations
	// CutByHost ends the loop because the host would override one more block.
	CutByHost
	// NeedChecks: the promise would be accepted, once the loop's checks pass.
	NeedChecks
	// ContinueCheckFailed blocks: the promise came but a check failed.
	ContinueCheckFailed
	// TimeBudget ends the loop when its --max-time has run out.
	TimeBudget
	// NoProgress ends the loop when an iteration had no model reply at all.
	NoProgress
	// Budget ends the loop when its --max-tokens or --max-cost is reached.
	Budget
	// ContinueEarly blocks: the promise came, with the work it needs, before the loop's
	// --min-iterations.
	ContinueEarly
	// Stalled ends the loop NO_PROGRESS: --max-stalls iterations in a row without progress.
	Stalled
	// PausedForPrice lets the stop through without ending the loop: a model used has no
	// known price, so its --max-cost cannot be kept until the user gives one (the next
	// prompt of theirs reads it from the settings); the iteration is not used up.
	PausedForPrice
)

// Blocks reports whether the verdict blocks the stop: the loop goes on.
func (v Verdict) Blocks() bool {
	return v == Continue || v == ContinueNoWork || v == ContinueCheckFailed || v == ContinueEarly
}

// Observation is what a stop hook saw of the iteration that just ended.
type Observation struct {
	Now time.Time
	// Found: the exact marker is in the agent's output of this iteration.
	Found bool
	// Other, when HasOther, is a different token the agent put in <promise> tags.
	Other    string
	HasOther bool
	// Logged are the tool calls PostToolUse and PreToolUse hooks logged since the last
	// decision (denied ones never count).
	Logged []state.ToolUse
	// ToolIDs are tool calls read from the transcript; ids already counted are ignored.
	ToolIDs []string
	// BlockCap is the host's limit on consecutive blocks (0: none); whether tool calls
	// between the blocks reset the host's count is Words.Cap.CountsTools.
	BlockCap int
	// HostBlocks is the host's own count of the blocks it has honoured in a row, when its
	// stop event reports one (Cursor's loop_count; 0 otherwise): the cap is reached when
	// either count reaches it, so a count the host keeps differently from the loop (not
	// reset by a new prompt) cannot let a block through that the host would ignore.
	HostBlocks int
	// NoReply: the transcript shows no agent message since the last decision, on a host
	// whose stop can come without a model call (Transcript.StopsWithoutReply).
	NoReply bool
	// Words are the host's facts for the texts of the decision.
	Words inject.Words
	// Checks are the results of the loop's checks, run because the promise came (nil:
	// not run). The last one failed unless all passed.
	Checks []check.Result
	// Usage is what the model used since the last decision, as the host recorded it.
	Usage []spend.Record
	// Tree is the git tree of the loop's work tree as it is now ("" when it was not
	// recorded: not a git work tree, not needed, or git failed), for the stall breaker.
	Tree string
	// Wrote: a call of a tool that writes files completed since the last decision (the
	// stall breaker's progress, without git).
	Wrote bool
	// Deferred: the work tree was not read although tool calls came, because this stop
	// cannot end a stall streak (see recordWork): the iteration counts as no change for
	// now, and the streak's last stop compares the files with those at its start.
	Deferred bool
	// Unread, when set, says why the iteration's output could not be read to its end (the
	// transcript grew by more than one stop reads): the stop is blocked, whatever was
	// found, unless the loop ends at its limits or the host's cap.
	Unread string
}

// checksPassed reports whether every check ran and passed.
func (o Observation) checksPassed(l *state.Loop) bool {
	if len(o.Checks) != len(l.Checks) {
		return false
	}
	for _, r := range o.Checks {
		if !r.Passed() {
			return false
		}
	}
	return true
}

// Decide is the stop decision: a pure function of the loop (which must be active) and what
// was observed. It returns the verdict and the loop as it must be saved.
//
// A promise made with enough work (or accepted by the no-work policy) ends the loop, even in
// its last iteration, once the loop's checks (if any) have passed: without their results the
// verdict is NeedChecks and nothing but the tool count changes. Otherwise the loop ends at its
// iteration limit, when its token or cost budget is reached, when its time budget has run out, when the iteration had no model reply at
// all, or where the host would override one more block; else the stop is blocked and the next
// iteration begins. Output that could not be read to its end (Observation.Unread) ends the
// loop neither by its promise nor by its budget: only the limits and the host's cap do.
func Decide(l state.Loop, o Observation) (Verdict, state.Loop) {
	l.ToolIDs = slices.Clone(l.ToolIDs)
	before := l.ToolCalls
	l.CountToolCalls(o.Logged)
	for _, id := range o.ToolIDs {
		l.AddToolCall(id)
	}
	l.UpdatedAt = o.Now
	l.LastSeenAt = o.Now
	var counted []spend.Record
	var uncounted []string
	l.Ledger, counted, uncounted = l.Ledger.Screen(o.Usage, l.StartedAt, o.Now)
	l.Spent = l.Spent.Add(counted, l.Prices)
	if len(uncounted) > 0 {
		l.Pending = slices.Clone(l.Pending)
		for _, why := range uncounted {
			l.Pending = append(l.Pending, state.Pending{At: o.Now, What: state.ActUncounted, Why: why})
		}
	}
	observeWork(&l, o, l.ToolCalls-before)
	work := l.ToolCalls >= l.MinToolCalls
	early := l.Iteration < l.MinIterations
	unread := o.Unread != ""
	promised := o.Found && !unread && !early && (work || l.OnPromiseNoWork != state.NoWorkReject)
	if promised && len(l.Checks) > 0 && o.Checks == nil {
		return NeedChecks, l
	}
	if promised && (len(l.Checks) == 0 || o.checksPassed(&l)) {
		noWork := ""
		if !work {
			noWork = l.OnPromiseNoWork
		}
		reason := inject.EndAccepted(len(l.Checks), noWork)
		if !work {
			l.Warnings = append(slices.Clone(l.Warnings), reason)
		}
		l.Finish(state.PromiseAccepted, state.ByPromise, reason, o.Now)
		l.Told = true
		l.LastAction = state.ActAccepted
		return Accept, l
	}
	if why := overBudget(&l); why != "" && !unread {
		l.Finish(state.BudgetExhausted, state.ByLimit, why, o.Now)
		l.LastAction = state.ActBudget
		l.Told = true
		return Budget, l
	}
	if l.MaxCost > 0 && !l.Spent.CostKnown() && !unread {
		l.BlocksSinceTool, l.BlocksInTurn = 0, 0 // the stop ends the host's turn
		l.LastAction = state.ActPaused
		return PausedForPrice, l
	}
	if l.Iteration >= l.MaxIterations {
		l.Finish(state.MaxIterationsReached, state.ByLimit, inject.EndMaxIterations, o.Now)
		l.LastAction = state.ActMax
		l.Told = true
		return MaxIterations, l
	}
	if l.MaxTime > 0 && o.Now.Sub(l.StartedAt) >= time.Duration(l.MaxTime) {
		l.Finish(state.TimeBudgetExhausted, state.ByLimit, inject.EndTimeBudget(time.Duration(l.MaxTime)), o.Now)
		l.LastAction = state.ActTimeBudget
		l.Told = true
		return TimeBudget, l
	}
	if o.NoReply && !unread {
		l.Finish(state.NoProgress, state.ByHost, inject.NoProgressReason(o.Words), o.Now)
		l.LastAction = state.ActNoProgress
		l.Told = true
		return NoProgress, l
	}
	if stalled(&l) {
		l.Finish(state.NoProgress, state.ByLimit, inject.EndStalled(&l), o.Now)
		l.LastAction = state.ActNoProgress
		l.Told = true
		return Stalled, l
	}
	blocks := l.BlocksSinceTool
	if o.Words.Cap.CountsTools {
		blocks = l.BlocksInTurn
	}
	blocks = max(blocks, o.HostBlocks)
	if o.BlockCap > 0 && blocks >= o.BlockCap {
		l.Finish(state.CutByHost, state.ByHost, inject.CutReason(o.Words, o.BlockCap), o.Now)
		l.LastAction = state.ActCutByHost
		l.Told = true
		return CutByHost, l
	}
	v := Continue
	switch {
	case promised:
		v = ContinueCheckFailed
	case o.Found && !unread && (work || l.OnPromiseNoWork != state.NoWorkReject):
		v = ContinueEarly // all it lacks is the iteration
	case o.Found && !unread:
		v = ContinueNoWork
	}
	l.Iteration++
	l.BlocksSinceTool++
	l.BlocksInTurn++
	l.WindowStart = o.Now
	l.LastAction = state.ActBlocked
	return v, l
}

// overBudget says why the loop's token or cost budget ends it, or "" when it does not. A
// cost budget with a model whose price is not known pauses the loop before (its tokens are
// never taken as free, and a line naming a model the table lacks is one the agent can write).
func overBudget(l *state.Loop) string {
	s := l.Spent
	switch {
	case l.MaxTokens > 0 && s.Total() >= l.MaxTokens:
		return inject.EndTokens(l.MaxTokens, s)
	case l.MaxCost > 0 && s.CostKnown() && s.CostUSD >= l.MaxCost:
		return inject.EndCost(l.MaxCost, s)
	}
	return ""
}

// observeWork keeps what a stop saw of the work for the stall breaker: whether the
// iteration in progress has made progress (a tool that writes files completed, the work
// tree's files changed since they were last recorded, or a check gave a result unlike the
// last one), the tool calls it made and the identical check failures it met. newTools are
// the tool calls counted at this stop.
//
// A write tool's call is progress without git (the files were changed, so the tree last
// recorded is no base any more). Otherwise the work tree counts by its git tree, where one
// was recorded now and before: equal trees are no change, however many tool calls ran. A
// stop that did not read the tree because it cannot end a streak (o.Deferred) counts as no
// change for now: the streak's last stop compares the files with the streak's start, so a
// streak ends only if they are the same. Where there is none to compare (not a git work
// tree, git failed, the first record), an iteration with a tool call counts as progress: a
// stall is never guessed. An iteration without a tool call changes nothing.
func observeWork(l *state.Loop, o Observation, newTools int) {
	w := &l.Work
	if l.MaxStalls > 0 {
		w.Tools += newTools
		switch {
		case o.Wrote:
			w.Moved = true
			w.Tree = ""
		case o.Tree != "" && w.Tree != "":
			w.Moved = w.Moved || o.Tree != w.Tree
		case o.Deferred:
		default:
			w.Moved = w.Moved || newTools > 0
		}
		if o.Checks != nil {
			if sig := checksSig(o.Checks); sig != w.Checks {
				w.Moved, w.Checks = true, sig
			} else {
				w.Same++
			}
		}
	}
	if o.Tree != "" {
		w.Tree = o.Tree
	}
}

// stalled ends an iteration for the stall breaker, when the loop has one: it reports
// whether this iteration, without progress, makes the --max-stalls-th in a row.
func stalled(l *state.Loop) bool {
	if l.MaxStalls <= 0 {
		return false
	}
	w := &l.Work
	if w.Moved {
		w.Stalls, w.Tools, w.Same = 0, 0, 0
	} else {
		w.Stalls++
	}
	w.Moved = false
	return w.Stalls >= l.MaxStalls
}

// checksSig fingerprints check results by what they say of the work: which checks ran,
// how each ended and the end of its output (never how long it took).
func checksSig(rs []check.Result) string {
	h := sha256.New()
	for _, r := range rs {
		fmt.Fprintf(h, "%d\x00%s\x00%d\x00%t\x00%s\x00%s\x00", r.Index, r.Command, r.ExitCode, r.TimedOut, r.Failure, r.Tail)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
