package hook

import (
	"io"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/guard"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// Host translates one agent CLI's hook protocol: it decodes the host's event into an
// Event, encodes the engine's Reply in the host's own form, and states the facts the engine
// needs about the host. A host knows nothing of loops; the engine knows nothing of hosts.
type Host interface {
	// Name is the host's name on the command line and in state files ("claude").
	Name() string
	// Decode reads one hook event. An event the engine does not handle decodes to Kind
	// Ignored; input that is not a usable event is an error wrapping ErrInput.
	Decode(r io.Reader) (Event, error)
	// Encode writes rep for ev in the host's protocol to stdout (nothing at all when rep is
	// empty) and, for a host that shows the user a hook's stderr, its notice to stderr
	// (Copilot CLI, Cursor; Factory Droid's refused prompt), and returns the process exit
	// code.
	Encode(stdout, stderr io.Writer, ev Event, rep Reply) (int, error)
	// Facts are the host's facts for an event, as the hook's environment and the session's
	// directory make them (a block cap raised in the settings, the hook's timeout).
	Facts(getenv func(string) string, cwd string) Facts
}

// ErrInput means the hook's stdin is not a usable event.
var ErrInput = wire.ErrInput

// Kind is what happened.
type Kind int

// Event kinds.
const (
	// Ignored: an event the engine does not handle (the host's reply is empty).
	Ignored Kind = iota
	// Prompt: the user submitted a prompt; Event.Prompt is the raw text as typed.
	Prompt
	// Stop: the agent tried to end its turn.
	Stop
	// ToolUsed: a tool call ran (or failed while running).
	ToolUsed
	// ToolCheck: a tool call is about to run; the reply may deny it.
	ToolCheck
	// SessionStart: a session started, resumed, was cleared or compacted.
	SessionStart
	// SessionEnd: the session ended.
	SessionEnd
	// Said: the agent finished a message; Event.Text is the message and Event.TurnMark the
	// turn it belongs to (the stop of that turn has the same TurnMark). For hosts that hand
	// the agent's text to a hook of its own (Transcript.SaidLog).
	Said
	// ConfigChange: one of the host's settings files changed (Event.ConfigFile) while the
	// session runs; the reply may refuse the change (Facts.Hooked).
	ConfigChange
	// Continuation: a blocked stop's reason, handed back to the prompt hook as the next
	// prompt (Copilot CLI queues it, and may send it late): Event.Prompt is the reason. The
	// reply refuses one whose loop has ended or gone past it.
	Continuation
	// Failed: the turn ended because the host's model provider refused it (a rate limit, an
	// overload, a usage cap, billing), and no stop comes for it (Claude Code's StopFailure):
	// Event.Error is the host's word for the failure, Event.LastMessage what it showed.
	Failed
	// Interrupted: the user interrupted the agent's turn (Esc, Ctrl-C), and no stop comes
	// for it (Codex's Interrupt).
	Interrupted
	// Halted: the host ended the agent's turn itself, with no stop, and the loop waits for
	// the user's next prompt, which goes on with it: the user stopped the agent
	// (Event.Interrupted: pi's, opencode's and Kilo Code's Esc), or the turn ended on an
	// error the host showed (Event.Error, its name for it where it gives one). The reply
	// tells the user the loop is still active, and how to go on or end it.
	Halted
)

// ToolKind says what a tool call does, for the guard (see package guard).
type ToolKind = guard.Kind

// Tool kinds.
const (
	// OtherTool is a tool the guard does not look at (reads, searches, web).
	OtherTool = guard.None
	// ShellTool runs Event.Command in a shell, in Event.ToolDir (or Event.Cwd).
	ShellTool = guard.Run
	// WriteTool writes the file at Event.FilePath.
	WriteTool = guard.Write
	// DeleteTool deletes the file at Event.FilePath.
	DeleteTool = guard.Delete
	// PatchTool applies the patch Event.Patch (apply_patch's form) to the files it names.
	PatchTool = guard.Patch
)

// Event is one hook event, as the engine sees it.
type Event struct {
	Kind Kind
	// Name is the host's name for the event, for messages ("Stop", "AfterAgent").
	Name      string
	SessionID string
	Cwd       string
	// FallbackCancel: a plugin of ralph-loop's own, running in the host's process, says it
	// answered the user's /cancel-ralph itself while it could not run ralph-loop (and
	// recorded it in the session's cancel-typed): the host's own word that the hooks saw
	// ralph-loop missing, taken only from the loop's host (see fallback).
	FallbackCancel bool
	// TranscriptPath is where the host keeps the session's transcript ("" if it gives
	// none).
	TranscriptPath string
	// Turn is the host's id of the user turn the event belongs to (Claude Code's
	// prompt_id), "" when the host gives none. A prompt whose turn is the running one was
	// typed while the agent worked: the host hands it over within that turn or queues it.
	Turn string
	// Key identifies this delivery of the event (a hash of the raw input): the same event
	// delivered twice, to two hook processes, has the same key.
	Key string

	// Prompt is the user's prompt, raw (Prompt).
	Prompt string
	// InTurn: the prompt was typed while the agent worked, and the host hands it to the
	// agent within the running turn (for hosts that give no Turn: opencode's plugin sees
	// the session busy, pi's extension the agent streaming).
	InTurn bool
	// CannotLoop, when set, is why the host cannot run a loop in this session (opencode run,
	// which exits at the first idle): a loop command is refused with it.
	CannotLoop string

	// LastMessage is the agent's final message of the turn as the host reports it (Stop;
	// "": none).
	LastMessage string
	// TurnMark, when the host reports no last message (Stop), is what the host's transcript
	// shows once it holds the whole turn (Copilot CLI: the stop hook's own start, by its
	// timestamp). The engine waits for it, bounded, as for LastMessage; the host's Transcript
	// gets it as Options.Last.
	TurnMark string
	// Text, when HasText, is the agent's whole output of the iteration as the host hands
	// it over (hosts without a transcript to read).
	Text    string
	HasText bool
	// HostBlocks is how many blocked stops in a row the host has honoured so far, when its
	// stop event says so (Stop; Cursor's loop_count), for its cap on them; 0 when it does
	// not.
	HostBlocks int
	// Background is the work the host runs in the background for the session, or a
	// wake-up it has scheduled, as it reports them at a stop (Stop; Claude Code's
	// background_tasks and session_crons, Qwen Code's): such a stop waits with the host,
	// which wakes the session when the work ends. Only work in flight is listed.
	Background []state.Task

	// Goal is the host's own goal for the session, as the event reports it (Prompt; Kilo
	// Code's /goal, from the session's metadata; nil: none), for a host whose transcript
	// does not show it (see GoalReader).
	Goal *HostGoal

	// Model is the model the session uses, when the host's event names it (Codex): the
	// model of usage records that name none, and known at arming for --max-cost.
	Model string
	// Usage, for a host that hands over the iteration's messages (HasText), is what the
	// model used for them, as the host recorded it (Stop).
	Usage []spend.Record

	// Tool calls (ToolUsed, ToolCheck).
	ToolName  string
	ToolUseID string
	// ToolKind is what the call does (ToolCheck); for ToolUsed, set only for a call of a
	// tool that writes files (WriteTool, DeleteTool, PatchTool) which completed.
	ToolKind ToolKind
	Command  string // ShellTool
	// Unsandboxed: the shell tool's call asks to run outside the host's sandbox.
	Unsandboxed bool
	FilePath    string // WriteTool, DeleteTool
	// Patch is the patch (PatchTool), whose files are judged each.
	Patch string
	// ToolDir is the directory the tool call runs in, when the host gives one apart from
	// the session's (Cursor's working_directory); relative paths are taken from it.
	ToolDir string
	// Rejected: the host refused the call before it ran (an unknown tool); it is no work.
	Rejected bool
	// Interrupted: the user stopped the call (ToolUsed: Gemini CLI's Esc while a command
	// runs), and the host ends the turn there without a stop event. The loop ends with it,
	// as the user's cancel. On Halted: the user stopped the turn (Esc).
	Interrupted bool
	// Aborted: the user stopped the call before it finished (ToolUsed: Esc while a command
	// runs, on a host whose loop goes on after it): it did not do its work, and is not
	// counted towards --min-tool-calls.
	Aborted bool

	// Source is how the session started (SessionStart): startup, resume, clear, compact;
	// for ConfigChange, which settings changed (user_settings, project_settings, …).
	Source string
	// ConfigFile is the settings file that changed (ConfigChange).
	ConfigFile string
	// Reason is why the session ended (SessionEnd).
	Reason string
	// Error is the host's word for why the model's provider refused the turn (Failed:
	// "rate_limit", "overloaded", "billing_error", …; "" when it gives none), or the
	// host's name for the error a turn ended on (Halted).
	Error string
}

// Reply is the engine's answer to an event. The zero Reply lets everything go on and says
// nothing.
type Reply struct {
	// Block: on Stop, the agent goes on with Reason as its next input; on Prompt, the
	// prompt is dropped and Reason is shown to the user.
	Block  bool
	Reason string
	// Context is added for the model with the user's prompt (Prompt).
	Context string
	// Deny refuses a tool call (ToolCheck), telling the agent DenyReason.
	Deny       bool
	DenyReason string
	// Notice is a line for the user.
	Notice string
	// Failed: ralph-loop could not do its job for this event (it said why on stderr and in
	// Notice); the host should treat it as a hook error that blocks nothing.
	Failed bool
	// Answered, with Block on a Prompt: the prompt was a loop command ralph-loop answered in
	// full (the cancel), and Reason is its answer, not a refusal: nothing of it is for the
	// agent. A host drops it without a model turn where it can, and shows the answer as
	// such where it labels a blocked prompt an error.
	Answered bool
}

// Empty reports whether the reply says and changes nothing.
func (r Reply) Empty() bool { return r == Reply{} }

// Facts are what the engine needs to know about a host.
type Facts struct {
	// Words are the host's facts that texts for people and agents depend on.
	Words inject.Words
	// BlockCap is how many consecutive stop blocks the host honours before it overrides
	// the hook and ends the turn (0: no cap). Whether tool calls between stops reset the
	// host's count is Words.Cap.CountsTools.
	BlockCap int
	// StopTimeout returns the Stop hook's timeout, which checks must fit in (nil or 0:
	// unknown). It may read the host's settings, so it is only called when needed.
	StopTimeout func() time.Duration
	// ProjectDir is the session's project, where .ralph/settings*.json are read.
	ProjectDir string
	// Transcript is the host's record of the agent's turns, which the engine reads at a stop
	// (nil: the host keeps none; its stop event hands over the iteration's text and usage,
	// Event.HasText).
	Transcript *Transcript
	// ResumeNoticeHidden: the host does not show the user a notice given when a session
	// resumes (SessionStart, source resume); what became of the session's loop is told at
	// the user's first prompt instead (or, when the host hides the prompt hook's notices
	// too, inject.Words.HidesPromptNotice, at the first stop).
	ResumeNoticeHidden bool
	// CLI is the host's program name, and SessionEnv the variable that holds the session id
	// in the agent's shell: the guard denies the agent resuming its own session.
	CLI        string
	SessionEnv string
	// Server is the HTTP server of a host that runs one to drive its sessions (nil: none).
	Server *Server
	// Hooks are how ralph-loop's hooks in the host are kept as they were while a loop runs.
	Hooks Hooks
	// Sandbox, for a host that can run the agent's shell in a sandbox of its own, says
	// whether it does for the session whose transcript is given: state.SandboxOn when every
	// shell call runs in it with no way out and none of the trusted paths (ralph-loop's
	// state, its keep, its binary, the host's hook files and settings) within its reach,
	// else why not; and what it lets the agent's shell write (nil: no sandbox, or not
	// known). nil: the host has no sandbox.
	Sandbox func(transcript string, trusted []string) (string, *state.SandboxRoots)
	// Commands are how a host hands over the loop commands the user types, for a host that
	// has ways of its own (the zero Commands: none, they come as typed in the prompt event).
	Commands Commands
	// Halts, for a host that ends every turn with its stop event but the turns it halts
	// itself with none, says how it halts them (Gemini CLI: its loop detector, on a turn
	// whose last reply called a tool). A prompt of the user's, from the loop's own host
	// process, while no stop came since the loop's last turn began, ends the loop
	// NO_PROGRESS, saying so: the host halted that turn, and the loop does not go on with
	// the user's prompt ("": such a prompt is the loop going on).
	Halts string
}

// Transcript is a host's record of the agent's turns and what the engine must know to read
// it: a transcript file, or the messages the host hands to a hook of its own (SaidLog).
type Transcript struct {
	// Read reads the host's transcript (nil with SaidLog).
	Read TranscriptReader
	// Lags: the host writes the transcript asynchronously, so the end of a turn may reach
	// it after the Stop hook has started.
	Lags bool
	// LastMessagePart: the stop event's last message is only the end of the agent's output
	// (Claude Code: the last text block of its final reply); the rest of the turn's text is
	// in the transcript alone, so a stop before the transcript shows the last message has
	// not read all of it.
	LastMessagePart bool
	// Record says what the transcript records of the tool calls, and so what makes a call
	// count: the tool log is a file anything the agent runs can append to, the transcript
	// is the host's own record.
	Record ToolRecord
	// ToolLogLags: the tool hook that logs the calls that ran runs in the background (the
	// host does not wait for it: Claude Code's PostToolUse, installed "async"), so a stop
	// may come before a call of its turn is logged. A call the transcript shows that the
	// log does not hold yet is waited for (Env.ToolWait) only where counting it could change
	// the decision; otherwise the next stop counts it. Record must be RecordBoth.
	ToolLogLags bool
	// StopsWithoutReply: the host can fire its stop hook with no model reply since the last
	// one (Gemini CLI does after its loop detector aborts a turn, answering every block at
	// once without calling the model, and when the user interrupts a turn with Esc). A stop
	// whose transcript shows no new agent message then ends the loop NO_PROGRESS instead of
	// being blocked again, which would spin or override the interrupt.
	StopsWithoutReply bool
	// SaidLog: the host hands each of the agent's messages to a hook of its own (Said
	// events) and keeps no transcript ralph-loop can read (Cursor): the engine keeps the
	// messages of an active loop in the session's said log (state.Said) and reads that as
	// the host's transcript. Read must be nil; Lags says whether a stop can come before its
	// turn's Said event has been handled.
	SaidLog bool
	// NoUsage, when set, says why the host's record holds no usage ralph-loop can read: the
	// token and cost budgets are refused at arming with it.
	NoUsage string
}

// ToolRecord is what a host's transcript records of the agent's tool calls (Transcript.Record).
type ToolRecord int

const (
	// RecordNone: the transcript does not record the calls by the ids the tool hooks log
	// (or the host keeps none): the tool log counts them.
	RecordNone ToolRecord = iota
	// RecordBoth: the transcript shows every call by the id the tool hooks log, calls the
	// host refused before they ran included (an unknown tool fires no tool hook): a call
	// counts once both show it (state.Loop.CountRecorded). Until the transcript has been
	// read for the loop (a session with no transcript file), the tool log counts.
	RecordBoth
	// RecordShown: the transcript shows every call that ran: its calls count, the tool log
	// only marks those the guard denied (state.Loop.CountShown).
	RecordShown
)

// transcript is the host's Transcript facts (the zero Transcript when it keeps none).
func (f Facts) transcript() Transcript {
	if f.Transcript == nil {
		return Transcript{}
	}
	return *f.Transcript
}

// Hooks are how ralph-loop's hooks in a host are kept as they were while a loop runs: the
// guard keeps the agent from changing the files they are in, and a host that asks its hooks
// before a settings change takes effect has the change refused (the zero Hooks: neither).
type Hooks struct {
	// Files, for a host without ConfigChange, returns the files through which the host runs
	// ralph-loop's hooks: the guard keeps the agent from changing them while a loop runs
	// (nil: none). Only called for a tool check of an active loop, and at arming.
	Files func() []string
	// Settings, for a host that asks its hooks before a settings change takes effect
	// (ConfigChange), reads what in its settings, as they now are on disk, decides what it
	// runs and how, read as the host reads it: the loop keeps it from arming, and a change
	// that differs from it is refused while the loop is active. err says what could not be
	// read or told, which refuses any change (nil: no such event).
	Settings func() ([]state.Setting, error)
}

// Server is a host's HTTP server that drives its sessions (opencode serve, and the TUI's
// own), reachable from the agent's shell: the guard denies requests that drive a session.
type Server struct {
	// Ports are the ports it may listen on besides its usual one, as the hook's environment
	// tells them (opencode's plugin passes its server's URL).
	Ports []string
}

// Commands are a host's ways of handing over the loop commands the user types.
type Commands struct {
	// Event is the event that hands the hook a loop command the user typed in full (Qwen
	// Code's UserPromptExpansion, with the command's arguments as typed, where the prompt
	// event has only "[Pasted Content N chars]" for a long paste), when the installed hooks
	// receive it: a loop command in another prompt event was handled there already.
	Event string
	// Text, for a host with forms of its own around a typed loop command (Claude Code: its
	// paste wrapper, the plugin's namespace), returns the prompt with them taken off, or the
	// prompt as it is (nil: none).
	Text func(prompt string) string
}

// ports are the server's ports besides its usual one (none for nil: no server).
func (s *Server) ports() []string {
	if s == nil {
		return nil
	}
	return s.Ports
}

// HostGoal is the host's own goal for a session (Claude Code's /goal, Codex's goals, Qwen
// Code's and Kilo Code's /goal), which keeps the agent going too: a loop armed beside one
// would push the agent twice, and the arming notice says so.
type HostGoal struct {
	// Text is the goal's objective ("" when the host names none).
	Text string
	// Paused: the host has paused it (Kilo Code pauses its goal for any message or
	// command that comes, the loop's command too); it goes on when the user resumes it.
	Paused bool
}

// GoalReader is a TranscriptReader that can tell the host's own built-in goal for the session
// (Claude Code's /goal, Codex's goals): it keeps the agent going too, so a loop armed
// beside one would push the agent twice, and the arming notice says so.
type GoalReader interface {
	// ActiveGoal returns the goal the transcript at path shows active, and whether there
	// is one.
	ActiveGoal(path string) (string, bool)
}

// BackgroundReader is a TranscriptReader that can tell work the host runs in the
// background for the session that its stop event does not list (Qwen Code's background
// shells): a stop waits with it as with Event.Background.
type BackgroundReader interface {
	// Background returns the work in flight for the session whose transcript is at path.
	Background(path, session string) []state.Task
}

// TranscriptReader reads a host's transcript.
type TranscriptReader interface {
	// Scan reads the transcript at path from offset (see transcript.ScanWith).
	Scan(path string, offset int64, opt transcript.Options) (transcript.Result, error)
	// OffsetAfter is where the first line written after t starts (see
	// transcript.OffsetAfter).
	OffsetAfter(path string, t time.Time) (int64, error)
}
