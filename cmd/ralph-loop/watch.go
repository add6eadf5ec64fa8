package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/dash"
	"github.com/ralph-loop/ralph-loop/state"
)

// watchPoll is how often watch looks at the loops' files: a look is a few stats, and a loop
// is read again only when one of its files changed, so a change shows within this.
const watchPoll = 250 * time.Millisecond

// watchReread is how often the loops are read again though no file changed: the idle
// marks and the time spent move with the clock.
const watchReread = 5 * time.Second

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "a live dashboard of the loops you leave running: iterations, budgets, stalls, checks",
		UsageText: "ralph-loop watch [--session ID]",
		Description: "A full-screen view of every active loop on this machine, or of one session's (--session), updated as " +
			"the loops advance: the iterations, the time, tokens and cost against their budgets, the stalls, the tool calls, " +
			"the last decision and its reason, the last checks, the last checkpoint's changes, and what an active loop waits " +
			"for. Keys: q quits; up, down and Tab move between loops; Enter shows the timeline (ralph-loop log); c cancels " +
			"the loop after you confirm, as \"ralph-loop cancel\" does. With --session it leaves by itself once that loop " +
			"has ended, showing how. When standard output is not a terminal it prints what \"ralph-loop log --follow\" prints. " +
			"The dashboard is the program " + inject.DashboardProgram + ", installed beside ralph-loop.",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "watch this session's loop only, and leave when it ends"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("watch takes no arguments")
			}
			id := cmd.String("session")
			if id != "" {
				if err := state.ValidSessionID(id); err != nil {
					return usageError{err: err}
				}
			}
			out, stderr := cmd.Root().Writer, cmd.Root().ErrWriter
			store := newStore()
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			if !isTerminal(out) {
				fmt.Fprintln(stderr, inject.WatchNotTerminal)
				w := newTerminalWriter(out)
				var err error
				if id, err = waitForLoop(ctx, w, store, id); err != nil || id == "" {
					return err
				}
				return follow(ctx, w, store, id)
			}
			bin, err := dashboardPath()
			if err != nil {
				return err
			}
			return runDashboard(ctx, bin, &watcher{store: store, session: id}, out, stderr)
		},
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// dashboardPath finds the dashboard program: beside this binary (as a link to it, or where
// the link leads), or else on PATH.
func dashboardPath() (string, error) {
	name := inject.DashboardProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", errors.New(inject.DashboardMissing(filepath.Dir(exe)))
}

// runDashboard runs the dashboard on the terminal and feeds it what w reads until it
// leaves; with a session watched whose loop ended, it then prints how (as log --follow
// does).
func runDashboard(ctx context.Context, bin string, w *watcher, out, stderr io.Writer) error {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), dash.EnvVersion+"="+strconv.Itoa(dash.Version))
	cmd.Stderr = stderr
	feed, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	asks, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %w", bin, err)
	}
	requests := make(chan dash.Request)
	go func() {
		defer close(requests)
		r := dash.NewReader(asks)
		for {
			var req dash.Request
			if err := r.Read(&req); err != nil {
				return
			}
			requests <- req
		}
	}()
	send := dash.NewWriter(feed)
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	for {
		for _, u := range w.updates(time.Now()) {
			_ = send.Write(u) // a dashboard gone is seen as its requests end
		}
		select {
		case req, ok := <-requests:
			if !ok {
				feed.Close()
				err := cmd.Wait()
				if w.ended != nil {
					fmt.Fprintln(newTerminalWriter(out), inject.LoopEnded(w.ended))
				}
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					return exitError(exit.ExitCode())
				}
				return err
			}
			if req.Timeline != nil {
				w.timeline, w.timelineKey = *req.Timeline, ""
			}
			if req.Cancel != "" {
				_ = send.Write(dash.Update{Result: w.cancel(ctx, req.Cancel)})
			}
		case <-tick.C:
		case <-ctx.Done():
			// Ctrl-C reached both: the dashboard leaves too, and its requests end.
			ctx = context.Background()
		}
	}
}

