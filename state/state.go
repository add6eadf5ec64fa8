// Package state keeps each session's ralph loop on disk: one state file per session, a lock
// beside it, an append-only event log and the loops the session had before.
//
// Layout under the state directory (normally $XDG_STATE_HOME/ralph-loop):
//
//	sessions/<session-id>/loop.json         the session's current (or last) loop
//	sessions/<session-id>/loop.lock         flock target; never renamed
//	sessions/<session-id>/events.jsonl      every decision, one JSON object per line
//	sessions/<session-id>/tools.jsonl       tool calls reported by PostToolUse hooks
//	sessions/<session-id>/history/<id>.json earlier loops of the session
//	sessions/<session-id>/task-<id>.md      the full task, when it is too long to repeat
//	sessions/<session-id>/checks/*.log      each check's output
//	trash/                                  sessions gc is removing
//
// Directories are 0700 and files 0600. Whole files are replaced atomically (temp file,
// rename); the key, the task files and the history are synced first (fsync, then of the
// directory), the loop file is not: it has a verified copy in the keep (see Store.save).
// Every file is opened without following symlinks,
// without waiting on a FIFO, and used only if it is a regular file (see openState); what
// was planted in place of a log, the lock or a directory is moved aside to
// <name>.refused-<time>.
package state

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/spend"
)

// Version is the schema version written in every state file and event line.
const Version = 1

// Errors returned by Store. Test them with errors.Is.
var (
	// ErrBadSessionID means a session id is not usable as a file name.
	ErrBadSessionID = errors.New("invalid session id")
	// ErrCorrupt means a state file could not be read as a loop.
	ErrCorrupt = errors.New("state file is corrupt")
	// ErrVersion means a state file was written by a newer (or unknown) ralph-loop.
	ErrVersion = errors.New("state file has an unsupported version")
	// ErrLockTimeout means another process held the session lock for too long.
	ErrLockTimeout = errors.New("timed out waiting for the session lock")
	// ErrLockForeign means the session lock is held, again and again, by processes that
	// are not ralph-loop.
	ErrLockForeign = errors.New("the session lock is held by a process that is not ralph-loop")
	// ErrWrite means a state file could not be written (a full disk, a read-only file
	// system): the decision taken stands, but it is not on disk.
	ErrWrite = errors.New("could not write the state")
	// ErrUnverified means a session's loop is active but none of its files can be verified
	// (see UnverifiedError): it is neither taken as ended nor moved aside, and only the
	// user's cancel ends it.
	ErrUnverified = errors.New("the loop's state cannot be verified")
	// ErrNotRegular means a state file is a symbolic link, a FIFO, a directory, a device or a
	// file with other hard links: something planted, never read, written or followed.
	ErrNotRegular = errors.New("not a regular file")
)

// Status is where a loop stands.
type Status string

// Loop statuses. Every status but Active is final.
const (
	Active               Status = "ACTIVE"
	PromiseAccepted      Status = "PROMISE_ACCEPTED"
	MaxIterationsReached Status = "MAX_ITERATIONS_REACHED"
	Cancelled            Status = "CANCELLED"
	Superseded           Status = "SUPERSEDED"
	SessionEnded         Status = "SESSION_ENDED"
	// CutByHost means the host was about to end the turn against the hook's block (Claude
	// Code's consecutive stop-block cap), so the loop ended there, with the reason recorded.
	CutByHost Status = "CUT_BY_HOST"
	// TimeBudgetExhausted means the loop's --max-time ran out.
	TimeBudgetExhausted Status = "TIME_BUDGET_EXHAUSTED"
	// NoProgress means an iteration ended with no reply from the model (Gemini CLI's loop
	// detector aborted the turn, or the user interrupted it): blocking again would spin, or
	// override the interrupt; or the stall breaker saw --max-stalls iterations in a row
	// without progress.
	NoProgress Status = "NO_PROGRESS"
	// BudgetExhausted means the loop's --max-tokens or --max-cost was reached, or its cost
	// could no longer be counted (a model with no known price, under --max-cost).
	BudgetExhausted Status = "BUDGET_EXHAUSTED"
	// Paused is how status shows an active loop that waits (Loop.Pause): never stored, the
	// loop file keeps ACTIVE, so that everything that guards an active loop still does.
	Paused Status = "PAUSED"
)

