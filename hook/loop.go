// Package hook answers the host's hook events: it arms and cancels loops from the user's
// prompts, counts the agent's tool calls, and makes the stop decision. The decision itself
// is the pure function Decide; everything here gathers what it needs and keeps state.
package hook

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/hook/program"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// Env is what a hook needs from the outside world.
type Env struct {
	Store  *state.Store
	Now    func() time.Time
	Sleep  func(time.Duration)
	Getenv func(string) string
	// Stderr gets one line per error, for people.
	Stderr io.Writer
	// CatchUp bounds the wait for a transcript that lags behind the host's
	// last_assistant_message before a stop is decided.
	CatchUp time.Duration
	// ToolWait bounds the wait for tool calls the transcript shows and the tool log does
	// not yet hold, where the host runs the hook that logs them in the background
	// (Transcript.ToolLogLags) and counting them could change the stop's decision.
	ToolWait time.Duration
	// MaxRead bounds the transcript bytes one read of a stop takes (0: transcript.MaxRead);
	// past it the stop is blocked, saying why, and the next stop reads on.
	MaxRead int64
	// Started tells when the host started the hook process (see ProcessStart; zero: not
	// known); nil: when Handle began. It is asked only by the events that need it (a
	// prompt, a stop), not by every tool call.
	Started func() time.Time
	// Caller, if set, says who ran this hook: the host process and how it handed the hook
	// its input (see authority.go). nil: who asks cannot be told, and events are judged as
	// before loops had owners.
	Caller func() (proc.Caller, error)
	// BinaryChanged, if set, says when the running ralph-loop's file last changed (its
	// status change time): a /cancel-ralph the hooks recorded while they could not run it
	// is taken only if it came back after (see fallback). nil: none is taken.
	BinaryChanged func() (time.Time, error)
	// HookBinaries, if set, lists the programs the host's hooks run, in its settings at
	// every scope of the session's project, and this one: the guard keeps them.
	// HookStamp, if set, fingerprints what that list is read from (the settings files and
	// $PATH): while it is the same, so is the list (see engine.hookBinaries).
	HookBinaries func(host, projectDir string) []string
	HookStamp    func(host, projectDir string) string
	// Notify, if set, shows the user a notification outside the host (--notify) and says
	// how ("notify-send", "bell"); nil: none is shown.
	Notify func(title, body string, find program.Finder) (string, error)
	// Programs, if set, finds the programs a hook runs for a loop whose project is in dirs
	// (tests: a git of theirs in a temporary directory); nil: program.For, on $PATH.
	Programs func(dirs []string) program.Finder
	// UserSettings is the user's own settings file (args.UserSettings: the prices of
	// models, what an unpriced model does); "": none.
	UserSettings string
	// Borrowed: another program runs this host's hooks, with input of its own (Grok Build
	// runs the hooks of Claude Code's and Cursor's settings and sets GROK_HOOK_EVENT for
	// them): input that is not a usable event of the host is not for ralph-loop, and is
	// passed over without a word (exit 0). An event of the host's is answered as ever.
	Borrowed bool
}

// DefaultCatchUp is the default of Env.CatchUp. Claude Code was seen writing the last lines
// of a turn 20-40 ms after the Stop hook started.
const DefaultCatchUp = 500 * time.Millisecond

// DefaultToolWait is the default of Env.ToolWait. Claude Code starts its background
// PostToolUse hook as the call ends, before it asks the model again: with a real model the
// call is logged long before the stop; with a model that answers at once, tens of
// milliseconds after the stop started, and seconds on a machine loaded enough that a
// process takes that long to start. It is waited out only for a call Claude Code refused
// before it ran, at a stop where the call would matter.
const DefaultToolWait = 5 * time.Second

// readTime bounds the time a stop spends reading the transcript, as MaxRead bounds its bytes
// (a file system slower than the disk's): well inside every host's Stop hook timeout.
const readTime = 10 * time.Second

