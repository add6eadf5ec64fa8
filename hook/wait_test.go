package hook

import (
	"slices"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// Background work the host reports at a stop: the stop waits with it (let through, no
// iteration used, no stall counted, the host's count of blocks over), unless the promise
// came (not taken while the work runs: ContinueBusy), the work has run past --max-wait
// (ContinueOverdue), or the loop ends first (its budget, its time). Each case is a run of
// stops of one loop; each stop is what the host reported and the verdict it must give.
func TestDecideWait(t *testing.T) {
	build := state.Task{ID: "b1", Kind: "shell", Name: "Build", Command: "make"}
	tests := build
	tests.ID, tests.Name, tests.Command = "b2", "Tests", "go test ./..."
	cron := state.Task{ID: "c1", Kind: state.KindCron, Name: "check the deploy", Command: "*/5 * * * *"}
	type stop struct {
		after      time.Duration // since the loop was armed
		background []state.Task
		found      bool
		want       Verdict
	}
	cases := []struct {
		name  string
		l     func(*state.Loop)
		stops []stop
		// iteration, stalls: the loop's after the last stop
		iteration, stalls int
	}{
		{"a build in the background: waits, then the promise", nil, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{2 * time.Minute, []state.Task{build}, false, Wait},
			{3 * time.Minute, nil, true, Accept},
		}, 1, 0},
		{"the promise while it runs is not taken", nil, []stop{
			{time.Minute, []state.Task{build}, true, ContinueBusy},
			{2 * time.Minute, []state.Task{build}, false, Wait},
			{3 * time.Minute, nil, true, Accept},
		}, 2, 1},
		{"a scheduled wake-up is waited for", nil, []stop{{time.Minute, []state.Task{cron}, false, Wait}}, 1, 0},
		{"past --max-wait: blocked, then waited for no more", func(l *state.Loop) { l.MaxWait = state.Duration(10 * time.Minute) }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{11 * time.Minute, []state.Task{build}, false, ContinueOverdue},
			{12 * time.Minute, []state.Task{build}, false, ContinueOverdue},
		}, 3, 2},
		{"--max-wait counts from the stop that first saw the task", func(l *state.Loop) { l.MaxWait = state.Duration(10 * time.Minute) }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{9 * time.Minute, []state.Task{build, tests}, false, Wait},
			{12 * time.Minute, []state.Task{tests}, false, Wait},
			{20 * time.Minute, []state.Task{tests}, false, ContinueOverdue},
		}, 2, 1},
		{"a task seen again after a stop without it starts again", func(l *state.Loop) { l.MaxWait = state.Duration(10 * time.Minute) }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{2 * time.Minute, nil, false, Continue},
			{15 * time.Minute, []state.Task{build}, false, Wait},
		}, 2, 1},
		{"--max-wait 0: no bound", func(l *state.Loop) { l.MaxWait = 0 }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{1000 * time.Hour, []state.Task{build}, false, Wait},
		}, 1, 0},
		{"the last iteration waits", func(l *state.Loop) { l.Iteration = 5 }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{2 * time.Minute, nil, false, MaxIterations},
		}, 5, 0},
		{"--max-time ends it while it waits", func(l *state.Loop) { l.MaxTime = state.Duration(time.Hour) }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
			{61 * time.Minute, []state.Task{build}, false, TimeBudget},
		}, 1, 0},
		{"the token budget ends it while it waits", func(l *state.Loop) { l.MaxTokens = 10; l.Spent.Input = 11 }, []stop{
			{time.Minute, []state.Task{build}, false, Budget},
		}, 1, 0},
		{"no stall is counted while it waits", func(l *state.Loop) { l.MaxStalls = 2 }, []stop{
			{time.Minute, nil, false, Continue},
			{2 * time.Minute, []state.Task{build}, false, Wait},
			{3 * time.Minute, []state.Task{build}, false, Wait},
			{4 * time.Minute, []state.Task{build}, false, Wait},
		}, 2, 1},
		{"output not read to its end is blocked", func(l *state.Loop) { l.Missed = "a stop went through undecided" }, []stop{
			{time.Minute, []state.Task{build}, false, Continue},
		}, 2, 1},
		{"at the host's cap it waits", func(l *state.Loop) { l.BlocksSinceTool = 8 }, []stop{
			{time.Minute, []state.Task{build}, false, Wait},
		}, 1, 0},
	}
	for _, tt := range cases {
		l := loop(func(l *state.Loop) {
			l.StartedAt, l.ToolCalls = t0, 1
			if tt.l != nil {
				tt.l(l)
			}
		})
		for i, s := range tt.stops {
			before := l
			var got Verdict
			// As observe does: a stop before went through undecided, so this one's output
			// does not count as read.
			got, l = Decide(l, Observation{Now: t0.Add(s.after), Background: s.background, Found: s.found, BlockCap: 8, Unread: l.Missed})
			if got != s.want {
				t.Errorf("%s: stop %d: %v, want %v", tt.name, i+1, got, s.want)
				break
			}
			if got != Wait {
				continue
			}
			if l.Iteration != before.Iteration || l.Status != state.Active || l.LastAction != state.ActWaiting || l.BlocksSinceTool != 0 || l.BlocksInTurn != 0 {
				t.Errorf("%s: stop %d: waiting at iteration %d (was %d), %s, %s, blocks %d/%d", tt.name, i+1, l.Iteration, before.Iteration,
					l.Status, l.LastAction, l.BlocksSinceTool, l.BlocksInTurn)
			}
			if before.LastAction == state.ActWaiting && !l.WaitSince.Equal(before.WaitSince) || before.LastAction != state.ActWaiting && !l.WaitSince.Equal(t0.Add(s.after)) {
				t.Errorf("%s: stop %d: waiting since %v", tt.name, i+1, l.WaitSince)
			}
			if len(l.Background) != len(s.background) || !slices.EqualFunc(l.Background, s.background, state.Task.Same) {
				t.Errorf("%s: stop %d: background %+v, want %+v", tt.name, i+1, l.Background, s.background)
			}
		}
		if l.Iteration != tt.iteration || l.Work.Stalls != tt.stalls {
			t.Errorf("%s: iteration %d, stalls %d; want %d, %d", tt.name, l.Iteration, l.Work.Stalls, tt.iteration, tt.stalls)
		}
	}
}

// A stop that would wait with the host's background work is not worth waiting for what the
// host has not written yet (the transcript's end, the tool log's calls): the wait ends no
// loop, and a marker in the rest would not count while the work runs. The same stop
// without the work, in the loop's last iteration, would end it: that one waits.
func TestWaitIsNotWaitedFor(t *testing.T) {
	last := loop(func(l *state.Loop) { l.Iteration, l.StartedAt = 5, t0 })
	ev := Event{LastMessage: "Waiting for the build."}
	busy := observed{Observation: Observation{Now: t0, Background: []state.Task{{ID: "b1", Kind: "shell", Command: "make"}}}}
	if busy.waitCouldChange(&last, ev, true, true, true) {
		t.Error("a wait waits for the transcript")
	}
	if busy.toolsWouldChange(&last, []string{"toolu_1"}) {
		t.Error("a wait waits for the tool log")
	}
	done := observed{Observation: Observation{Now: t0}}
	if !done.waitCouldChange(&last, ev, true, true, false) || !done.toolsWouldChange(&last, []string{"toolu_1"}) {
		t.Error("the loop's last stop does not wait for what the host has not written")
	}
}