// What to do with a promise made before the minimum number of tool calls.
const (
	NoWorkReject = "reject"
	NoWorkWarn   = "warn"
	NoWorkAccept = "accept"
)

// Defaults of the loop settings.
const (
	DefaultMaxIterations     = 25
	DefaultCompletionPromise = "DONE"
	DefaultMinToolCalls      = 1
	DefaultOnPromiseNoWork   = NoWorkReject
	DefaultCheckTimeout      = 120 * time.Second
	DefaultCheckOutputChars  = 4000
	DefaultMaxStalls         = 5
	DefaultMaxWait           = 30 * time.Minute
)

// Loop modes.
const (
	ModeRalph = "ralph" // /ralph-loop
	ModeULW   = "ulw"   // /ulw-loop: every continuation starts with the ultrawork instruction
)

// Config is what the user asked for when arming a loop.
type Config struct {
	Task              string `json:"task"`
	Mode              string `json:"mode"`
	MaxIterations     int    `json:"max_iterations"`
	CompletionPromise string `json:"completion_promise"`
	// PromiseMatch is where the marker counts: "" or "anywhere", "line", "end".
	PromiseMatch    string `json:"promise_match,omitempty"`
	MinToolCalls    int    `json:"min_tool_calls"`
	OnPromiseNoWork string `json:"on_promise_no_work"`
	// MaxTime is the wall-clock budget from arming (0: none).
	MaxTime Duration `json:"max_time,omitempty"`
	// MaxTokens and MaxCost are the loop's budget of the model's tokens and of their cost in
	// USD, from arming (0: none).
	MaxTokens int64   `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	// Prices are the user's prices by model (the "prices" of the user's own settings), over
	// the embedded table.
	Prices map[string]spend.Price `json:"prices,omitempty"`
	// Unpriced is what a model with no known price does under MaxCost: "" (its tokens count
	// at the highest prices known: spend.Spent.Bound) or UnpricedPause (the loop waits for
	// the user's price), as the user's own settings say.
	Unpriced string `json:"unpriced,omitempty"`
	// Checks must all exit 0 for a promise to be accepted.
	Checks           []string `json:"checks,omitempty"`
	CheckTimeout     Duration `json:"check_timeout"`
	CheckOutputChars int      `json:"check_output_chars"`
	CheckHint        string   `json:"check_hint,omitempty"`
	// TaskFrom is the file the task was read from at arming (--task-file), "" when it was
	// typed: the task is kept with the loop, so a later edit of the file changes nothing.
	TaskFrom string `json:"task_from,omitempty"`
	// MinIterations: a promise made before this iteration is not accepted (0 or 1: none).
	MinIterations int `json:"min_iterations,omitempty"`
	// MaxStalls ends the loop NO_PROGRESS after that many iterations in a row without
	// progress (0: never).
	MaxStalls int `json:"max_stalls,omitempty"`
	// MaxWait bounds how long the loop waits with the host for work it runs in the
	// background: a stop whose background work has run longer is blocked (0: no bound).
	MaxWait Duration `json:"max_wait,omitempty"`
	// Checkpoint: the work tree is recorded at every iteration's end, as a git commit under
	// refs/ralph-loop/<loop>/<n>.
	Checkpoint bool `json:"checkpoint,omitempty"`
	// Notify: a desktop notification says when the loop ends or pauses.
	Notify bool `json:"notify,omitempty"`
	// Sources says where each setting came from: "flag", ".ralph/settings.local.json",
	// ".ralph/settings.json" or "default", by flag name.
	Sources map[string]string `json:"sources,omitempty"`
}

// DefaultConfig returns the built-in settings with no task.
func DefaultConfig() Config {
	return Config{
		Mode:              ModeRalph,
		MaxIterations:     DefaultMaxIterations,
		CompletionPromise: DefaultCompletionPromise,
		MinToolCalls:      DefaultMinToolCalls,
		OnPromiseNoWork:   DefaultOnPromiseNoWork,
		CheckTimeout:      Duration(DefaultCheckTimeout),
		CheckOutputChars:  DefaultCheckOutputChars,
		MaxStalls:         DefaultMaxStalls,
		MaxWait:           Duration(DefaultMaxWait),
	}
}

// Duration is a time.Duration written in JSON as a string such as "2m0s".
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (v Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(v).String()) }

// UnmarshalJSON reads a string such as "45m", or a number of nanoseconds.
func (v *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*v = Duration(n)
		return nil
	}
	t, err := time.ParseDuration(s)
	*v = Duration(t)
	return err
}

// Loop is one ralph loop of one session.
type Loop struct {
	Version   int    `json:"version"`
	LoopID    string `json:"loop_id"`
	SessionID string `json:"session_id"`
	Host      string `json:"host"`
	Cwd       string `json:"cwd"`
	ArmedBy   string `json:"armed_by"` // "slash-command" or "start"
	// Resumes is the loop this one picks up where it ended (--resume): the same loop
	// going on, which status lists once.
	Resumes string `json:"resumes,omitempty"`
	Config
	Status    Status `json:"status"`
	Iteration int    `json:"iteration"` // the agent turn in progress, from 1
	ToolCalls int    `json:"tool_calls"`
	// TaskFile holds the full task when it is too long to repeat in a continuation.
	TaskFile  string     `json:"task_file,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	EndReason string     `json:"end_reason,omitempty"`
	// EndedBy says who or what ended the loop (one of the By constants).
	EndedBy string `json:"ended_by,omitempty"`
	// Told: the user has been shown how the loop ended. A loop ended outside the session
	// (a terminal's cancel, the session's end) is told at the session's next stop or prompt.
	Told     bool     `json:"told,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Unverified, on a loop that stands for one whose files could not be verified (see
	// UnverifiedError), says what was changed; the loop's settings and counts are unknown.
	Unverified string `json:"unverified,omitempty"`
	// Spent is what the model used since arming, as the host recorded it.
	Spent spend.Spent `json:"spent,omitzero"`
	// Ledger tells the usage the host could have written from what it could not (see
	// spend.Ledger.Screen).
	Ledger spend.Ledger `json:"ledger,omitzero"`

	// Bookkeeping for the stop decision.

	// Transcript is how far the host's transcript has been read.
	Transcript TranscriptPos `json:"transcript"`
	// ToolsOffset is how far the session's tool log has been merged.
	ToolsOffset int64 `json:"tools_offset"`
	// WindowStart: agent text stamped after this belongs to the current iteration. It is the
	// time of the previous stop decision (or of arming), so text of an earlier iteration that
	// reaches the transcript late never counts again.
	WindowStart time.Time `json:"window_start"`
	// ToolIDs are the most recent tool-use ids counted, to count each call once whichever of
	// the hook events and the transcript reports it first.
	ToolIDs []string `json:"tool_ids,omitempty"`
	// Missed says why the loop's next stop is blocked whatever the agent's output holds: a
	// stop before it went through with no decision (its hook was killed; see hook's
	// undecided). The next decided stop clears it.
	Missed string `json:"missed,omitempty"`
	// Recorded: the host's transcript has been read for this loop. On a host whose
	// transcript records every tool call by the id its tool hooks log, a call then counts
	// only once the transcript shows it (CountRecorded); before (a session with no
	// transcript file), the tool log alone counts.
	Recorded bool `json:"recorded,omitempty"`
	// Unshown are the calls the tool log holds that the transcript has not shown yet, and
	// Unlogged the calls the transcript showed that the tool log does not hold yet (see
	// CountRecorded): each waits for the other record.
	Unshown  []string `json:"unshown,omitempty"`
	Unlogged []string `json:"unlogged,omitempty"`
	// BlocksSinceTool counts consecutive blocks of this turn without a tool call between
	// them, which is what the host's block cap counts.
	BlocksSinceTool int `json:"blocks_since_tool"`
	// BlocksInTurn counts the blocks of this turn, tool calls or not, for hosts whose cap
	// counts them all.
	BlocksInTurn int `json:"blocks_in_turn,omitempty"`
	// Yielded: the last stop was let through so that a message the user typed meanwhile is
	// answered as its own turn; the loop resumes at the next stop, its iteration kept.
	Yielded bool `json:"yielded,omitempty"`
	// AwaitCancel: the last stop was let through for a /cancel-ralph the transcript showed
	// queued; the loop ends when it comes as the user's prompt, and goes on otherwise.
	AwaitCancel bool `json:"await_cancel,omitempty"`
	// Turn is the host's id of the user turn of the last event that armed the loop or made a
	// stop decision (Claude Code's prompt_id; "" when the host gives none): a prompt of the
	// same turn is a message the user typed while the agent worked, not a new turn.
	Turn string `json:"turn,omitempty"`
	// LastKey identifies the last event that armed the loop or made a stop decision, and
	// LastKeyAt when that decision was taken: the same event delivered to a second hook
	// process (ralph-loop installed twice) must not count twice.
	LastKey   string    `json:"last_key,omitempty"`
	LastKeyAt time.Time `json:"last_key_at,omitzero"`
	// LastAction is the action of the last event ("armed", "blocked", ...).
	LastAction string    `json:"last_action"`
	LastSeenAt time.Time `json:"last_seen_at"`

	// Owner is the host process that runs the loop's session and how it hands its hooks
	// their input (nil: not known, as for a loop armed from a terminal before any hook of
	// the session ran, or where the process table cannot be read).
	Owner *Owner `json:"owner,omitempty"`
	// Pending are what the user is to be told at the session's next stop or prompt: what
	// was put back or refused meanwhile. Each is told once.
	Pending []Pending `json:"pending,omitempty"`
	// Seq counts the writes of the loop file: of two copies both signed, the higher is the
	// newer.
	Seq uint64 `json:"seq,omitempty"`
	// Settings is what, in the host's settings, decided what it runs and how when the loop
	// was armed (Claude Code's settings files, setting by setting, and the hook files of
	// the plugins they enable): a settings change that differs from it is refused while
	// the loop is active. nil: not known (a host without ConfigChange).
	Settings []Setting `json:"settings,omitempty"`
	// SettingsRefused are the host's settings files with a change refused while the
	// session's host runs (in this loop or an earlier one): the host keeps what it had read
	// of them, but reads every file again with any change it takes (seen on Claude Code
	// 2.1.330), so while one is listed every change is refused.
	SettingsRefused []string `json:"settings_refused,omitempty"`
	// Sandbox is the host's sandbox for the agent's shell when the loop was armed:
	// SandboxOn, or why it was off ("": not known).
	Sandbox string `json:"sandbox,omitempty"`
	// SandboxRoots are what the host's sandbox let the agent's shell write when the loop was
	// armed (nil: no sandbox, or not known): the loop's checks run in the same wall, and the
	// programs a hook runs are never found there.
	SandboxRoots *SandboxRoots `json:"sandbox_roots,omitempty"`
	// HookBinaries are the programs the host's hooks run, as read from its settings when
	// the loop was armed (or at a later stop, when they had changed), for the guard to keep
	// without reading every settings file at each tool call (nil: not recorded).
	HookBinaries *HookBinaries `json:"hook_binaries,omitempty"`

	// Pause, when set, says why the active loop waits: the host's model provider refused
	// a turn (a rate limit, an overload, a usage cap). The user's next prompt, or
	// /ralph-loop --resume, goes on with it; the turn that failed used up no iteration.
	Pause *Pause `json:"pause,omitempty"`
	// Work is what the stall breaker (MaxStalls) and the checkpoints keep between stops.
	Work Work `json:"work,omitzero"`
	// Background is the work the host reported in flight at the last stop, each task with
	// when a stop first saw it; WaitSince, while the loop waits with the host for it (its
	// LastAction is ActWaiting), is when the wait began.
	Background []Task    `json:"background,omitempty"`
	WaitSince  time.Time `json:"wait_since,omitzero"`
}

// Task is work the host runs in the background for the session (a shell command, a
// subagent, a monitor) or a wake-up it has scheduled (a cron), as its stop event reports it.
type Task struct {
	ID string `json:"id"`
	// Kind is the host's word for what it is ("shell", "subagent", …; KindCron for a
	// scheduled wake-up).
	Kind string `json:"kind,omitempty"`
	// Name is its description (a cron's: the prompt it will send), Command the shell line
	// it runs (a cron's: its schedule).
	Name    string `json:"name,omitempty"`
	Command string `json:"command,omitempty"`
	// Since is when a stop first saw it in flight.
	Since time.Time `json:"since,omitzero"`
}

// KindCron is Task.Kind for a wake-up the host has scheduled.
const KindCron = "cron"

// Waiting reports whether the active loop waits with the host for its background work.
func (l *Loop) Waiting() bool { return l.Status == Active && l.LastAction == ActWaiting }

// HookBinaries are the programs the host's hooks ran when they were recorded, with a
// fingerprint of the files (and $PATH) they were read from: while the files are as they
// were, so are the programs.
type HookBinaries struct {
	Stamp string   `json:"stamp"`
	Paths []string `json:"paths,omitempty"`
}

// Pause is why and until when an active loop waits.
type Pause struct {
	At time.Time `json:"at"`
	// Error is the host's word for the failure ("rate_limit", "overloaded", …; "" when it
	// gives none); Why says it for people.
	Error string `json:"error,omitempty"`
	Why   string `json:"why"`
	// Until is when the provider said the turn may be tried again (nil: not said).
	Until *time.Time `json:"until,omitempty"`
}

// Work is what the stall breaker and the checkpoints keep of the loop's work tree.
type Work struct {
	// Repo is the top of the git work tree the loop runs in ("" when it is not in one, or
	// git could not be used there: then only tool calls tell progress).
	Repo string `json:"repo,omitempty"`
	// GitDir is the work tree's git directory, where checkpoint refs go ("" in a loop
	// armed before it was recorded: found again from Repo).
	GitDir string `json:"git_dir,omitempty"`
	// Objects is the repository's object directory, which the loop's own objects (without
	// checkpoints) are read over.
	Objects string `json:"objects,omitempty"`
	// Tree is the git tree of the work tree's files as last recorded.
	Tree string `json:"tree,omitempty"`
	// Head is the last checkpoint commit (--checkpoint).
	Head string `json:"head,omitempty"`
	// Checks fingerprints the last check results, to tell a new result from the same failure.
	Checks string `json:"checks,omitempty"`
	// Moved: the iteration in progress has made progress so far.
	Moved bool `json:"moved,omitempty"`
	// Stalls counts the iterations in a row, up to the last stop, without progress; Tools
	// the tool calls and Same the identical check failures among them (what the end says).
	Stalls int `json:"stalls,omitempty"`
	Tools  int `json:"tools,omitempty"`
	Same   int `json:"same,omitempty"`
	// Note says why the work tree is not recorded ("" when it is, or nobody asked).
	Note string `json:"note,omitempty"`
}

// Paused reports whether the loop is active and waits for the user (see Pause).
func (l *Loop) Paused() bool { return l.Status == Active && l.Pause != nil }

// Shown is the loop's status as people read it: PAUSED for an active loop that waits.
func (l *Loop) Shown() Status {
	if l.Paused() {
		return Paused
	}
	return l.Status
}

// Setting is one part of a host's settings, by its digest: a file (Key "": whether it is
// there, and what it is), or one setting of it.
type Setting struct {
	File string `json:"file"`
	Key  string `json:"key,omitempty"`
	Sum  string `json:"sum"`
}

// PendingSettings is Pending.What for a settings change of the host's that was refused.
const PendingSettings = "settings"

// PendingUnpriced is Pending.What for a model with no known price that a cost budget counts
// at the highest prices known: Why is the model.
const PendingUnpriced = "unpriced"

// PendingGoal is Pending.What for what the arming notice said of the host's own goal, in a
// host that does not show the arming notice: Why is the note.
const PendingGoal = "goal"

// SandboxOn is Loop.Sandbox for a loop whose host ran the agent's shell in its sandbox, with
// no way out of it, when the loop was armed.
const SandboxOn = "on"

// SandboxRoots are the parts of the file system a host's sandbox lets the agent's shell
// write: everything else it reads only.
type SandboxRoots struct {
	// Writable are the directories the agent's commands may write.
	Writable []string `json:"writable,omitempty"`
	// ReadOnly are paths inside those that it may not (the sandbox's deny list).
	ReadOnly []string `json:"read_only,omitempty"`
}

// Exposes returns the first of paths the roots let the agent write ("" when none): in a
// writable root, and not in a read-only path. A path and each root are compared as written
// and with their symbolic links resolved.
func (r *SandboxRoots) Exposes(paths ...string) string {
	if r == nil {
		return ""
	}
	in := func(p string, dirs []string) bool {
		for _, d := range dirs {
			if d != "" && (within(p, d) || within(resolved(p), resolved(d))) {
				return true
			}
		}
		return false
	}
	for _, p := range paths {
		if p != "" && in(p, r.Writable) && !in(p, r.ReadOnly) {
			return p
		}
	}
	return ""
}

// Pending is something that happened to a loop that the user has not been told yet.
type Pending struct {
	At time.Time `json:"at"`
	// What is ActRestored (the state was put back from the keep), PendingGoal (the host's
	// own goal was active at arming), PendingSettings (a change
	// of the host's settings refused: whoever made it, the agent or not) or ActRefused (an attempt
	// from inside the session, refused).
	What string `json:"what"`
	// Why says what was found or tried.
	Why string `json:"why"`
}

// Owner is a session's host process, as its hooks found it: the process past any shell
// between the host and the hook, named by pid and start time, and the way its hooks get
// their input. An event that claims to come from the owner must come the same way.
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	Boot  string `json:"boot,omitempty"`
	Comm  string `json:"comm"`
	// Stdin is how the hooks get their input ("socket", "pipe", ...); Peer: a socket made
	// by the owner itself; SameSession: the hooks run in the owner's session.
	Stdin       string `json:"stdin"`
	Peer        bool   `json:"peer,omitempty"`
	SameSession bool   `json:"same_session,omitempty"`
	// PidNS names the owner's process namespace (0: unknown): a process in another one
	// cannot see whether it runs below the owner.
	PidNS uint64 `json:"pid_ns,omitempty"`
}

// TranscriptPos is a read position in a host transcript.
type TranscriptPos struct {
	Path string `json:"path,omitempty"`
	// Offset is where unread lines start; -1 when not known yet (a loop armed by "start"
	// before any hook of the session named the transcript).
	Offset int64 `json:"offset"`
	// Unseen: when the last stop was decided (at UnseenAt), the transcript did not show the
	// agent's last message yet; text before the next user line, or stamped by UnseenAt, is
	// still that iteration's. LateMarker: that stop was blocked without finding the marker,
	// so a marker in that text still counts (the agent's own, read late); otherwise it does
	// not count again.
	Unseen     bool      `json:"unseen,omitempty"`
	UnseenAt   time.Time `json:"unseen_at,omitzero"`
	LateMarker bool      `json:"late_marker,omitempty"`
	// InLine: Offset is inside a line longer than one stop reads, skipped to its end by the
	// next read.
	InLine bool `json:"in_line,omitempty"`
	// UsageID is the id of the last model reply whose usage was counted: a reply written
	// over several lines is counted once, even when a scan ends between them.
	UsageID string `json:"usage_id,omitempty"`
	// Model is the model the transcript last named, for hosts whose usage records do not
	// name theirs.
	Model string `json:"model,omitempty"`
}

// MaxToolIDs bounds Loop.ToolIDs. The two sources of tool calls report the same call within
// one turn, so the most recent ids are enough to count each exactly once.
const MaxToolIDs = 512

// AddToolCall counts a tool call unless its id was counted already. It reports whether it
// counted it. An empty id always counts.
func (l *Loop) AddToolCall(id string) bool {
	if id != "" {
		for _, seen := range l.ToolIDs {
			if seen == id {
				return false
			}
		}
		l.ToolIDs = append(l.ToolIDs, id)
		if n := len(l.ToolIDs) - MaxToolIDs; n > 0 {
			l.ToolIDs = append(l.ToolIDs[:0], l.ToolIDs[n:]...)
		}
	}
	l.ToolCalls++
	l.BlocksSinceTool = 0
	return true
}

// markSeen remembers a tool-use id without counting it.
func (l *Loop) markSeen(id string) {
	for _, seen := range l.ToolIDs {
		if seen == id {
			return
		}
	}
	l.ToolIDs = append(l.ToolIDs, id)
	if n := len(l.ToolIDs) - MaxToolIDs; n > 0 {
		l.ToolIDs = append(l.ToolIDs[:0], l.ToolIDs[n:]...)
	}
}

// CountRecorded counts the tool calls that both the tool log (uses) and the host's own
// record, its transcript (shown: the calls it showed since the last count), hold, each once
// by its id. The tool log is a file anything the agent runs can append to; the transcript
// shows what the host ran, and the log what ran through its tool hooks (a call the host
// refused before it ran is in the transcript alone). A call one record holds waits, in
// Unshown or Unlogged, for the other; a logged call without an id never counts; a denied
// one never counts, whatever the transcript shows.
func (l *Loop) CountRecorded(uses []ToolUse, shown []string) {
	l.Unshown, l.Unlogged = slices.Clone(l.Unshown), slices.Clone(l.Unlogged)
	for _, u := range uses {
		if u.Denied && u.ToolUseID != "" {
			l.markSeen(u.ToolUseID)
		}
	}
	for _, u := range uses {
		id := u.ToolUseID
		switch {
		case u.Denied || id == "" || slices.Contains(l.ToolIDs, id):
		case slices.Contains(l.Unlogged, id):
			l.Unlogged = slices.DeleteFunc(l.Unlogged, func(s string) bool { return s == id })
			l.AddToolCall(id)
		default:
			l.Unshown = appendBounded(l.Unshown, id)
		}
	}
	for _, id := range shown {
		switch {
		case id == "" || slices.Contains(l.ToolIDs, id):
		case slices.Contains(l.Unshown, id):
			l.Unshown = slices.DeleteFunc(l.Unshown, func(s string) bool { return s == id })
			l.AddToolCall(id)
		default:
			l.Unlogged = appendBounded(l.Unlogged, id)
		}
	}
}

// CountShown counts the tool calls the host's transcript showed (shown), each once by its
// id, for a host whose transcript records every call that ran: the tool log's calls only
// mark the ones the guard denied, which never count.
func (l *Loop) CountShown(uses []ToolUse, shown []string) {
	for _, u := range uses {
		if u.Denied && u.ToolUseID != "" {
			l.markSeen(u.ToolUseID)
		}
	}
	for _, id := range shown {
		l.AddToolCall(id)
	}
}

// appendBounded adds id to ids, once, keeping the latest MaxToolIDs.
func appendBounded(ids []string, id string) []string {
	if slices.Contains(ids, id) {
		return ids
	}
	ids = append(ids, id)
	if n := len(ids) - MaxToolIDs; n > 0 {
		ids = append(ids[:0], ids[n:]...)
	}
	return ids
}

// CountToolCalls counts logged tool calls: denied ones are remembered, so that the
// transcript's record of them does not count either, and the others counted once each.
func (l *Loop) CountToolCalls(uses []ToolUse) {
	for _, u := range uses {
		if u.Denied && u.ToolUseID != "" {
			l.markSeen(u.ToolUseID)
		}
	}
	for _, u := range uses {
		if !u.Denied {
			l.AddToolCall(u.ToolUseID)
		}
	}
}

// UnpricedPause is Config.Unpriced for a loop that waits for the user's price.
const UnpricedPause = "pause"

// Who or what ended a loop (Loop.EndedBy).
const (
	ByPromise    = "promise"        // the agent's promise was accepted
	ByLimit      = "limit"          // the iteration limit, the time budget or the token or cost budget
	ByHost       = "host"           // the host's cap on stop blocks
	ByUser       = "user"           // the user's cancel command, typed in the session
	ByTerminal   = "terminal"       // "ralph-loop cancel" outside the session
	ByInside     = "inside-session" // "ralph-loop cancel" run inside the session where who runs it cannot be told
	ByCommand    = "command"        // "ralph-loop cancel" where whether it ran inside the session cannot be told
	ByNewLoop    = "new-loop"       // a new loop replaced it
	BySessionEnd = "session-end"    // the session ended
)

// Finish ends the loop with a final status, saying by whom or what (a By constant).
func (l *Loop) Finish(s Status, by, reason string, now time.Time) {
	l.Status = s
	l.Pause = nil
	l.EndedBy = by
	l.EndReason = reason
	t := now
	l.EndedAt = &t
}

// Event is one line of a session's event log.
type Event struct {
	Version   int       `json:"version"`
	At        time.Time `json:"at"`
	LoopID    string    `json:"loop_id"`
	Iteration int       `json:"iteration"`
	Action    string    `json:"action"`
	Reason    string    `json:"reason"`
	// Tokens and CostUSD, on a stop decision's event, are what the model used in the
	// iteration it decided (CostUSD nil: not known).
	Tokens  int64    `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Checkpoint, on a stop decision's event, is the commit that recorded the work tree at
	// the iteration's end (--checkpoint).
	Checkpoint string `json:"checkpoint,omitempty"`
}