func (e *Env) defaults() {
	if e.Now == nil {
		// UTC: state and events are stamped in UTC, and formatting local times would load
		// the time zone database on every hook.
		e.Now = func() time.Time { return time.Now().UTC() }
	}
	if e.Sleep == nil {
		e.Sleep = time.Sleep
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
}

// ArmRequest describes a loop to arm.
type ArmRequest struct {
	SessionID      string
	Host           string
	Cwd            string
	Config         state.Config
	ArmedBy        string
	TranscriptPath string
	// Key and Started identify the event that arms the loop and when its hook began: the
	// same event delivered to a second hook process arms nothing (see Armed.Duplicate).
	Key     string
	Started time.Time
	// Turn is the host's id of the user turn that arms the loop ("" if none).
	Turn string
	// Resume is the loop this one picks up, at Iteration, with its tool calls; nil for a
	// new loop.
	Resume    *state.Loop
	Iteration int
	// Owner is the session's host process, as the arming hook found it (nil: unknown).
	Owner *state.Owner
	// Settings is what in the host's settings decides what it runs and how, as it is now
	// (see Hooks.Settings; nil: not known).
	Settings []state.Setting
	// Sandbox is the host's sandbox for the agent's shell (see state.Loop.Sandbox), and
	// SandboxRoots what it lets the agent write.
	Sandbox      string
	SandboxRoots *state.SandboxRoots
	// HookBinaries are the programs the host's hooks run, as read now (nil: not read).
	HookBinaries *state.HookBinaries
	// Pending are what the user is to be told at the loop's first stop, for a host that
	// does not show the arming notice.
	Pending []state.Pending
}

// Armed is the outcome of Arm.
type Armed struct {
	Loop state.Loop
	// Replaced is the loop that was active before, now SUPERSEDED (nil if none).
	Replaced *state.Loop
	// Quarantined is where an unreadable state file was moved before arming ("" if none).
	Quarantined string
	// Duplicate: the request is the event that armed the active loop, delivered twice;
	// nothing was changed and Loop is that loop.
	Duplicate bool
}

// duplicate reports whether an event with key, whose hook process was started at started,
// is the one a loop's last decision was made for (key), delivered to a second hook
// process. The host starts the hooks of one event together, before any answers; a later
// event with the same input (a text-only loop's next stop) is started only after the
// answer. started must be when the host started the process (Env.Started), not when the
// program got going: on a loaded machine that can be after another hook has answered. The
// transcript cannot tell either: Claude Code writes it late, so the next stop of a loop
// can start before any new line is in it (seen: text-only loops ended silently mid-way).
// The kernel times a process's start in 10-ms ticks, and started is the earliest it can
// have been: a next stop with the same input that starts within about 20 ms of the
// decision is taken for a second delivery. No model API answers that quickly; a fake one
// answering at once did (Claude Code's next stop came 22 ms after the decision), and the
// end-to-end tests' fakes take at least 50 ms (fakeserver.AnswerTime), as a real one does.
func duplicate(l *state.Loop, key string, started time.Time) bool {
	return key != "" && l.LastKey == key && started.Before(l.LastKeyAt)
}

// Arm starts a loop in a session, replacing any loop the session had: the loop as the
// request makes it (newLoop), saved under the session's lock (armIn).
func Arm(ctx context.Context, env Env, req ArmRequest) (Armed, error) {
	env.defaults()
	now := env.Now()
	var res Armed
	if err := state.ValidSessionID(req.SessionID); err != nil {
		return res, err
	}
	if err := promise.Validate(req.Config.CompletionPromise); err != nil {
		return res, err
	}
	l := newLoop(req, now)
	l.Sandbox = sandboxClaim(ctx, env, &l)
	var err error
	res.Quarantined, err = update(ctx, env, req.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur != nil && cur.Status == state.Active && duplicate(cur, req.Key, req.Started) {
			res.Duplicate, l = true, *cur
			return nil, nil
		}
		replaced, err := armIn(ctx, env, tx, cur, &l, req, now)
		res.Replaced = replaced
		if err != nil {
			return nil, err
		}
		return &l, nil
	})
	res.Loop = l
	return res, err
}

// newLoop is the loop a request arms, at iteration 1 (or where a resumed loop ended), its
// transcript read from where it ends now: everything in it is from before the loop.
func newLoop(req ArmRequest, now time.Time) state.Loop {
	l := state.Loop{
		LoopID:       state.NewLoopID(now),
		SessionID:    req.SessionID,
		Host:         req.Host,
		Cwd:          req.Cwd,
		ArmedBy:      req.ArmedBy,
		Config:       req.Config,
		Status:       state.Active,
		Iteration:    1,
		StartedAt:    now,
		UpdatedAt:    now,
		LastSeenAt:   now,
		WindowStart:  now,
		LastAction:   state.ActArmed,
		Transcript:   state.TranscriptPos{Path: req.TranscriptPath, Offset: -1},
		LastKey:      req.Key,
		LastKeyAt:    now,
		Turn:         req.Turn,
		Owner:        req.Owner,
		Settings:     req.Settings,
		Sandbox:      req.Sandbox,
		SandboxRoots: req.SandboxRoots,
		HookBinaries: req.HookBinaries,
		Pending:      req.Pending,
	}
	if r := req.Resume; r != nil {
		l.Iteration, l.ToolCalls, l.ToolIDs, l.Spent = req.Iteration, r.ToolCalls, r.ToolIDs, r.Spent
		l.Resumes = r.LoopID
	}
	if req.TranscriptPath != "" {
		if fi, err := os.Stat(req.TranscriptPath); err == nil && fi.Mode().IsRegular() {
			l.Transcript.Offset = fi.Size()
		} else if errors.Is(err, fs.ErrNotExist) {
			l.Transcript.Offset = 0
		}
	}
	return l
}

