package hook

import (
	"fmt"
	"slices"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// Verdict is the outcome of a stop decision.
type Verdict int

// Verdicts. Only Continue and ContinueNoWork block the stop.
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
)

// Blocks reports whether the verdict blocks the stop.
func (v Verdict) Blocks() bool { return v == Continue || v == ContinueNoWork }

// Observation is what a stop hook saw of the iteration that just ended.
type Observation struct {
	Now time.Time
	// Found: the exact marker is in the agent's output of this iteration.
	Found bool
	// Logged are the tool calls PostToolUse and PreToolUse hooks logged since the last
	// decision (denied ones never count).
	Logged []state.ToolUse
	// ToolIDs are tool calls read from the transcript; ids already counted are ignored.
	ToolIDs []string
	// BlockCap is the host's limit on consecutive blocks without a tool call (0: none).
	BlockCap int
}

// Decide is the stop decision: a pure function of the loop (which must be active) and what
// was observed. It returns the verdict and the loop as it must be saved.
//
// A promise made with enough work (or accepted by the no-work policy) ends the loop, even in
// its last iteration. Otherwise the loop ends at its iteration limit, or where the host would
// override one more block; else the stop is blocked and the next iteration begins.
func Decide(l state.Loop, o Observation) (Verdict, state.Loop) {
	l.ToolIDs = slices.Clone(l.ToolIDs)
	l.CountToolCalls(o.Logged)
	for _, id := range o.ToolIDs {
		l.AddToolCall(id)
	}
	l.UpdatedAt = o.Now
	l.LastSeenAt = o.Now
	work := l.ToolCalls >= l.MinToolCalls
	if o.Found && (work || l.OnPromiseNoWork != state.NoWorkReject) {
		reason := "promise found"
		if !work {
			reason = "promise found without enough tool calls, accepted by --on-promise-no-work=" + l.OnPromiseNoWork
			l.Warnings = append(slices.Clone(l.Warnings), reason)
		}
		l.Finish(state.PromiseAccepted, reason, o.Now)
		l.LastAction = state.ActAccepted
		return Accept, l
	}
	if l.Iteration >= l.MaxIterations {
		l.Finish(state.MaxIterationsReached, "iteration limit reached without the promise", o.Now)
		l.LastAction = state.ActMax
		return MaxIterations, l
	}
	if o.BlockCap > 0 && l.BlocksSinceTool >= o.BlockCap {
		l.Finish(state.CutByHost, fmt.Sprintf("Claude Code ends a turn after %d stop blocks in a row without a tool call "+
			"(CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%d), so the loop could not go on", o.BlockCap, o.BlockCap), o.Now)
		l.LastAction = state.ActCutByHost
		return CutByHost, l
	}
	v := Continue
	if o.Found {
		v = ContinueNoWork
	}
	l.Iteration++
	l.BlocksSinceTool++
	l.WindowStart = o.Now
	l.LastAction = state.ActBlocked
	return v, l
}