// Event actions.
const (
	ActArmed      = "armed"
	ActBlocked    = "blocked"
	ActAccepted   = "accepted"
	ActMax        = "max_iterations"
	ActCancelled  = "cancelled"
	ActSuperseded = "superseded"
	ActEnded      = "session_ended"
	ActCutByHost  = "cut_by_host"
	ActTurnEnded  = "turn_ended" // the host ended a turn of the loop without a stop (the user's Esc, an error, its block cap)
	ActDenied     = "denied"     // the guard refused a tool call of the agent
	ActChecking   = "checking"   // a promise came: the checks run
	ActCheck      = "check"      // one check's result
	ActTimeBudget = "time_budget"
	ActNoProgress = "no_progress"  // an iteration without a model reply ended the loop
	ActYielded    = "yielded"      // a stop let through for the user's message; the loop goes on after it
	ActMessage    = "message"      // the user typed a message while the agent worked (the turn goes on)
	ActRefused    = "refused"      // an attempt from inside the session to end, re-arm or unhook the loop, refused
	ActRestored   = "restored"     // the loop's state was changed outside ralph-loop and put back
	ActSilent     = "hooks_silent" // the session's hooks stopped answering while its loop was active; another session was told
	ActBudget     = "budget"       // --max-tokens or --max-cost ended the loop
	ActPaused     = "paused"       // the loop waits for the user: the host's model provider refused a turn, or a cost budget waits for a model's price
	ActResumed    = "resumed"      // a paused loop goes on
	ActWaiting    = "waiting"      // a stop let through while the host runs work in the background: no iteration used, the loop goes on when the host wakes the session
	ActWoken      = "woken"        // a prompt came after a wait: the host's wake-up (or the user's message); the loop goes on
	ActInterrupt  = "interrupted"  // the user interrupted the turn (Codex's Interrupt): the loop ended
	ActNotified   = "notified"     // a notification said the loop ended or paused (--notify)
	ActUncounted  = "not_counted"  // a usage record the host could not have written, not counted
	ActUsage      = "usage"        // the last turn's usage, written after the loop ended, counted
	ActError      = "error"        // a stop blocked as the loop stood, without the lock: its decision not recorded
	// ActUnverified: a stop blocked because the active loop's state could not be verified.
	ActUnverified = "unverified"
)

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is path with the symbolic links in its longest existing part followed.
func resolved(path string) string {
	rest := ""
	for d := filepath.Clean(path); ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(d) == d {
			return filepath.Clean(path)
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

// Same reports whether t is the task o: the same id, or, for a task the host gave no id,
// the same kind, name and command.
func (t Task) Same(o Task) bool {
	if t.ID != "" || o.ID != "" {
		return t.ID == o.ID && t.Kind == o.Kind
	}
	return t.Kind == o.Kind && t.Name == o.Name && t.Command == o.Command
}
