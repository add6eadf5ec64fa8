package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// idleAfter is how long an active loop's session may go unseen before status flags it.
const idleAfter = 6 * time.Hour

// noStopAfter is how long an active loop may go without its first stop before status says
// that its host may not be running the Stop hook.
const noStopAfter = 10 * time.Minute

// recentLimit is how many finished loops the table shows without --all.
const recentLimit = 20

type loopView struct {
	SessionID         string            `json:"session_id"`
	LoopID            string            `json:"loop_id"`
	Host              string            `json:"host"`
	Cwd               string            `json:"cwd"`
	Task              string            `json:"task"`
	TaskFile          string            `json:"task_file,omitempty"`
	Mode              string            `json:"mode"`
	Status            state.Status      `json:"status"`
	Iteration         int               `json:"iteration"`
	MaxIterations     int               `json:"max_iterations"`
	ToolCalls         int               `json:"tool_calls"`
	MinToolCalls      int               `json:"min_tool_calls"`
	CompletionPromise string            `json:"completion_promise"`
	OnPromiseNoWork   string            `json:"on_promise_no_work"`
	MaxTime           string            `json:"max_time,omitempty"`
	Checks            []string          `json:"checks,omitempty"`
	CheckTimeout      string            `json:"check_timeout,omitempty"`
	CheckOutputChars  int               `json:"check_output_chars,omitempty"`
	CheckHint         string            `json:"check_hint,omitempty"`
	Sources           map[string]string `json:"sources,omitempty"`
	ArmedBy           string            `json:"armed_by"`
	Resumes           string            `json:"resumes,omitempty"`
	StartedAt         time.Time         `json:"started_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
	LastSeenAt        time.Time         `json:"last_seen_at"`
	EndedAt           *time.Time        `json:"ended_at,omitempty"`
	EndReason         string            `json:"end_reason,omitempty"`
	EndedBy           string            `json:"ended_by,omitempty"`
	// Owner is the session's host process, when known; Authority says how who asks is
	// told for this loop ("process" or why only the guard's reading of commands is left).
	Owner     *ownerView `json:"owner,omitempty"`
	Authority string     `json:"authority,omitempty"`
	// Protection, for an active loop, is what protects its files from the agent's own
	// processes ("sandbox", "process", "guard": inject.Protection), and Sandbox why the
	// host's sandbox does not, when it does not.
	Protection string `json:"protection,omitempty"`
	Sandbox    string `json:"sandbox,omitempty"`
	// HooksSilent, for an active loop, says since when its session's transcript has grown
	// with no hook of it running (its hooks were turned off).
	HooksSilent string   `json:"hooks_silent,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	// Unverified says what was changed of a loop whose state cannot be verified: only
	// that it is active, and its id and host, are known.
	Unverified string `json:"unverified,omitempty"`
	// Tokens and CostUSD are what the model used since arming; CostUSD is null when a
	// model used has no known price (Unpriced names them).
	Tokens    int64    `json:"tokens"`
	CostUSD   *float64 `json:"cost_usd"`
	Unpriced  []string `json:"unpriced,omitempty"`
	MaxTokens int64    `json:"max_tokens,omitempty"`
	MaxCost   float64  `json:"max_cost,omitempty"`
	// TaskFrom is the file the task was read from (--task-file); MinIterations,
	// MaxStalls, Checkpoint and Notify the flags of those names, when they apply.
	TaskFrom      string `json:"task_from,omitempty"`
	MinIterations int    `json:"min_iterations,omitempty"`
	MaxStalls     int    `json:"max_stalls,omitempty"`
	// Stalls are the iterations in a row so far without progress (--max-stalls).
	Stalls     int  `json:"stalls,omitempty"`
	Checkpoint bool `json:"checkpoint,omitempty"`
	// Checkpoints, with --checkpoint, are where: the repository and the refs' prefix.
	Checkpoints *checkpointsView `json:"checkpoints,omitempty"`
	// WorkTree says why the work tree is not recorded, when the loop needs it.
	WorkTree string `json:"work_tree,omitempty"`
	Notify   bool   `json:"notify,omitempty"`
	// Pause, for a PAUSED loop, says why, since when and until when.
	Pause *pauseView `json:"pause,omitempty"`
	// Wait, for an active loop that waits with the host for its background work, says
	// since when and for what; MaxWait is --max-wait ("" with none).
	Wait    *waitView    `json:"wait,omitempty"`
	MaxWait string       `json:"max_wait,omitempty"`
	Events  *[]eventView `json:"events,omitempty"`
}