// watcher reads the loops for the dashboard, as status and log do: without the sessions'
// locks, and only what changed since the last look.
type watcher struct {
	store   *state.Store
	session string // "": every active loop

	shown   []string          // the sessions shown so far, in order
	seen    map[string]string // each session's files as last read
	loops   map[string]dash.Loop
	problem string
	sent    []byte // the last Loops sent
	readAt  time.Time
	stats   map[string]string // a checkpoint's diffstat
	ended   *state.Loop       // the session watched, once its loop ended

	timeline    string // the session whose timeline the dashboard shows
	timelineKey string // its files when last sent
}

// updates are what the dashboard is to be sent now: the loops when they changed, the
// timeline it shows when that changed.
func (w *watcher) updates(now time.Time) []dash.Update {
	var out []dash.Update
	if l := w.read(now); l != nil {
		out = append(out, dash.Update{Loops: l})
	}
	if w.timeline != "" {
		if key := w.filesKey(w.timeline); key != w.timelineKey {
			w.timelineKey = key
			var b bytes.Buffer
			if _, err := printLog(newTerminalWriter(&b), w.store, w.timeline, 0); err != nil {
				fmt.Fprintf(&b, "%v\n", err)
			}
			out = append(out, dash.Update{Timeline: &dash.Timeline{Session: w.timeline, Text: b.String()}})
		}
	}
	return out
}

// read reads the loops whose files changed, and returns what the dashboard shows when it
// differs from what it was sent last (nil otherwise).
func (w *watcher) read(now time.Time) *dash.Loops {
	if w.seen == nil {
		w.seen, w.loops, w.stats = map[string]string{}, map[string]dash.Loop{}, map[string]string{}
	}
	ids := []string{w.session}
	if w.session == "" {
		active, err := w.store.Active()
		w.problem = ""
		if err != nil {
			w.problem = err.Error()
		}
		ids = active
	}
	for _, id := range ids {
		if !slices.Contains(w.shown, id) {
			w.shown = append(w.shown, id)
		}
	}
	reread := now.Sub(w.readAt) >= watchReread
	if reread {
		w.readAt = now
	}
	snap := &dash.Loops{At: now, Session: w.session, Problem: w.problem, Loops: []dash.Loop{}}
	for _, id := range w.shown {
		key := w.filesKey(id)
		if key != w.seen[id] || reread {
			w.seen[id] = key
			l, events, err := w.readSession(id)
			switch {
			case err != nil:
				snap.Problem = err.Error()
			case l == nil:
				delete(w.loops, id)
			default:
				w.loops[id] = w.dashLoop(l, events, now)
				if w.session != "" && l.Status != state.Active {
					w.ended = l
				}
			}
		}
		if d, ok := w.loops[id]; ok {
			snap.Loops = append(snap.Loops, d)
		}
	}
	switch {
	case len(snap.Loops) > 0:
	case w.session != "":
		snap.Waiting = inject.WatchNoLoop(w.session)
	default:
		snap.Waiting = inject.WatchNoLoops(w.store.Dir())
	}
	snap.Ended = w.ended != nil
	b, _ := json.Marshal(dash.Loops{Session: snap.Session, Waiting: snap.Waiting, Problem: snap.Problem, Loops: snap.Loops, Ended: snap.Ended})
	if bytes.Equal(b, w.sent) {
		return nil
	}
	w.sent = b
	return snap
}

