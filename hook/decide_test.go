package hook

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func loop(f func(*state.Loop)) state.Loop {
	l := state.Loop{Config: state.DefaultConfig(), Status: state.Active, Iteration: 1, LoopID: "l", SessionID: "s"}
	l.MaxIterations = 5
	if f != nil {
		f(&l)
	}
	return l
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name       string
		l          state.Loop
		o          Observation
		want       Verdict
		status     state.Status
		iteration  int
		toolCalls  int
		blocksSeen int
	}{
		{"no promise blocks", loop(nil), Observation{}, Continue, state.Active, 2, 0, 1},
		{"no model reply ends the loop", loop(nil), Observation{NoReply: true}, NoProgress, state.NoProgress, 1, 0, 0},
		{"no model reply at the limit ends it there", loop(func(l *state.Loop) { l.Iteration = 5 }), Observation{NoReply: true}, MaxIterations, state.MaxIterationsReached, 5, 0, 0},
		{"promise without work is rejected", loop(nil), Observation{Found: true}, ContinueNoWork, state.Active, 2, 0, 1},
		{"promise with work from the transcript", loop(nil), Observation{Found: true, ToolIDs: []string{"a"}}, Accept, state.PromiseAccepted, 1, 1, 0},
		{"promise with counted work", loop(func(l *state.Loop) { l.ToolCalls = 3 }), Observation{Found: true}, Accept, state.PromiseAccepted, 1, 3, 0},
		{"duplicate tool ids count once", loop(func(l *state.Loop) { l.MinToolCalls = 2; l.ToolIDs = []string{"a"}; l.ToolCalls = 1 }),
			Observation{Found: true, ToolIDs: []string{"a", "a"}}, ContinueNoWork, state.Active, 2, 1, 1},
		{"warn accepts", loop(func(l *state.Loop) { l.OnPromiseNoWork = state.NoWorkWarn }), Observation{Found: true}, Accept, state.PromiseAccepted, 1, 0, 0},
		{"accept accepts", loop(func(l *state.Loop) { l.OnPromiseNoWork = state.NoWorkAccept }), Observation{Found: true}, Accept, state.PromiseAccepted, 1, 0, 0},
		{"min 0", loop(func(l *state.Loop) { l.MinToolCalls = 0 }), Observation{Found: true}, Accept, state.PromiseAccepted, 1, 0, 0},
		{"last iteration without promise ends", loop(func(l *state.Loop) { l.Iteration = 5 }), Observation{}, MaxIterations, state.MaxIterationsReached, 5, 0, 0},
		{"last iteration with promise is accepted", loop(func(l *state.Loop) { l.Iteration = 5; l.ToolCalls = 1 }), Observation{Found: true}, Accept, state.PromiseAccepted, 5, 1, 0},
		{"last iteration, promise without work", loop(func(l *state.Loop) { l.Iteration = 5 }), Observation{Found: true}, MaxIterations, state.MaxIterationsReached, 5, 0, 0},
		{"max 1", loop(func(l *state.Loop) { l.MaxIterations = 1 }), Observation{}, MaxIterations, state.MaxIterationsReached, 1, 0, 0},
		{"below the host cap", loop(func(l *state.Loop) { l.BlocksSinceTool = 7 }), Observation{BlockCap: 8}, Continue, state.Active, 2, 0, 8},
		{"at the host cap", loop(func(l *state.Loop) { l.BlocksSinceTool = 8 }), Observation{BlockCap: 8}, CutByHost, state.CutByHost, 1, 0, 8},
		{"a tool call resets the count", loop(func(l *state.Loop) { l.BlocksSinceTool = 8 }), Observation{BlockCap: 8, ToolIDs: []string{"x"}}, Continue, state.Active, 2, 1, 1},
		{"no cap", loop(func(l *state.Loop) { l.BlocksSinceTool = 500 }), Observation{BlockCap: 0}, Continue, state.Active, 2, 0, 501},
		{"the host's own count reaches its cap", loop(func(l *state.Loop) { l.BlocksInTurn = 2 }), Observation{BlockCap: 5, Words: inject.Words{CapCountsTools: true}, HostBlocks: 5},
			CutByHost, state.CutByHost, 1, 0, 0},
		{"the host's count below its cap", loop(func(l *state.Loop) { l.BlocksInTurn = 2 }), Observation{BlockCap: 5, Words: inject.Words{CapCountsTools: true}, HostBlocks: 4},
			Continue, state.Active, 2, 0, 1},
		{"the loop's count reaches the cap first", loop(func(l *state.Loop) { l.BlocksInTurn = 5 }), Observation{BlockCap: 5, Words: inject.Words{CapCountsTools: true}, HostBlocks: 1},
			CutByHost, state.CutByHost, 1, 0, 0},
		{"the host's count without a cap", loop(nil), Observation{HostBlocks: 40}, Continue, state.Active, 2, 0, 1},
		{"output not read to its end: a promise blocks", loop(func(l *state.Loop) { l.ToolCalls = 1 }), Observation{Found: true, Unread: "too big"},
			Continue, state.Active, 2, 1, 1},
		{"output not read to its end: no model reply blocks", loop(nil), Observation{NoReply: true, Unread: "too big"}, Continue, state.Active, 2, 0, 1},
		{"output not read to its end: the budget does not end it", loop(func(l *state.Loop) { l.MaxTokens = 10; l.Spent.Input = 11 }), Observation{Unread: "too big"},
			Continue, state.Active, 2, 0, 1},
		{"output not read to its end at the limit ends it there", loop(func(l *state.Loop) { l.Iteration = 5; l.ToolCalls = 1 }), Observation{Found: true, Unread: "too big"},
			MaxIterations, state.MaxIterationsReached, 5, 1, 0},
		{"output not read to its end at the host cap", loop(func(l *state.Loop) { l.BlocksSinceTool = 8 }), Observation{BlockCap: 8, Unread: "too big"}, CutByHost, state.CutByHost, 1, 0, 8},
	}
	for _, tt := range tests {
		tt.o.Now = t0
		before := tt.l.ToolIDs
		got, l := Decide(tt.l, tt.o)
		if got != tt.want || l.Status != tt.status || l.Iteration != tt.iteration || l.ToolCalls != tt.toolCalls || l.BlocksSinceTool != tt.blocksSeen {
			t.Errorf("%s: verdict %v status %s iteration %d tools %d blocks %d; want %v %s %d %d %d", tt.name,
				got, l.Status, l.Iteration, l.ToolCalls, l.BlocksSinceTool, tt.want, tt.status, tt.iteration, tt.toolCalls, tt.blocksSeen)
		}
		if blocks(got) != (l.Status == state.Active) {
			t.Errorf("%s: blocks = %v with status %s", tt.name, blocks(got), l.Status)
		}
		if blocks(got) && !l.WindowStart.Equal(t0) {
			t.Errorf("%s: a block must start the next window at the decision", tt.name)
		}
		if !blocks(got) && (l.EndedAt == nil || l.EndReason == "") {
			t.Errorf("%s: a final verdict must record when and why", tt.name)
		}
		if len(before) > 0 && &before[0] == &l.ToolIDs[0] {
			t.Errorf("%s: Decide shares the input's tool ids", tt.name)
		}
	}
}

