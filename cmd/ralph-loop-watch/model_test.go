package main

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ralph-loop/ralph-loop/internal/dash"
)

// fullLoop is a loop with every field the dashboard shows set.
func fullLoop(session string) dash.Loop {
	cost := 0.42
	return dash.Loop{
		Session: session, LoopID: "20261206T010000.000Z-abcdef12", Host: "claude", Task: "Make every test in ./parser pass",
		Status: "ACTIVE", Active: true, Iteration: 3, MaxIterations: 6,
		StartedAt: time.Now().Add(-5 * time.Minute), MaxTime: 30 * time.Minute,
		Spent: "12,400 tok $0.42", Tokens: 12400, Cost: &cost, MaxTokens: 100000, MaxCost: 5,
		Stalls: 1, MaxStalls: 5, ToolCalls: 7, MinToolCalls: 1,
		Decision: "blocked", Reason: "promise found but check 1/1 `go test ./...` exited with code 1 after 2.1s; rejected, continuing with iteration 3/6",
		Checks:  []string{"check 1/1 `go test ./...` exited with code 1 after 2.1s (log: /state/checks/x.log)"},
		Changes: " parser.go      | 12 ++++++------\n parser_test.go |  4 ++++\n 2 files changed, 10 insertions(+), 6 deletions(-)",
		Waiting: "the agent works on iteration 3",
	}
}

func sized(m model, w, h int) model {
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return next.(model)
}

func fed(m model, u dash.Update) (model, tea.Cmd) {
	next, cmd := m.Update(u)
	return next.(model), cmd
}

func pressed(m model, keys ...tea.KeyPressMsg) (model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		var next tea.Model
		next, cmd = m.Update(k)
		m = next.(model)
	}
	return m, cmd
}

var (
	keyC     = tea.KeyPressMsg{Code: 'c', Text: "c"}
	keyY     = tea.KeyPressMsg{Code: 'y', Text: "y"}
	keyN     = tea.KeyPressMsg{Code: 'n', Text: "n"}
	keyQ     = tea.KeyPressMsg{Code: 'q', Text: "q"}
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyDown  = tea.KeyPressMsg{Code: tea.KeyDown}
	keyTab   = tea.KeyPressMsg{Code: tea.KeyTab}
)

// plain is the screen without its styles.
func plain(m model) string { return ansi.Strip(m.render()) }

// TestViewFits: at 80x24, and smaller, every row of a loop is shown, no line is wider than
// the screen, there are no more lines than rows, and the keys are on the last one.
func TestViewFits(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 20}, {40, 12}} {
		for _, session := range []string{"s1", ""} {
			m := sized(newModel(func(dash.Request) {}), size[0], size[1])
			loops := []dash.Loop{fullLoop("s1")}
			if session == "" {
				loops = append(loops, fullLoop("s2"), fullLoop("s3"))
			}
			m, _ = fed(m, dash.Update{Loops: &dash.Loops{At: time.Now(), Session: session, Loops: loops}})
			screen := plain(m)
			lines := strings.Split(screen, "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d, session %q: %d lines", size[0], size[1], session, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d, session %q: line %d is %d wide: %q", size[0], size[1], session, i+1, w, l)
				}
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "q quit") {
				t.Errorf("%dx%d, session %q: last line %q, want the keys", size[0], size[1], session, last)
			}
			if size[0] < 80 {
				continue
			}
			for _, want := range []string{"Make every test in ./parser pass", "ACTIVE · claude", "3/6", "5m0s of 30m0s", "12,400 of 100,000",
				"$0.42 of $5.00", "1 in a row of 5", "7 (the promise needs 1)", "last        blocked: promise found but check",
				"checks      check 1/1 `go test ./...` exited with code 1", "changes      parser.go", "now         the agent works on iteration 3"} {
				if !strings.Contains(screen, want) {
					t.Errorf("%dx%d, session %q: %q not shown:\n%s", size[0], size[1], session, want, screen)
				}
			}
		}
	}
}

// TestViewPrintable: what the state holds is shown escaped: a task or a reason cannot
// move the cursor, retitle the window or colour the screen.
func TestViewPrintable(t *testing.T) {
	l := fullLoop("s1")
	l.Task = "evil \x1b]0;owned\x07 \x1b[2J task"
	l.Reason = "\x1b[31mred\x1b[0m"
	l.Changes = "a\x1b[1Ab"
	m := sized(newModel(func(dash.Request) {}), 80, 24)
	m, _ = fed(m, dash.Update{Loops: &dash.Loops{Session: "s1", Loops: []dash.Loop{l}}})
	out := m.render()
	for _, raw := range []string{"\x1b]0;owned", "\x1b[2J", "\x1b[31mred", "\x1b[1A"} {
		if strings.Contains(out, raw) {
			t.Errorf("the screen holds %q raw", raw)
		}
	}
	if !strings.Contains(out, `evil \x1b]0;owned\x07 \x1b[2J task`) {
		t.Errorf("the task is not shown escaped:\n%s", ansi.Strip(out))
	}
}