type waitView struct {
	Since time.Time    `json:"since"`
	On    []state.Task `json:"on"`
}

type checkpointsView struct {
	Repo string `json:"repo"`
	Refs string `json:"refs"`
	Last string `json:"last,omitempty"`
}

type pauseView struct {
	At    time.Time  `json:"at"`
	Error string     `json:"error,omitempty"`
	Why   string     `json:"why"`
	Until *time.Time `json:"until,omitempty"`
}

type ownerView struct {
	PID     int    `json:"pid"`
	Program string `json:"program"`
	Running bool   `json:"running"`
}

type eventView struct {
	At        time.Time `json:"at"`
	Iteration int       `json:"iteration"`
	Action    string    `json:"action"`
	Reason    string    `json:"reason"`
	// Tokens and CostUSD, on a stop decision, are what its iteration used.
	Tokens  int64    `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

func view(store *state.Store, l state.Loop) loopView {
	v := loopView{
		SessionID: l.SessionID, LoopID: l.LoopID, Host: l.Host, Cwd: l.Cwd, Task: l.Task, TaskFile: l.TaskFile,
		Status: l.Status, Iteration: l.Iteration, MaxIterations: l.MaxIterations, ToolCalls: l.ToolCalls,
		MinToolCalls: l.MinToolCalls, CompletionPromise: l.CompletionPromise, OnPromiseNoWork: l.OnPromiseNoWork,
		ArmedBy: l.ArmedBy, Resumes: l.Resumes, StartedAt: l.StartedAt, UpdatedAt: l.UpdatedAt, LastSeenAt: l.LastSeenAt,
		EndedAt: l.EndedAt, EndReason: l.EndReason, EndedBy: l.EndedBy, Warnings: l.Warnings, Unverified: l.Unverified,
		Mode: mode(l), Checks: l.Checks, CheckHint: l.CheckHint, Sources: l.Sources,
		Tokens: l.Spent.Total(), Unpriced: l.Spent.Unpriced, MaxTokens: l.MaxTokens, MaxCost: l.MaxCost,
	}
	if l.Spent.CostKnown() {
		c := l.Spent.CostUSD
		v.CostUSD = &c
	}
	v.Status = l.Shown()
	v.TaskFrom, v.MinIterations, v.MaxStalls, v.Stalls = l.TaskFrom, l.MinIterations, l.MaxStalls, l.Work.Stalls
	v.Checkpoint, v.Notify, v.WorkTree = l.Checkpoint, l.Notify, l.Work.Note
	if l.Checkpoint && l.Work.Repo != "" {
		v.Checkpoints = &checkpointsView{Repo: l.Work.Repo, Refs: worktree.RefPrefix + l.LoopID + "/", Last: l.Work.Head}
	}
	if p := l.Pause; p != nil && l.Paused() {
		v.Pause = &pauseView{At: p.At, Error: p.Error, Why: p.Why, Until: p.Until}
	}
	if l.Waiting() {
		v.Wait = &waitView{Since: l.WaitSince, On: l.Background}
	}
	if l.MaxWait > 0 {
		v.MaxWait = time.Duration(l.MaxWait).String()
	}
	if l.Owner != nil {
		v.Owner = &ownerView{PID: l.Owner.PID, Program: l.Owner.Comm, Running: hook.OwnerRunning(&l)}
	}
	if l.Status == state.Active {
		v.Authority = hook.Authority(&l)
		v.Protection, v.Sandbox = inject.Protection(&l, proc.Supported)
		if since, ok := hook.HooksSilent(store, &l, time.Now()); ok {
			v.HooksSilent = since.Round(time.Second).String()
		}
	}
	if l.MaxTime > 0 {
		v.MaxTime = time.Duration(l.MaxTime).String()
	}
	if len(l.Checks) > 0 {
		v.CheckTimeout = time.Duration(l.CheckTimeout).String()
		v.CheckOutputChars = l.CheckOutputChars
	}
	return v
}

func mode(l state.Loop) string {
	if l.Mode == "" {
		return state.ModeRalph
	}
	return l.Mode
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:         "status",
		Usage:        "show the loops on this machine, or one session's loop and its timeline",
		UsageText:    "ralph-loop status [--session ID] [--json] [--all]",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "show this session's loops in detail, with their events"},
			&cli.BoolFlag{Name: "json", Usage: `print {"loops":[...]} as JSON`},
			&cli.BoolFlag{Name: "all", Usage: "list every finished loop, not only the most recent"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usagef("status takes no arguments")
			}
			store := newStore()
			w := cmd.Root().Writer
			if !cmd.Bool("json") {
				w = newTerminalWriter(w)
			}
			if id := cmd.String("session"); id != "" {
				if err := state.ValidSessionID(id); err != nil {
					return usageError{err: err}
				}
				return sessionStatus(w, store, id, cmd.Bool("json"))
			}
			return listStatus(w, store, cmd.Bool("json"), cmd.Bool("all"))
		},
	}
}

// allLoops reads every loop on the machine: active ones first, then the others, most
// recently updated first within each group.
func allLoops(store *state.Store) ([]state.Loop, error) {
	ids, err := store.Sessions()
	if err != nil {
		return nil, err
	}
	var loops []state.Loop
	var problems []string
	for _, id := range ids {
		ls, err := sessionLoops(store, id)
		if err != nil {
			problems = append(problems, err.Error())
		}
		loops = append(loops, ls...)
	}
	sort.SliceStable(loops, func(i, j int) bool {
		ai, aj := loops[i].Status == state.Active, loops[j].Status == state.Active
		if ai != aj {
			return ai
		}
		return loops[i].UpdatedAt.After(loops[j].UpdatedAt)
	})
	if len(problems) > 0 {
		return loops, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return loops, nil
}

func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSON(b.Bytes()))
	return err
}

func listStatus(w io.Writer, store *state.Store, asJSON, all bool) error {
	loops, readErr := allLoops(store)
	if asJSON {
		views := []loopView{}
		for _, l := range loops {
			views = append(views, view(store, l))
		}
		if err := writeJSON(w, map[string]any{"loops": views}); err != nil {
			return err
		}
		return readErr
	}
	if len(loops) == 0 {
		fmt.Fprintf(w, "no ralph loops (state directory: %s)\n", store.Dir())
		return readErr
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATUS\tITERATION\tTOOLS\tSPENT\tUPDATED\tTASK")
	now := time.Now()
	finished, hidden := 0, 0
	resumed := resumedLoops(loops)
	for _, l := range loops {
		if resumed[l.LoopID] {
			continue // the loop that picked it up is its row
		}
		if l.Status != state.Active {
			if finished++; finished > recentLimit && !all {
				hidden++
				continue
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%s\t%s\t%s\n", l.SessionID, statusWord(l, now), l.Iteration, l.MaxIterations,
			l.ToolCalls, spentShort(l.Spent), l.UpdatedAt.Local().Format("2006-01-02 15:04"), firstLine(l.Task, 60))
	}
	tw.Flush()
	if hidden > 0 {
		fmt.Fprintf(w, "(%d older loops not shown: ralph-loop status --all)\n", hidden)
	}
	return readErr
}

// resumedLoops are the loops another loop of their session picked up with --resume: the
// same loop going on, shown once, as the loop that goes on.
func resumedLoops(loops []state.Loop) map[string]bool {
	out := map[string]bool{}
	for _, l := range loops {
		if l.Resumes != "" {
			out[l.Resumes] = true
		}
	}
	return out
}

func statusWord(l state.Loop, now time.Time) string {
	if l.Paused() {
		return string(state.Paused)
	}
	if l.Status == state.Active && l.Unverified != "" {
		return "ACTIVE (unverified)"
	}
	if l.Status == state.Active && now.Sub(l.LastSeenAt) > idleAfter {
		return fmt.Sprintf("ACTIVE (idle %s)", age(now.Sub(l.LastSeenAt)))
	}
	if l.Waiting() {
		return "ACTIVE (waiting)"
	}
	return string(l.Status)
}

func age(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

func firstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	r := []rune(line)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if more {
		return line + " …"
	}
	return line
}

// sessionLoops reads a session's loops, counting in the tool calls a loop has not merged
// from the tool log yet: an active loop's since its last stop, and an ended loop's made in
// the iteration it ended in before a stop (a cancel, the session's end). Calls are logged
// only while a loop is active.
func sessionLoops(store *state.Store, id string) ([]state.Loop, error) {
	settle(store, id)
	loops, err := store.Loops(id)
	for i := range loops {
		loops[i].ToolCalls += store.PendingToolCalls(&loops[i])
	}
	return loops, err
}

// settle counts the last turn's usage of the session's ended loop, when its host wrote it to
// the transcript after the loop ended and no event of the session has counted it since
// (see hook.Settle): status shows the host's whole record.
func settle(store *state.Store, id string) {
	l, err := store.Peek(id)
	if err != nil || l == nil || l.Status == state.Active || !l.Transcript.Unseen {
		return
	}
	h, ok := hosts.Lookup(l.Host)
	if !ok {
		return
	}
	_ = hook.Settle(context.Background(), hook.Env{Store: store}, h.Facts(os.Getenv, l.Cwd), id)
}

func sessionStatus(w io.Writer, store *state.Store, id string, asJSON bool) error {
	loops, readErr := sessionLoops(store, id)
	events, err := store.Events(id)
	if err != nil && readErr == nil {
		readErr = err
	}
	if asJSON {
		views := []loopView{}
		for _, l := range loops {
			v := view(store, l)
			evs := []eventView{}
			for _, e := range events {
				if e.LoopID == l.LoopID {
					evs = append(evs, eventView{At: e.At, Iteration: e.Iteration, Action: e.Action, Reason: e.Reason, Tokens: e.Tokens, CostUSD: e.CostUSD})
				}
			}
			v.Events = &evs
			views = append(views, v)
		}
		if err := writeJSON(w, map[string]any{"loops": views}); err != nil {
			return err
		}
		if len(loops) == 0 && readErr == nil {
			return fmt.Errorf("session %s has no ralph loop", id)
		}
		return readErr
	}
	if len(loops) == 0 {
		if readErr != nil {
			return readErr
		}
		return fmt.Errorf("session %s has no ralph loop", id)
	}
	now := time.Now()
	l := loops[0]
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("session", l.SessionID)
	row("loop", fmt.Sprintf("%s (%s, armed by %s, host %s)", l.LoopID, mode(l), l.ArmedBy, l.Host))
	row("status", statusWord(l, now))
	if l.Paused() {
		row("paused", inject.PausedStatus(l.Pause))
	}
	if l.Waiting() {
		row("waiting", inject.WaitingStatus(&l, now))
	}
	if l.EndReason != "" {
		row("ended", l.EndReason)
	}
	if l.EndedBy != "" {
		row("ended by", inject.EndedBy(&l))
	}
	if l.Unverified != "" {
		row("unverified", l.Unverified)
	}
	if l.Status == state.Active {
		if l.Owner != nil {
			run := "running"
			if !hook.OwnerRunning(&l) {
				run = "gone: the next host of the session to run a hook takes the loop over"
			}
			row("host process", fmt.Sprintf("%s (pid %d, %s)", l.Owner.Comm, l.Owner.PID, run))
		}
		row("who may end it", hook.Authority(&l))
		w := loopWords(&l)
		row("protected by", inject.ProtectionLine(&l, proc.Supported, w))
		if level, _ := inject.Protection(&l, proc.Supported); level != inject.ProtectedBySandbox {
			row("still possible", inject.Unprotected(w))
		}
		if since, ok := hook.HooksSilent(store, &l, now); ok {
			row("warning", strings.TrimPrefix(inject.HooksSilent(l.SessionID, age(since)), "ralph-loop: "))
		}
	}
	row("iteration", fmt.Sprintf("%d/%d", l.Iteration, l.MaxIterations))
	row("tool calls", fmt.Sprintf("%d (the promise needs at least %d; without them: %s)", l.ToolCalls, l.MinToolCalls, l.OnPromiseNoWork))
	row("promise", promise.Marker(l.CompletionPromise))
	row("spent", spentLine(l))
	if l.MaxTime > 0 {
		row("time budget", fmt.Sprintf("%s (until %s)", time.Duration(l.MaxTime), l.StartedAt.Add(time.Duration(l.MaxTime)).Local().Format("2006-01-02 15:04:05")))
	}
	for i, c := range l.Checks {
		row(fmt.Sprintf("check %d", i+1), c)
	}
	if l.MaxStalls > 0 {
		row("stalls", fmt.Sprintf("%d in a row (it ends at %d)", l.Work.Stalls, l.MaxStalls))
	}
	if l.Checkpoint && l.Work.Repo != "" {
		row("checkpoints", fmt.Sprintf("%s%s/ in %s (ralph-loop diff %s)", worktree.RefPrefix, l.LoopID, l.Work.Repo, l.LoopID))
	}
	if l.Work.Note != "" {
		row("work tree", "not recorded: "+l.Work.Note)
	}
	if l.TaskFrom != "" {
		row("task from", l.TaskFrom)
	}
	row("cwd", l.Cwd)
	row("started", fmt.Sprintf("%s (%s ago)", l.StartedAt.Local().Format("2006-01-02 15:04:05"), age(now.Sub(l.StartedAt))))
	row("updated", fmt.Sprintf("%s (%s ago)", l.UpdatedAt.Local().Format("2006-01-02 15:04:05"), age(now.Sub(l.UpdatedAt))))
	for _, warn := range l.Warnings {
		row("warning", warn)
	}
	if l.Status == state.Active && l.LastAction == state.ActArmed && now.Sub(l.StartedAt) > noStopAfter {
		if h, ok := hosts.Lookup(l.Host); ok {
			row("warning", inject.NoStopSeen(h.Facts(os.Getenv, l.Cwd).Words, age(now.Sub(l.StartedAt))))
		}
	}
	if l.TaskFile != "" {
		row("task file", l.TaskFile)
	}
	tw.Flush()
	if len(l.Sources) > 0 {
		fmt.Fprintln(w, "settings")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range args.LoopFlags() {
			if src, ok := l.Sources[k]; ok {
				fmt.Fprintf(tw, "  --%s\t%s\t(%s)\n", k, args.Show(&l.Config, k), src)
			}
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "task\n%s\n", indent(l.Task, "  "))
	fmt.Fprintln(w, "events")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range events {
		if e.LoopID == l.LoopID {
			fmt.Fprintf(tw, "  %s\t#%d\t%s\t%s%s\n", e.At.Local().Format("15:04:05.000"), e.Iteration, e.Action, e.Reason, eventSpent(e))
		}
	}
	tw.Flush()
	if len(loops) > 1 {
		fmt.Fprintln(w, "earlier loops in this session")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		resumed := resumedLoops(loops)
		for _, o := range loops[1:] {
			status := string(o.Status)
			if resumed[o.LoopID] {
				status += " (picked up by --resume)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d/%d\t%s\n", o.StartedAt.Local().Format("2006-01-02 15:04"), status, o.Iteration, o.MaxIterations, firstLine(o.Task, 50))
		}
		tw.Flush()
	}
	return readErr
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// spentLine says what a loop's model used, and of which budgets.
func spentLine(l state.Loop) string {
	s := l.Spent.String()
	var of []string
	if l.MaxTokens > 0 {
		of = append(of, spend.Count(l.MaxTokens)+" tokens")
	}
	if l.MaxCost > 0 {
		of = append(of, spend.Dollars(l.MaxCost))
	}
	if len(of) > 0 {
		s += " (budget " + strings.Join(of, " or ") + ")"
	}
	return s
}

// spentShort is what a loop's model used, for the table: "6,500 tok $0.02" ("6,500 tok, cost unknown" while a
// model has no price; "-" before any use is recorded).
func spentShort(s spend.Spent) string {
	if s.Empty() {
		return "-"
	}
	c := ", cost unknown"
	if s.CostKnown() {
		c = " " + spend.Dollars(s.CostUSD)
	}
	return spend.Count(s.Total()) + " tok" + c
}

// eventSpent is what a stop decision's iteration used, as the log shows it after the
// reason ("" for other events).
func eventSpent(e state.Event) string {
	if e.Tokens == 0 {
		return ""
	}
	s := " [" + spend.Count(e.Tokens) + " tokens"
	if e.CostUSD != nil {
		s += ", " + spend.Dollars(*e.CostUSD)
	}
	return s + "]"
}

// loopWords are the texts' facts of a loop's host (a host this ralph-loop does not know
// gets its name alone).
func loopWords(l *state.Loop) inject.Words {
	if h, ok := hosts.Lookup(l.Host); ok {
		return h.Facts(os.Getenv, l.Cwd).Words
	}
	return inject.Words{Name: l.Host, Display: l.Host}
}
