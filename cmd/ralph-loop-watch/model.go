package main

import (
	"time"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/dash"
)

// leaveAfter is how long the dashboard of a session whose loop ended shows how it ended
// before it leaves (a key leaves at once).
const leaveAfter = 3 * time.Second

// The dashboard's screens.
const (
	screenLoops    = iota
	screenConfirm  // the loops, with the question whether to cancel the selected one
	screenTimeline // the selected loop's timeline
)

// model is the dashboard: what ralph-loop sent last, what the user selected, and the size
// of the terminal.
type model struct {
	ask           func(dash.Request)
	width, height int
	now           time.Time

	loops    dash.Loops
	got      bool   // Loops came at least once
	selected string // the selected loop's session
	screen   int
	message  string // the answer to the last cancel, or a hint
	failed   bool   // message is an error
	leaving  bool   // the session watched has ended: the dashboard leaves

	timeline     viewport.Model
	timelineFor  string
	timelineText bool // the timeline asked for came

	feedErr error
}

type (
	tick      time.Time
	leave     struct{}
	feedEnded struct{ err error }
)

func newModel(ask func(dash.Request)) model {
	m := model{ask: ask, width: 80, height: 24, now: time.Now(), timeline: viewport.New()}
	m.timeline.SoftWrap = true
	return m
}

func (m model) Init() tea.Cmd { return tickEvery() }

func tickEvery() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tick(t) })
}

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.sizeTimeline()
		return m, nil
	case tick:
		m.now = time.Time(msg)
		return m, tickEvery()
	case leave:
		return m, tea.Quit
	case feedEnded:
		m.feedErr = msg.err
		return m, tea.Quit
	case dash.Update:
		return m.update(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.screen == screenTimeline {
		var cmd tea.Cmd
		m.timeline, cmd = m.timeline.Update(msg)
		return m, cmd
	}
	return m, nil
}

// update takes in what ralph-loop sent.
func (m model) update(u dash.Update) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if u.Loops != nil {
		m.loops, m.got, m.now = *u.Loops, true, time.Now()
		if m.index() < 0 && len(m.loops.Loops) > 0 {
			m.selected = m.loops.Loops[0].Session
		}
		if m.loops.Ended && !m.leaving {
			m.leaving = true
			cmd = tea.Tick(leaveAfter, func(time.Time) tea.Msg { return leave{} })
		}
	}
	if t := u.Timeline; t != nil && t.Session == m.timelineFor {
		bottom := m.timeline.AtBottom() || !m.timelineText
		m.timeline.SetContentLines(printableLines(t.Text))
		m.timelineText = true
		if bottom {
			m.timeline.GotoBottom()
		}
	}
	if r := u.Result; r != nil {
		m.message, m.failed = r.Text, r.Failed
	}
	return m, cmd
}

// key answers a key the user pressed.
func (m model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	key := k.String()
	if key == "ctrl+c" || m.leaving {
		return m, tea.Quit
	}
	switch m.screen {
	case screenConfirm:
		m.screen = screenLoops
		m.message, m.failed = "", false
		if key == "y" || key == "Y" {
			m.message = inject.WatchCancelling
			m.ask(dash.Request{Cancel: m.selected})
		}
		return m, nil
	case screenTimeline:
		switch key {
		case "q":
			return m, tea.Quit
		case "esc", "enter", "backspace", "left":
			m.screen = screenLoops
			none := ""
			m.ask(dash.Request{Timeline: &none})
			return m, nil
		}
		var cmd tea.Cmd
		m.timeline, cmd = m.timeline.Update(k)
		return m, cmd
	}
	switch key {
	case "q", "esc":
		return m, tea.Quit
	case "down", "j", "tab":
		m.move(1)
	case "up", "k", "shift+tab":
		m.move(-1)
	case "enter":
		if m.index() >= 0 {
			m.screen, m.timelineFor, m.timelineText = screenTimeline, m.selected, false
			m.timeline.SetContent(inject.WatchTimelineWaiting)
			m.sizeTimeline()
			id := m.selected
			m.ask(dash.Request{Timeline: &id})
		}
	case "c":
		if i := m.index(); i >= 0 {
			if !m.loops.Loops[i].Active {
				m.message, m.failed = inject.WatchNotActive, true
			} else {
				m.screen = screenConfirm
			}
		}
	}
	return m, nil
}

// index is the selected loop's index, -1 when none is.
func (m model) index() int {
	for i, l := range m.loops.Loops {
		if l.Session == m.selected {
			return i
		}
	}
	return -1
}

// move selects the loop d places down (up when negative), round the list.
func (m *model) move(d int) {
	n := len(m.loops.Loops)
	if n == 0 {
		return
	}
	i := (max(m.index(), 0) + d + n) % n
	m.selected = m.loops.Loops[i].Session
	m.message, m.failed = "", false
}

// sizeTimeline fits the timeline to the screen, below its title and above the keys.
func (m *model) sizeTimeline() {
	m.timeline.SetWidth(m.width)
	m.timeline.SetHeight(max(m.height-2, 1))
}

func (m model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = inject.WatchTitle(m.loops.Session, len(m.loops.Loops))
	return v
}