// TestKeys: c asks, y cancels the selected loop through ralph-loop, any other key keeps it;
// Enter asks for the selected loop's timeline and Esc stops it; down and Tab move the
// selection; q leaves.
func TestKeys(t *testing.T) {
	var asked []dash.Request
	m := sized(newModel(func(r dash.Request) { asked = append(asked, r) }), 80, 24)
	m, _ = fed(m, dash.Update{Loops: &dash.Loops{Loops: []dash.Loop{fullLoop("s1"), fullLoop("s2"), fullLoop("s3")}}})
	if m.selected != "s1" {
		t.Fatalf("selected %q, want the first loop", m.selected)
	}
	m, _ = pressed(m, keyDown)
	if m.selected != "s2" {
		t.Errorf("down: selected %q, want s2", m.selected)
	}
	m, _ = pressed(m, keyTab, keyTab)
	if m.selected != "s1" {
		t.Errorf("tab tab: selected %q, want s1 (round the list)", m.selected)
	}
	m, _ = pressed(m, keyC)
	if !strings.Contains(plain(m), "cancel the loop of session s1 at iteration 3/6?") {
		t.Errorf("c did not ask:\n%s", plain(m))
	}
	m, _ = pressed(m, keyN)
	if len(asked) != 0 {
		t.Errorf("n after c asked %+v, want nothing", asked)
	}
	m, _ = pressed(m, keyC, keyY)
	if len(asked) != 1 || asked[0].Cancel != "s1" {
		t.Fatalf("c y asked %+v, want the cancel of s1", asked)
	}
	m, _ = fed(m, dash.Update{Result: &dash.Result{Session: "s1", Text: "session s1: ralph loop cancelled at iteration 3/6"}})
	if !strings.Contains(plain(m), "session s1: ralph loop cancelled at iteration 3/6") {
		t.Errorf("the cancel's answer is not shown:\n%s", plain(m))
	}
	asked = nil
	m, _ = pressed(m, keyEnter)
	if len(asked) != 1 || asked[0].Timeline == nil || *asked[0].Timeline != "s1" {
		t.Fatalf("enter asked %+v, want s1's timeline", asked)
	}
	m, _ = fed(m, dash.Update{Timeline: &dash.Timeline{Session: "s1", Text: "loop x in session s1\n  #1 armed\x1b[2J\n"}})
	if s := plain(m); !strings.Contains(s, "timeline of session s1") || !strings.Contains(s, `#1 armed\x1b[2J`) {
		t.Errorf("the timeline is not shown (escaped):\n%s", s)
	}
	m, _ = pressed(m, keyEsc)
	if len(asked) != 2 || asked[1].Timeline == nil || *asked[1].Timeline != "" || m.screen != screenLoops {
		t.Errorf("esc from the timeline asked %+v, screen %d", asked, m.screen)
	}
	if _, cmd := pressed(m, keyQ); cmd == nil || cmd() != tea.Quit() {
		t.Errorf("q did not quit")
	}
}

// TestEndedLeaves: the dashboard of a session whose loop ended shows how, then leaves by
// itself (or at a key); of an ended loop c says there is nothing to cancel.
func TestEndedLeaves(t *testing.T) {
	var asked []dash.Request
	m := sized(newModel(func(r dash.Request) { asked = append(asked, r) }), 80, 24)
	l := fullLoop("s1")
	l.Active, l.Status, l.Decision, l.Reason = false, "PROMISE_ACCEPTED", "accepted", "promise found after 7 tool calls"
	l.Waiting = "PROMISE_ACCEPTED at iteration 3/6: promise found"
	m, cmd := fed(m, dash.Update{Loops: &dash.Loops{Session: "s1", Loops: []dash.Loop{l}, Ended: true}})
	if cmd == nil || !m.leaving {
		t.Fatal("an ended loop's dashboard does not leave")
	}
	s := plain(m)
	for _, want := range []string{"PROMISE_ACCEPTED · claude", "last        accepted: promise found after 7 tool calls", "ended       PROMISE_ACCEPTED at iteration 3/6"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q not shown:\n%s", want, s)
		}
	}
	if next, cmd := m.Update(leave{}); cmd == nil || cmd() != tea.Quit() {
		t.Errorf("the leave did not quit (%v)", next)
	}
	m.leaving = false
	m, _ = pressed(m, keyC)
	if len(asked) != 0 || !strings.Contains(plain(m), "this loop has ended: nothing to cancel") {
		t.Errorf("c on an ended loop: asked %+v\n%s", asked, plain(m))
	}
}

// TestLoopGone: a loop that leaves the list while the dashboard asks whether to cancel it
// (its session removed by gc) is not asked about any more, and nothing breaks.
func TestLoopGone(t *testing.T) {
	m := sized(newModel(func(dash.Request) {}), 80, 24)
	m, _ = fed(m, dash.Update{Loops: &dash.Loops{Loops: []dash.Loop{fullLoop("s1")}}})
	m, _ = pressed(m, keyC)
	m, _ = fed(m, dash.Update{Loops: &dash.Loops{Loops: []dash.Loop{}, Waiting: "no active ralph loop; waiting for one"}})
	if s := plain(m); strings.Contains(s, "cancel the loop of session") || !strings.Contains(s, "no active ralph loop") {
		t.Errorf("after the loop left:\n%s", s)
	}
}
