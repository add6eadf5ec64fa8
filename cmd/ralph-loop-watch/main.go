// Command ralph-loop-watch is the dashboard of "ralph-loop watch": a full-screen view of
// the loops ralph-loop reads for it (package dash says what they say to each other). It is
// a program of its own so that the terminal UI libraries it is built on (Bubble Tea, Lip
// Gloss, Bubbles) never start with a hook: Go initialises every package a binary links at
// its start, and ralph-loop starts for every hook event of every host.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/dash"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: feed is what ralph-loop sends, asks where the
// dashboard's requests go; it draws on the controlling terminal.
func run(feed io.Reader, asks io.Writer, stderr io.Writer, getenv func(string) string) int {
	v := getenv(dash.EnvVersion)
	if v == "" {
		fmt.Fprintln(stderr, inject.DashboardAlone)
		return 2
	}
	if v != strconv.Itoa(dash.Version) {
		fmt.Fprintln(stderr, inject.DashboardOtherVersion(v, dash.Version))
		return 2
	}
	in, out, err := tea.OpenTTY()
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", inject.DashboardProgram, err)
		return 1
	}
	defer in.Close()
	defer out.Close()
	var mu sync.Mutex
	w := dash.NewWriter(asks)
	ask := func(r dash.Request) {
		mu.Lock()
		defer mu.Unlock()
		_ = w.Write(r) // ralph-loop gone: the feed ends too
	}
	opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out)}
	if getenv("NO_COLOR") != "" {
		// no-color.org: any value but the empty one (colorprofile reads it as a boolean).
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(newModel(ask), opts...)
	go func() {
		r := dash.NewReader(feed)
		for {
			var u dash.Update
			if err := r.Read(&u); err != nil {
				p.Send(feedEnded{err})
				return
			}
			p.Send(u)
		}
	}()
	m, err := p.Run()
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", inject.DashboardProgram, err)
		return 1
	}
	if e := m.(model).feedErr; e != nil && e != io.EOF {
		fmt.Fprintf(stderr, "%s: error: read from ralph-loop: %v\n", inject.DashboardProgram, e)
		return 1
	}
	return 0
}