// filesKey says what a session's files are now: a loop, its events or its tool calls
// written change it.
func (w *watcher) filesKey(id string) string {
	var b strings.Builder
	dir := w.store.SessionDir(id)
	for _, name := range []string{"loop.json", "events.jsonl", "tools.jsonl"} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.WriteString("-;")
		case err != nil:
			b.WriteString("?;")
		default:
			fmt.Fprintf(&b, "%d,%d;", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// readSession reads a session's loop (nil when it has none) and its events, without its
// lock, with the tool calls its hooks logged since its last stop counted in.
func (w *watcher) readSession(id string) (*state.Loop, []state.Event, error) {
	l, err := w.store.Peek(id)
	var u *state.UnverifiedError
	if errors.As(err, &u) {
		l, err = u.Placeholder(), nil
	}
	if err != nil || l == nil {
		return nil, nil, err
	}
	l.ToolCalls += w.store.PendingToolCalls(l)
	events, err := w.store.Events(id)
	return l, events, err
}

// dashLoop is the dashboard's view of a loop and its events.
func (w *watcher) dashLoop(l *state.Loop, events []state.Event, now time.Time) dash.Loop {
	d := dash.Loop{
		Session: l.SessionID, LoopID: l.LoopID, Host: l.Host, Task: firstLine(l.Task, 200),
		Status: statusWord(*l, now), Active: l.Status == state.Active,
		Iteration: l.Iteration, MaxIterations: l.MaxIterations,
		StartedAt: l.StartedAt, EndedAt: l.EndedAt, MaxTime: time.Duration(l.MaxTime),
		Tokens: l.Spent.Total(), MaxTokens: l.MaxTokens, MaxCost: l.MaxCost,
		Stalls: l.Work.Stalls, MaxStalls: l.MaxStalls,
		ToolCalls: l.ToolCalls, MinToolCalls: l.MinToolCalls,
	}
	if !l.Spent.Empty() {
		d.Spent = spentShort(l.Spent)
	}
	if l.Spent.CostKnown() {
		c := l.Spent.CostUSD
		d.Cost = &c
	}
	last, checking := "", -1
	var mine []state.Event
	for _, e := range events {
		if e.LoopID == l.LoopID {
			mine = append(mine, e)
		}
	}
	for i, e := range mine {
		last = e.Action
		switch {
		case e.Action == state.ActChecking:
			checking, d.Checks = i, nil
		case e.Action == state.ActCheck && checking >= 0:
			d.Checks = append(d.Checks, e.Reason)
		case decision(e.Action):
			d.Decision, d.Reason, d.DecisionAt = e.Action, e.Reason, e.At
		}
		if e.Checkpoint != "" {
			d.Changes = w.diffstat(l, e.Checkpoint)
		}
	}
	d.Waiting = inject.WatchNow(l, last)
	return d
}

// decision reports whether an event's action is a decision on the loop (not a check, a
// notification, a denied tool call or a message of the user's within a turn).
func decision(action string) bool {
	switch action {
	case state.ActCheck, state.ActChecking, state.ActNotified, state.ActDenied, state.ActMessage,
		state.ActUncounted, state.ActUsage, state.ActSilent:
		return false
	}
	return true
}

// diffstat is git's diffstat of a checkpoint against the one before, read once.
func (w *watcher) diffstat(l *state.Loop, commit string) string {
	if s, ok := w.stats[commit]; ok {
		return s
	}
	s := ""
	if l.Work.Repo != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		repo, err := loopRepo(*l)
		stat := ""
		if err == nil {
			stat, err = worktree.Stat(ctx, repo, commit)
		}
		cancel()
		if err != nil {
			s = err.Error()
		} else {
			s = strings.TrimRight(stat, "\n")
		}
	}
	w.stats[commit] = s
	return s
}

// cancel cancels a session's loop as "ralph-loop cancel --session" does, refused where
// that is (from inside an agent's session).
func (w *watcher) cancel(ctx context.Context, id string) *dash.Result {
	res := &dash.Result{Session: id}
	if err := state.ValidSessionID(id); err != nil {
		res.Text, res.Failed = err.Error(), true
		return res
	}
	var errs bytes.Buffer
	env := hookEnvTo(&errs)
	if err := refuseInside(ctx, inject.WatchCancelWhat(commandLine(), id), env.Store); err != nil {
		res.Text, res.Failed = err.Error(), true
		return res
	}
	l, err := cancelSession(ctx, env, id)
	switch {
	case err != nil:
		res.Text, res.Failed = err.Error(), true
	case l == nil:
		res.Text = fmt.Sprintf("session %s: %s", id, inject.NothingToCancel)
	default:
		res.Text = fmt.Sprintf("session %s: %s", id, inject.Cancelled(l))
	}
	if s := strings.TrimSpace(errs.String()); s != "" {
		res.Text += " (" + strings.ReplaceAll(s, "\n", "; ") + ")"
	}
	w.seen[id] = "" // read it again at once
	return res
}
