package main

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/dash"
)

// The dashboard's styles. Colours are dropped by the renderer where the terminal has none
// or NO_COLOR is set; what they mark is also said in words.
var (
	titleStyle    = lipgloss.NewStyle().Bold(true)
	labelStyle    = lipgloss.NewStyle().Faint(true)
	selectedStyle = lipgloss.NewStyle().Reverse(true)
	errorStyle    = lipgloss.NewStyle().Foreground(lipgloss.Red)
	activeStyle   = lipgloss.NewStyle().Foreground(lipgloss.Green)
	waitStyle     = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	endedStyle    = lipgloss.NewStyle().Foreground(lipgloss.Magenta)
	doneStyle     = lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true)
)

// labelWidth is the width of the rows' labels.
const labelWidth = 12

// render draws the screen, fitted to its size.
func (m model) render() string {
	if m.screen == screenTimeline {
		return m.fit([]string{titleStyle.Render(m.cut(inject.WatchTimelineTitle(m.timelineFor)))},
			strings.Split(m.timeline.View(), "\n"), []string{labelStyle.Render(m.cut(inject.WatchKeysTimeline))})
	}
	head := []string{titleStyle.Render(m.cut(inject.WatchTitle(m.loops.Session, len(m.loops.Loops))))}
	var body []string
	switch {
	case len(m.loops.Loops) == 0 && m.got:
		body = append(body, "", m.cut(printable(m.loops.Waiting)))
	case len(m.loops.Loops) == 0:
		body = append(body, "", m.cut(inject.WatchTimelineWaiting))
	default:
		if m.loops.Session == "" {
			head = append(head, m.list()...)
		}
		body = m.detail(m.loops.Loops[max(m.index(), 0)])
	}
	var foot []string
	if m.loops.Problem != "" {
		foot = append(foot, errorStyle.Render(m.cut(printable(m.loops.Problem))))
	}
	switch {
	case m.screen == screenConfirm && m.index() >= 0:
		l := m.loops.Loops[m.index()]
		for _, line := range m.wrap(inject.WatchConfirmCancel(l.Session, l.Iteration, l.MaxIterations), 2) {
			foot = append(foot, waitStyle.Render(line))
		}
	case m.leaving:
		return m.fit(head, body, []string{m.cut(inject.WatchLeaving)})
	case m.message != "":
		style := lipgloss.NewStyle()
		if m.failed {
			style = errorStyle
		}
		for _, line := range m.wrap(printable(m.message), 3) {
			foot = append(foot, style.Render(line))
		}
	}
	keys := inject.WatchKeysOne
	if m.loops.Session == "" {
		keys = inject.WatchKeysMany
	}
	foot = append(foot, labelStyle.Render(m.cut(keys)))
	return m.fit(head, body, foot)
}

