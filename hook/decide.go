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
	// Wait lets the stop through without ending the loop: the host runs work in the
	// background (or has a wake-up scheduled) and wakes the session when it ends; the
	// iteration is not used up and no stall is counted.
	Wait
	// ContinueBusy blocks: the promise came while the host still runs the agent's work in
	// the background, whose result is not in.
	ContinueBusy
	// ContinueOverdue blocks: the host's background work has run longer than --max-wait.
	ContinueOverdue
)

// Blocks reports whether the verdict blocks the stop: the loop goes on.
func (v Verdict) Blocks() bool {
	switch v {
	case Continue, ContinueNoWork, ContinueCheckFailed, ContinueEarly, ContinueBusy, ContinueOverdue:
		return true
	}
	return false
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
	// Record says which record a tool call must be in to count (see ToolRecord): for
	// RecordBoth, the tool log's and the transcript's (ToolIDs); for RecordShown, the
	// transcript's; for RecordNone, either.
	Record ToolRecord
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
	// Background is the work the host runs in the background for the session, or a
	// wake-up it has scheduled (Event.Background).
	Background []state.Task
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
// First the accounting (account: the tool calls, the model's usage, the stall breaker's
// progress, the host's background work); then a promise whose checks have not run yet
// waits for them (NeedChecks, and nothing but the accounting changes); then the first of
// the loop's endings that applies ends (or pauses, or waits) it, in the order of the table
// endings; else the stop is blocked and the next iteration begins (block).
func Decide(l state.Loop, o Observation) (Verdict, state.Loop) {
	c := account(&l, o)
	if c.promised && len(l.Checks) > 0 && o.Checks == nil {
		return NeedChecks, l
	}
	for _, end := range endings {
		if why, ok := end.when(&l, &o, c); ok {
			end.apply(&l, o.Now, why)
			return end.verdict, l
		}
	}
	return block(&l, o, c), l
}

// counted is what the accounting found that the decision turns on.
type counted struct {
	// work: the loop has made --min-tool-calls tool calls; early: its iteration is before
	// --min-iterations; unread: the iteration's output could not be read to its end.
	work, early, unread bool
	// promised: the marker came, with the work it needs (or the no-work policy accepts it),
	// read whole, from --min-iterations on, and no work of the agent's runs in the
	// background.
	promised bool
	// busy: the host runs work in the background (or has a wake-up scheduled); overdue
	// are the tasks of it that have run longer than --max-wait.
	busy    bool
	overdue []state.Task
}

// account counts what the iteration used into the loop: its tool calls (countCalls: by the
// host's own record where it keeps one; each id once), the model's usage (what the host recorded, priced),
// and what the stall breaker keeps of its progress.
func account(l *state.Loop, o Observation) counted {
	before, waiting := l.ToolCalls, l.Unlogged
	countCalls(l, o)
	l.UpdatedAt = o.Now
	l.LastSeenAt = o.Now
	var used []spend.Record
	var uncounted []string
	l.Ledger, used, uncounted = l.Ledger.Screen(o.Usage, l.StartedAt, o.Now)
	was := l.Spent.Unpriced
	l.Spent = l.Spent.Add(used, l.Prices)
	if l.MaxCost > 0 && l.Unpriced != state.UnpricedPause {
		// The user is told once of each model the budget counts at the highest prices.
		for _, m := range l.Spent.Unpriced {
			if !slices.Contains(was, m) {
				l.Pending = append(slices.Clone(l.Pending), state.Pending{At: o.Now, What: state.PendingUnpriced, Why: m})
			}
		}
	}
	if len(uncounted) > 0 {
		l.Pending = slices.Clone(l.Pending)
		for _, why := range uncounted {
			l.Pending = append(l.Pending, state.Pending{At: o.Now, What: state.ActUncounted, Why: why})
		}
	}
	calls := iterationCalls{counted: l.ToolCalls - before, shown: newlyWaiting(waiting, l.Unlogged)}
	calls.earlier = min(calls.counted, newlyWaiting(l.Unlogged, waiting))
	observeWork(l, o, calls)
	track(l, o.Background, o.Now)
	c := counted{work: l.ToolCalls >= l.MinToolCalls, early: l.Iteration < l.MinIterations, unread: o.Unread != ""}
	c.busy, c.overdue = len(l.Background) > 0, overdue(l, o.Now)
	// A demanding user takes no "done" while the agent's build still runs: its result is
	// not in (see block, ContinueBusy).
	c.promised = o.Found && !c.unread && !c.early && !c.busy && (c.work || l.OnPromiseNoWork != state.NoWorkReject)
	return c
}

// countCalls counts the tool calls o shows into l, each once by its id, from the records
// o.Record says a call must be in.
func countCalls(l *state.Loop, o Observation) {
	l.ToolIDs = slices.Clone(l.ToolIDs)
	switch o.Record {
	case RecordBoth:
		l.CountRecorded(o.Logged, o.ToolIDs)
	case RecordShown:
		l.CountShown(o.Logged, o.ToolIDs)
	default:
		l.CountToolCalls(o.Logged)
		for _, id := range o.ToolIDs {
			l.AddToolCall(id)
		}
	}
}

// track keeps, in the loop, the work the host reports in flight (busy), each task with when
// a stop first saw it: the time of the stop that saw it first of those in a row that did.
func track(l *state.Loop, busy []state.Task, now time.Time) {
	var tasks []state.Task
	for _, t := range busy {
		t.Since = now
		if i := slices.IndexFunc(l.Background, t.Same); i >= 0 {
			t.Since = l.Background[i].Since
		}
		tasks = append(tasks, t)
	}
	l.Background = tasks
}

// overdue are the loop's background tasks that have run longer than its --max-wait.
func overdue(l *state.Loop, now time.Time) []state.Task {
	if l.MaxWait <= 0 {
		return nil
	}
	var late []state.Task
	for _, t := range l.Background {
		if now.Sub(t.Since) >= time.Duration(l.MaxWait) {
			late = append(late, t)
		}
	}
	return late
}

// ending is one way a stop ends the loop (or lets it through with the loop going on:
// status ""). when says whether it applies, and why; it may update the loop (the stall
// breaker's count, the wait's start) as it looks.
type ending struct {
	verdict Verdict
	status  state.Status
	by      string
	action  string
	when    func(l *state.Loop, o *Observation, c counted) (why string, ok bool)
}

// endings are the ways a stop ends the loop, in the order they are tried: the promise
// first (even in the last iteration), then the budgets and the time, the wait with the
// host's background work (which uses no iteration, so the loop's last one waits too), the
// iteration limit, what the host did, the stall breaker, and the host's cap on blocks.
// Output that could not be read to its end (Observation.Unread) ends the loop neither by
// its promise nor by its budget, nor pauses it or waits: only the limits and the host's
// cap do.
var endings = [...]ending{
	{Accept, state.PromiseAccepted, state.ByPromise, state.ActAccepted, accepted},
	{Budget, state.BudgetExhausted, state.ByLimit, state.ActBudget, overBudget},
	{PausedForPrice, "", "", state.ActPaused, unpriced},
	{TimeBudget, state.TimeBudgetExhausted, state.ByLimit, state.ActTimeBudget, outOfTime},
	{Wait, "", "", state.ActWaiting, waiting},
	{MaxIterations, state.MaxIterationsReached, state.ByLimit, state.ActMax, lastIteration},
	{NoProgress, state.NoProgress, state.ByHost, state.ActNoProgress, noReply},
	{Stalled, state.NoProgress, state.ByLimit, state.ActNoProgress, stalledOut},
	{CutByHost, state.CutByHost, state.ByHost, state.ActCutByHost, atHostCap},
}

// apply ends the loop as e says (a pause or a wait only stops the host's count of blocks:
// the stop ends the host's turn).
func (e ending) apply(l *state.Loop, now time.Time, why string) {
	l.LastAction = e.action
	if e.status == "" {
		l.BlocksSinceTool, l.BlocksInTurn = 0, 0
		return
	}
	l.Finish(e.status, e.by, why, now)
	l.Told = true
}

// accepted: the promise, with its checks passed. Accepted without the work it needs (the
// no-work policy allows it), the loop keeps a warning saying so.
func accepted(l *state.Loop, o *Observation, c counted) (string, bool) {
	if !c.promised || len(l.Checks) > 0 && !o.checksPassed(l) {
		return "", false
	}
	noWork := ""
	if !c.work {
		noWork = l.OnPromiseNoWork
	}
	why := inject.EndAccepted(len(l.Checks), noWork)
	if !c.work {
		l.Warnings = append(slices.Clone(l.Warnings), why)
	}
	return why, true
}

// unpriced: a cost budget with a model whose price is not known pauses the loop for the
// user's price, where the user's own settings ask for it ("unpriced": "pause"). Otherwise
// the model's tokens count at the highest prices known (overBudget): a line naming an
// unknown model is one the agent can write, and must not let its stops through.
func unpriced(l *state.Loop, _ *Observation, c counted) (string, bool) {
	return "", l.MaxCost > 0 && !l.Spent.CostKnown() && l.Unpriced == state.UnpricedPause && !c.unread
}

// waiting: the host runs work in the background (or has a wake-up scheduled), none of it
// longer than --max-wait, and the agent ended its turn without the promise: it waits for
// the work, which the host wakes the session for. The stop is let through, its iteration
// goes on at the wake-up, and the stall breaker counts nothing. Output that could not be
// read to its end (or a stop before that went through undecided) is blocked instead.
func waiting(l *state.Loop, o *Observation, c counted) (string, bool) {
	if !c.busy || len(c.overdue) > 0 || o.Found || c.unread {
		return "", false
	}
	if l.LastAction != state.ActWaiting {
		l.WaitSince = o.Now
	}
	return "", true
}

func lastIteration(l *state.Loop, _ *Observation, _ counted) (string, bool) {
	return inject.EndMaxIterations, l.Iteration >= l.MaxIterations
}

func outOfTime(l *state.Loop, o *Observation, _ counted) (string, bool) {
	return inject.EndTimeBudget(time.Duration(l.MaxTime)), l.MaxTime > 0 && o.Now.Sub(l.StartedAt) >= time.Duration(l.MaxTime)
}

// noReply: the iteration had no model reply at all (a host whose stop can come without one).
func noReply(_ *state.Loop, o *Observation, c counted) (string, bool) {
	return inject.NoProgressReason(o.Words), o.NoReply && !c.unread
}

// stalledOut: the --max-stalls-th iteration in a row without progress (stalled counts it).
func stalledOut(l *state.Loop, _ *Observation, _ counted) (string, bool) {
	if !stalled(l) {
		return "", false
	}
	return inject.EndStalled(l), true
}

// atHostCap: the host would override one more block. Its count is of blocks since a tool
// call, or in the turn where tool calls do not reset it, or the host's own (HostBlocks),
// whichever is higher.
func atHostCap(l *state.Loop, o *Observation, _ counted) (string, bool) {
	blocks := l.BlocksSinceTool
	if o.Words.Cap.CountsTools {
		blocks = l.BlocksInTurn
	}
	blocks = max(blocks, o.HostBlocks)
	return inject.CutReason(o.Words, o.BlockCap), o.BlockCap > 0 && blocks >= o.BlockCap
}

// block blocks the stop: the next iteration begins. The verdict says what the promise
// lacked, if one came: a passing check, the iteration (--min-iterations), the work, or
// the end of the agent's background work; or that background work has run past
// --max-wait.
func block(l *state.Loop, o Observation, c counted) Verdict {
	v := Continue
	switch {
	case len(c.overdue) > 0:
		v = ContinueOverdue
	case o.Found && c.busy && !c.unread:
		v = ContinueBusy
	case c.promised:
		v = ContinueCheckFailed
	case o.Found && !c.unread && (c.work || l.OnPromiseNoWork != state.NoWorkReject):
		v = ContinueEarly // all it lacks is the iteration
	case o.Found && !c.unread:
		v = ContinueNoWork
	}
	l.Iteration++
	l.BlocksSinceTool++
	l.BlocksInTurn++
	l.WindowStart = o.Now
	l.LastAction = state.ActBlocked
	return v
}

// overBudget: the loop's token or cost budget is reached. A model whose price is not known
// counts at the highest prices known (spend.Spent.Bound: never as free), unless the user's
// settings pause the loop for its price instead (unpriced).
func overBudget(l *state.Loop, _ *Observation, c counted) (string, bool) {
	s := l.Spent
	switch {
	case c.unread:
	case l.MaxTokens > 0 && s.Total() >= l.MaxTokens:
		return inject.EndTokens(l.MaxTokens, s), true
	case l.MaxCost > 0 && s.CostKnown() && s.CostUSD >= l.MaxCost:
		return inject.EndCost(l.MaxCost, s), true
	case l.MaxCost > 0 && !s.CostKnown() && l.Unpriced != state.UnpricedPause && s.Bound(l.Prices) >= l.MaxCost:
		return inject.EndCostBound(l.MaxCost, s, s.Bound(l.Prices)), true
	}
	return "", false
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
// stall is never guessed. An iteration without a tool call changes nothing. A call the
// host's transcript shows while its tool log does not yet (shown) made the stop read the
// tree (treeNeeded), and the first record so read is progress; the streak counts it among
// its calls when it is shown, not again when both records hold it (earlier), and without a
// tree it is no progress until then (a call the host refused is in the transcript alone).
func observeWork(l *state.Loop, o Observation, c iterationCalls) {
	newTools := c.counted
	w := &l.Work
	if l.MaxStalls > 0 {
		w.Tools += c.counted - c.earlier + c.shown
		switch {
		case o.Wrote:
			w.Moved = true
			w.Tree = ""
		case o.Tree != "" && w.Tree != "":
			w.Moved = w.Moved || o.Tree != w.Tree
		case o.Deferred:
		case o.Tree != "":
			// The first record, read for this iteration's calls: nothing to compare with.
			w.Moved = w.Moved || newTools > 0 || c.shown > 0
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

// iterationCalls is what a stop's accounting found of tool calls: the ones counted now
// (both of the host's records hold them), the ones its transcript shows for the first time
// while its tool log does not yet (shown), and how many of the counted ones an earlier stop
// saw that way (earlier).
type iterationCalls struct{ counted, shown, earlier int }

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