func TestDecideWarnRecordsWarning(t *testing.T) {
	_, l := Decide(loop(func(l *state.Loop) { l.OnPromiseNoWork = state.NoWorkWarn }), Observation{Found: true, Now: t0})
	if len(l.Warnings) != 1 {
		t.Fatalf("warnings = %q", l.Warnings)
	}
	_, l = Decide(loop(func(l *state.Loop) { l.ToolCalls = 1; l.OnPromiseNoWork = state.NoWorkWarn }), Observation{Found: true, Now: t0})
	if len(l.Warnings) != 0 {
		t.Fatalf("warnings with enough work = %q", l.Warnings)
	}
}

func TestDecideChecks(t *testing.T) {
	withChecks := func(l *state.Loop) { l.Checks = []string{"a", "b"}; l.ToolCalls = 1 }
	pass := []check.Result{{Index: 1, Total: 2}, {Index: 2, Total: 2}}
	fail := []check.Result{{Index: 1, Total: 2}, {Index: 2, Total: 2, ExitCode: 1}}
	tests := []struct {
		name   string
		l      state.Loop
		o      Observation
		want   Verdict
		status state.Status
	}{
		{"promise: checks needed", loop(withChecks), Observation{Found: true}, NeedChecks, state.Active},
		{"no promise: no checks", loop(withChecks), Observation{}, Continue, state.Active},
		{"checks pass", loop(withChecks), Observation{Found: true, Checks: pass}, Accept, state.PromiseAccepted},
		{"a check fails", loop(withChecks), Observation{Found: true, Checks: fail}, ContinueCheckFailed, state.Active},
		{"only some ran", loop(withChecks), Observation{Found: true, Checks: pass[:1]}, ContinueCheckFailed, state.Active},
		{"fails at the last iteration", loop(func(l *state.Loop) { withChecks(l); l.Iteration = 5 }), Observation{Found: true, Checks: fail}, MaxIterations, state.MaxIterationsReached},
		{"time is up", loop(func(l *state.Loop) { l.MaxTime = state.Duration(time.Minute); l.StartedAt = t0.Add(-time.Minute) }), Observation{}, TimeBudget, state.TimeBudgetExhausted},
		{"time is not up", loop(func(l *state.Loop) { l.MaxTime = state.Duration(time.Minute); l.StartedAt = t0.Add(-59 * time.Second) }), Observation{}, Continue, state.Active},
		{"promise when time is up", loop(func(l *state.Loop) {
			l.ToolCalls = 1
			l.MaxTime = state.Duration(time.Minute)
			l.StartedAt = t0.Add(-time.Hour)
		}), Observation{Found: true}, Accept, state.PromiseAccepted},
	}
	for _, tt := range tests {
		tt.o.Now = t0
		got, l := Decide(tt.l, tt.o)
		if got != tt.want || l.Status != tt.status {
			t.Errorf("%s: %v %s, want %v %s", tt.name, got, l.Status, tt.want, tt.status)
		}
		if got == NeedChecks && (l.Iteration != tt.l.Iteration || l.LastAction != tt.l.LastAction) {
			t.Errorf("%s: NeedChecks changed the loop", tt.name)
		}
	}
}

// blocks reports whether a verdict blocks the stop.
func blocks(v Verdict) bool {
	return v == Continue || v == ContinueNoWork || v == ContinueCheckFailed || v == NeedChecks
}