// fit lays head, body and foot out on the screen: the body is cut to the rows left, and
// the foot kept at the bottom.
func (m model) fit(head, body, foot []string) string {
	room := m.height - len(head) - len(foot)
	if room < 0 {
		head, room = head[:max(m.height-len(foot), 0)], 0
	}
	if len(body) > room {
		body = body[:room]
	}
	lines := append(append([]string{}, head...), body...)
	for len(lines)+len(foot) < m.height {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	if len(lines) > m.height {
		lines = lines[len(lines)-m.height:]
	}
	return strings.Join(lines, "\n")
}

// list is one line per loop, the selected one marked, with a window of at most a third of
// the screen around it.
func (m model) list() []string {
	n := max(m.height/3, 1)
	from := max(min(max(m.index(), 0)-n/2, len(m.loops.Loops)-n), 0)
	shown := m.loops.Loops[from:min(from+n, len(m.loops.Loops))]
	ws, wh, wt := 0, 0, 0
	for _, l := range shown {
		ws = max(ws, min(ansi.StringWidth(printable(l.Session)), 36))
		wh = max(wh, ansi.StringWidth(printable(l.Host)))
		wt = max(wt, ansi.StringWidth(printable(l.Status)))
	}
	var out []string
	for i, l := range shown {
		line := m.cut(fmt.Sprintf("%-2s%-*s  %-*s  %-*s  %7s  %s", mark(from+i == m.index()), ws, ansi.Truncate(printable(l.Session), ws, "…"),
			wh, printable(l.Host), wt, printable(l.Status), fmt.Sprintf("%d/%d", l.Iteration, l.MaxIterations), printable(l.Task)))
		if from+i == m.index() {
			line = selectedStyle.Render(line)
		}
		out = append(out, line)
	}
	return append(out, labelStyle.Render(strings.Repeat("─", max(m.width, 1))))
}

func mark(selected bool) string {
	if selected {
		return "▸"
	}
	return ""
}

// detail is the rows of one loop.
func (m model) detail(l dash.Loop) []string {
	lb := inject.WatchLabels
	out := []string{
		m.cut(printable(l.Task)),
		m.cut(fmt.Sprintf("%s · %s · loop %s", statusStyle(l).Render(printable(l.Status)), printable(l.Host), printable(l.LoopID))),
		"",
	}
	bar := max(min(m.width-labelWidth-28, 40), 0)
	row := func(label, value string) string {
		return m.cut(labelStyle.Render(fmt.Sprintf("%-*s", labelWidth, label)) + value)
	}
	barRow := func(label string, frac float64, value string) string {
		if bar < 8 {
			return row(label, value)
		}
		return row(label, m.bar(bar, frac)+"  "+value)
	}
	out = append(out, barRow(lb.Iteration, ratio(float64(l.Iteration), float64(l.MaxIterations)), fmt.Sprintf("%d/%d", l.Iteration, l.MaxIterations)))
	elapsed := m.now.Sub(l.StartedAt)
	if l.EndedAt != nil {
		elapsed = l.EndedAt.Sub(l.StartedAt)
	}
	elapsed = max(elapsed, 0)
	if l.MaxTime > 0 {
		out = append(out, barRow(lb.Time, ratio(float64(elapsed), float64(l.MaxTime)), inject.WatchTime(elapsed, l.MaxTime)))
	} else {
		out = append(out, row(lb.Time, inject.WatchTime(elapsed, 0)))
	}
	if l.MaxTokens > 0 {
		out = append(out, barRow(lb.Tokens, ratio(float64(l.Tokens), float64(l.MaxTokens)), inject.WatchTokens(l.Tokens, l.MaxTokens)))
	} else {
		out = append(out, row(lb.Tokens, inject.WatchTokens(l.Tokens, 0)))
	}
	if l.MaxCost > 0 && l.Cost != nil {
		out = append(out, barRow(lb.Cost, ratio(*l.Cost, l.MaxCost), inject.WatchCost(l.Cost, l.MaxCost)))
	} else if l.Tokens > 0 || l.MaxCost > 0 {
		out = append(out, row(lb.Cost, inject.WatchCost(l.Cost, l.MaxCost)))
	}
	out = append(out, row(lb.Stalls, inject.WatchStalls(l.Stalls, l.MaxStalls)))
	out = append(out, row(lb.Tools, inject.WatchTools(l.ToolCalls, l.MinToolCalls)))
	last := inject.WatchNoDecision
	if l.Decision != "" {
		last = l.Decision + ": " + l.Reason
	}
	out = append(out, m.rows(lb.Last, lipgloss.NewStyle(), printable(last), 2)...)
	checks := []string{inject.WatchNoChecks}
	if len(l.Checks) > 0 {
		checks = l.Checks
	}
	for i, c := range checks {
		label := lb.Checks
		if i > 0 {
			label = ""
		}
		out = append(out, row(label, printable(c)))
	}
	changes := inject.WatchNoCheckpoint
	if l.Changes != "" {
		changes = l.Changes
	}
	for i, c := range printableLines(changes) {
		if i == 3 {
			break
		}
		label := lb.Changes
		if i > 0 {
			label = ""
		}
		out = append(out, row(label, c))
	}
	now, style := lb.Now, lipgloss.NewStyle()
	if !l.Active {
		now, style = lb.Ended, statusStyle(l)
	}
	out = append(out, m.rows(now, style, printable(l.Waiting), 3)...)
	return out
}

// rows is a labelled text in style, wrapped to the screen, at most n rows.
func (m model) rows(label string, style lipgloss.Style, text string, n int) []string {
	var out []string
	for i, line := range m.wrapAt(text, max(m.width-labelWidth, 10), n) {
		if i > 0 {
			label = ""
		}
		out = append(out, labelStyle.Render(fmt.Sprintf("%-*s", labelWidth, label))+style.Render(line))
	}
	return out
}

// statusStyle colours a loop's status: green going or accepted, yellow waiting, magenta
// ended otherwise.
func statusStyle(l dash.Loop) lipgloss.Style {
	switch {
	case l.Active && strings.HasPrefix(l.Status, "ACTIVE") && !strings.Contains(l.Status, "("):
		return activeStyle
	case l.Active:
		return waitStyle
	case l.Status == "PROMISE_ACCEPTED":
		return doneStyle
	}
	return endedStyle
}

// bar is a progress bar of width w, frac of it full.
func (m model) bar(w int, frac float64) string {
	p := progress.New(progress.WithWidth(w), progress.WithoutPercentage(), progress.WithFillCharacters('█', '░'),
		progress.WithColors(lipgloss.Cyan))
	return p.ViewAs(frac)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return min(max(a/b, 0), 1)
}

// cut cuts a line to the screen's width.
func (m model) cut(s string) string { return ansi.Truncate(s, max(m.width, 1), "…") }

// wrap wraps text to the screen's width, at most n lines (the last cut).
func (m model) wrap(text string, n int) []string { return m.wrapAt(text, max(m.width, 1), n) }

func (m model) wrapAt(text string, w, n int) []string {
	lines := strings.Split(lipgloss.Wrap(text, w, " "), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1]+" …", w, "…")
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], w, "…")
	}
	return lines
}

// printable makes a text of the state fit to print on one line: control characters (a
// repository's task or check can hold escape sequences) are shown escaped.
func printable(s string) string { return inject.Printable(s) }

// printableLines is a text's lines, each made printable.
func printableLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = inject.Printable(l)
	}
	return lines
}
