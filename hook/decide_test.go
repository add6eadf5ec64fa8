package hook

import (
	"fmt"
	"strings"
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
		{"the host's own count reaches its cap", loop(func(l *state.Loop) { l.BlocksInTurn = 2 }), Observation{BlockCap: 5, Words: inject.Words{Cap: inject.Cap{CountsTools: true}}, HostBlocks: 5},
			CutByHost, state.CutByHost, 1, 0, 0},
		{"the host's count below its cap", loop(func(l *state.Loop) { l.BlocksInTurn = 2 }), Observation{BlockCap: 5, Words: inject.Words{Cap: inject.Cap{CountsTools: true}}, HostBlocks: 4},
			Continue, state.Active, 2, 0, 1},
		{"the loop's count reaches the cap first", loop(func(l *state.Loop) { l.BlocksInTurn = 5 }), Observation{BlockCap: 5, Words: inject.Words{Cap: inject.Cap{CountsTools: true}}, HostBlocks: 1},
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
func blocks(v Verdict) bool { return v.Blocks() || v == NeedChecks }

// A promise before --min-iterations is not accepted, whatever the work, and no check runs
// for it: the agent is told so and goes on; from that iteration on it is.
func TestDecideMinIterations(t *testing.T) {
	min3 := func(it int) func(*state.Loop) {
		return func(l *state.Loop) { l.MinIterations, l.Iteration, l.ToolCalls = 3, it, 1 }
	}
	tests := []struct {
		name      string
		l         state.Loop
		o         Observation
		want      Verdict
		iteration int
	}{
		{"before: blocked", loop(min3(1)), Observation{Found: true}, ContinueEarly, 2},
		{"before, with checks: none run", loop(func(l *state.Loop) { min3(2)(l); l.Checks = []string{"true"} }), Observation{Found: true}, ContinueEarly, 3},
		{"before, without work: the work first", loop(func(l *state.Loop) { min3(1)(l); l.ToolCalls = 0 }), Observation{Found: true}, ContinueNoWork, 2},
		{"at it: accepted", loop(min3(3)), Observation{Found: true}, Accept, 3},
		{"after it: accepted", loop(min3(4)), Observation{Found: true}, Accept, 4},
		{"no promise before it: as always", loop(min3(1)), Observation{}, Continue, 2},
		{"min 1 is none", loop(func(l *state.Loop) { l.MinIterations, l.ToolCalls = 1, 1 }), Observation{Found: true}, Accept, 1},
	}
	for _, tt := range tests {
		tt.o.Now = t0
		got, l := Decide(tt.l, tt.o)
		if got != tt.want || l.Iteration != tt.iteration {
			t.Errorf("%s: verdict %v at iteration %d; want %v at %d", tt.name, got, l.Iteration, tt.want, tt.iteration)
		}
		if got == ContinueEarly {
			if r := eventReason(got, &l, nil); !strings.Contains(r, "before iteration 3 (--min-iterations)") {
				t.Errorf("%s: reason %q", tt.name, r)
			}
			if c := inject.Continuation(&l, inject.Why{Kind: inject.BlockEarly}, inject.Words{}); !strings.Contains(c, "accepts it only from iteration 3 on (--min-iterations)") {
				t.Errorf("%s: the agent is not told why: %q", tt.name, c)
			}
		}
	}
}

// The stall breaker: what counts as progress, stop by stop. Each case is a run of stops of
// one loop (--max-stalls 3); each stop is what it saw (the work tree's tree, "" when not
// recorded; tool calls; check results) and the verdict it must give.
func TestDecideStalls(t *testing.T) {
	type stop struct {
		tree   string
		tools  int
		checks []check.Result
		want   Verdict
	}
	failA := []check.Result{{Index: 1, Total: 1, Command: "make test", ExitCode: 1, Tail: "FAIL a", Duration: time.Second}}
	failA2 := []check.Result{{Index: 1, Total: 1, Command: "make test", ExitCode: 1, Tail: "FAIL a", Duration: 3 * time.Second}}
	failB := []check.Result{{Index: 1, Total: 1, Command: "make test", ExitCode: 1, Tail: "FAIL b"}}
	tests := []struct {
		name  string
		repo  string // the loop's git work tree ("": none)
		tree  string // its tree at arming
		stops []stop
		saw   string // in the end reason
	}{
		{"talk only: three stalls end it", "/r", "t0", []stop{{"", 0, nil, Continue}, {"", 0, nil, Continue}, {"", 0, nil, Stalled}},
			"3 iterations in a row without progress (--max-stalls 3): no tool call"},
		{"tool calls that change no file", "/r", "t0", []stop{{"t0", 2, nil, Continue}, {"t0", 1, nil, Continue}, {"t0", 4, nil, Stalled}},
			"7 tool calls, none of which changed a file of /r"},
		{"a changed file resets the count", "/r", "t0", []stop{{"t0", 1, nil, Continue}, {"t0", 1, nil, Continue}, {"t1", 1, nil, Continue},
			{"t1", 1, nil, Continue}, {"", 0, nil, Continue}, {"", 0, nil, Stalled}}, ""},
		{"a file changed back is a change", "/r", "t0", []stop{{"t1", 1, nil, Continue}, {"t0", 1, nil, Continue}, {"t1", 1, nil, Continue}, {"", 0, nil, Continue}}, ""},
		{"the same check failure is no progress", "/r", "t0", []stop{{"", 0, failA, ContinueCheckFailed}, {"", 0, failA2, ContinueCheckFailed},
			{"", 0, failA, ContinueCheckFailed}, {"", 0, failA, Stalled}}, "no tool call; the same check result 3 times"},
		{"a new check result is progress", "/r", "t0", []stop{{"", 0, failA, ContinueCheckFailed}, {"", 0, failA, ContinueCheckFailed},
			{"", 0, failB, ContinueCheckFailed}, {"", 0, failB, ContinueCheckFailed}, {"", 0, failB, ContinueCheckFailed}, {"", 0, failB, Stalled}}, ""},
		{"outside git, a tool call is progress", "", "", []stop{{"", 1, nil, Continue}, {"", 1, nil, Continue}, {"", 1, nil, Continue}, {"", 1, nil, Continue}}, ""},
		{"outside git, talk is not", "", "", []stop{{"", 1, nil, Continue}, {"", 0, nil, Continue}, {"", 0, nil, Continue}, {"", 0, nil, Stalled}}, "no tool call"},
		{"not recorded (git failed): tool calls count", "/r", "t0", []stop{{"", 1, nil, Continue}, {"", 1, nil, Continue}, {"", 1, nil, Continue}, {"", 1, nil, Continue}}, ""},
	}
	for _, tt := range tests {
		l := loop(func(l *state.Loop) {
			l.MaxIterations, l.MaxStalls, l.MinToolCalls, l.Checks = 20, 3, 0, []string{"make test"}
			l.Work.Repo, l.Work.Tree = tt.repo, tt.tree
		})
		n := 0
		for i, s := range tt.stops {
			o := Observation{Now: t0, Tree: s.tree, Checks: s.checks, Found: s.checks != nil}
			for range s.tools {
				n++
				o.ToolIDs = append(o.ToolIDs, fmt.Sprintf("t%d", n))
			}
			var got Verdict
			got, l = Decide(l, o)
			if got != s.want {
				t.Errorf("%s: stop %d: %v, want %v (stalls %d)", tt.name, i+1, got, s.want, l.Work.Stalls)
				break
			}
		}
		if tt.saw != "" && (l.Status != state.NoProgress || !strings.Contains(l.EndReason, tt.saw)) {
			t.Errorf("%s: %s %q; want NO_PROGRESS saying %q", tt.name, l.Status, l.EndReason, tt.saw)
		}
	}
	// Off: never.
	l := loop(func(l *state.Loop) { l.MaxIterations, l.MaxStalls = 20, 0 })
	for i := 0; i < 15; i++ {
		var got Verdict
		if got, l = Decide(l, Observation{Now: t0}); got != Continue {
			t.Fatalf("--max-stalls 0: stop %d: %v", i+1, got)
		}
	}
}

// A stop let through for the user's message ends no iteration: the stall breaker's count
// is as before it, and what the iteration did so far is kept for its end.
func TestYieldKeepsStalls(t *testing.T) {
	before := loop(func(l *state.Loop) {
		l.MaxIterations, l.MaxStalls, l.Work.Stalls, l.Work.Repo, l.Work.Tree = 20, 3, 2, "/r", "t0"
	})
	_, decided := Decide(before, Observation{Now: t0, Tree: "t1", ToolIDs: []string{"a"}})
	if y := yielded(before, decided); y.Work.Stalls != 2 || !y.Work.Moved || y.Iteration != 1 {
		t.Errorf("after a change: stalls %d moved %v iteration %d; want 2 true 1", y.Work.Stalls, y.Work.Moved, y.Iteration)
	}
	_, decided = Decide(before, Observation{Now: t0})
	if y := yielded(before, decided); y.Work.Stalls != 2 || y.Work.Moved {
		t.Errorf("without one: stalls %d moved %v; want 2 false", y.Work.Stalls, y.Work.Moved)
	}
}

// A turn the provider refused pauses the loop, using up no iteration; until when is read
// from the provider's message where it says it, never guessed.
func TestPause(t *testing.T) {
	l := loop(func(l *state.Loop) { l.Iteration, l.BlocksSinceTool, l.BlocksInTurn = 3, 2, 4 })
	p := Pause(l, Failure{Error: "rate_limit", Message: "API Error: Request rejected (429) · try again in 30 seconds"}, t0)
	if !p.Paused() || p.Shown() != state.Paused || p.Iteration != 3 || p.BlocksSinceTool != 0 || p.BlocksInTurn != 0 || p.LastAction != state.ActPaused {
		t.Fatalf("paused: %+v", p)
	}
	if p.Pause.Until == nil || !p.Pause.Until.Equal(t0.Add(30*time.Second)) || !strings.Contains(p.Pause.Why, "a rate limit") {
		t.Errorf("pause %+v", p.Pause)
	}
	if l.Pause != nil {
		t.Error("Pause changed its input")
	}
	r := Resume(p, t0.Add(time.Minute))
	if r.Paused() || r.Iteration != 3 || r.Shown() != state.Active {
		t.Errorf("resumed: %+v", r)
	}
	for _, tt := range []struct {
		msg  string
		want time.Duration // 0: not said
	}{
		{"Rate limit exceeded, retry after 2 minutes", 2 * time.Minute},
		{"5-hour limit reached, resets in 1 hour", time.Hour},
		{"Claude AI usage limit reached|" + fmt.Sprint(t0.Add(90*time.Minute).Unix()), 90 * time.Minute},
		{"quota resets at 2026-11-21T15:00:00Z", 3 * time.Hour},
		{"Overloaded", 0},
		{"try again in 30 seconds was yesterday: reset at 2026-11-20T15:00:00Z", 30 * time.Second},
		{"usage limit reached|" + fmt.Sprint(t0.Add(-time.Hour).Unix()), 0}, // in the past
		{"retry after 99999 hours", 0}, // too far
	} {
		u := until(tt.msg, t0)
		switch {
		case tt.want == 0 && u != nil:
			t.Errorf("%q: until %v, want nothing", tt.msg, u)
		case tt.want != 0 && (u == nil || !u.Equal(t0.Add(tt.want))):
			t.Errorf("%q: until %v, want %v", tt.msg, u, t0.Add(tt.want))
		}
	}
}