// armIn puts loop l in the session's place of cur, within the session's transaction: the
// tool log starts again, an active loop cur is ended as replaced (and returned), the work
// tree is recorded for checkpoints, and a long task goes to a file of its own.
func armIn(ctx context.Context, env Env, tx *state.Tx, cur, l *state.Loop, req ArmRequest, now time.Time) (*state.Loop, error) {
	// Tool calls logged before now belong to earlier loops, which are over.
	if err := tx.ResetToolLog(); err != nil {
		return nil, err
	}
	l.ToolsOffset = 0
	if cur != nil && sameHost(cur.Owner, req.Owner) {
		// What the host kept of a settings file whose change it was told to refuse
		// lasts as long as the host runs, across its loops.
		l.SettingsRefused = cur.SettingsRefused
	}
	var replaced *state.Loop
	if cur != nil && cur.Status == state.Active {
		cur.Finish(state.Superseded, state.ByNewLoop, "replaced by a new loop", now)
		cur.Told = true
		cur.UpdatedAt = now
		cur.LastAction = state.ActSuperseded
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActSuperseded,
			Reason: inject.ReasonReplaced(l.LoopID)})
		r := *cur
		replaced = &r
	}
	armWork(ctx, env, l)
	if len(l.Task) > inject.MaxTaskInline {
		path, err := tx.WriteTaskFile(l.LoopID, l.Task)
		if err != nil {
			return replaced, err
		}
		l.TaskFile = path
	}
	resumed := ""
	if req.Resume != nil {
		resumed = req.Resume.LoopID
	}
	tx.Record(state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActArmed, Reason: inject.ReasonArmed(l, resumed),
		Checkpoint: l.Work.Head})
	return replaced, nil
}

// Cancel ends a session's active loop: by says who asked (state.ByUser, ByTerminal,
// ByInside), told whether the user sees it happen (a cancel typed in the session) or must
// be told at the session's next stop or prompt. It returns the loop as cancelled, or nil if
// the session had no active loop.
func Cancel(ctx context.Context, env Env, sessionID, by, why string, told bool) (*state.Loop, error) {
	return finish(ctx, env, sessionID, state.Cancelled, by, state.ActCancelled, why, told)
}

// update runs a state transaction. An unreadable state file is moved aside (to the path
// returned) and the transaction runs again on a clean session.
func update(ctx context.Context, env Env, id string, fn func(*state.Tx, *state.Loop) (*state.Loop, error)) (moved string, err error) {
	return updateWith(ctx, env.Store.Update, env, id, fn)
}

// updateWith is update through the store's Update or Seize.
func updateWith(ctx context.Context, run func(context.Context, string, func(*state.Tx, *state.Loop) (*state.Loop, error)) error,
	env Env, id string, fn func(*state.Tx, *state.Loop) (*state.Loop, error)) (moved string, err error) {
	err = run(ctx, id, fn)
	if errors.Is(err, state.ErrCorrupt) {
		to, qerr := env.Store.Quarantine(id, env.Now())
		if qerr != nil {
			return "", errors.Join(err, qerr)
		}
		return to, run(ctx, id, fn)
	}
	return "", err
}

// finish ends a session's active loop with a final status; it returns the loop as ended,
// or nil if the session had no active loop.
func finish(ctx context.Context, env Env, sessionID string, status state.Status, by, action, why string, told bool) (*state.Loop, error) {
	env.defaults()
	now := env.Now()
	var done *state.Loop
	run := env.Store.Update
	if status == state.Cancelled {
		// The user's cancel: a lock a stuck process does not let go is taken over.
		run = env.Store.Seize
	}
	_, err := updateWith(ctx, run, env, sessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil && tx.Unverified() != nil {
			// The user's cancel of a loop whose state cannot be verified: what stands for
			// it is ended, in place of the files that could not be verified.
			cur = tx.Unverified().Placeholder()
			if cur.LoopID == "" {
				cur.LoopID = state.NewLoopID(now)
			}
			cur.StartedAt = now
			why = inject.ReasonUnverifiedEnded(why, cur.Unverified)
		}
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		cur.Finish(status, by, why, now)
		cur.Told = told
		cur.UpdatedAt = now
		cur.LastAction = action
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: action, Reason: why})
		l := *cur
		done = &l
		return cur, nil
	})
	return done, err
}

// sameHost reports whether two owners may be the same host process (one not known counts
// as the same).
func sameHost(a, b *state.Owner) bool {
	return a == nil || b == nil || a.PID == b.PID && a.Start == b.Start
}
