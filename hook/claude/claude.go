// Package claude is ralph-loop's host for Claude Code: it reads Claude Code's hook events
// into the engine's events, answers in Claude Code's protocol, and states its facts.
package claude

import (
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// DefaultModel is the model Claude Code 2.1.330 asks for unless told otherwise (seen in the fake API's recorded requests and in testdata/claude/transcript.*.jsonl): the price table must know it.
const DefaultModel = "claude-opus-5-5"

// Name is the host's name on the command line and in state files.
const Name = "claude"

// Host is Claude Code.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "claude".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Claude Code"

// Words are Claude Code's facts for texts.
var Words = inject.Words{
	Name:       Name,
	Display:    display,
	MessageCap: 9500, // hook output strings are cut at 10,000 UTF-16 units
	Cap:        inject.Cap{Setting: BlockCapEnv},
	SandboxOn:  `"ralph-loop install --sandbox" turns it on`,
}

// BlockCapEnv raises Claude Code's cap on consecutive stop blocks (8 by default; 0: none).
const BlockCapEnv = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"

// SessionEnv holds the session id in every hook's and Bash tool's environment.
const SessionEnv = "CLAUDE_CODE_SESSION_ID"

// Facts states Claude Code's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := projectDir(getenv, cwd)
	return hook.Facts{
		Words:       Words,
		BlockCap:    blockCap(getenv),
		StopTimeout: func() time.Duration { return stopTimeout(getenv, project) },
		ProjectDir:  project,
		// last_assistant_message is the text of the last of the messages Claude Code
		// keeps one per content block (seen with 2.1.330): of a final reply with two text
		// blocks, only the second. Every call that runs fires PostToolUse or
		// PostToolUseFailure; an unknown tool fires neither and is only in the transcript,
		// refused ("No such tool available").
		// PostToolUse is installed async.
		Transcript: &hook.Transcript{Read: Transcript{claudeshape.Scan}, Lags: true, LastMessagePart: true, Record: hook.RecordBoth, ToolLogLags: true},
		// The TUI shows no systemMessage of SessionStart on --continue or --resume (seen
		// with 2.1.330; on a fresh start it does).
		ResumeNoticeHidden: true,
		CLI:                "claude",
		SessionEnv:         SessionEnv,
		Hooks:              hook.Hooks{Settings: func() ([]state.Setting, error) { return SettingsView(getenv, project) }},
		Sandbox: func(_ string, trusted []string) (string, *state.SandboxRoots) {
			return sandboxState(getenv, project, trusted)
		},
		Commands: hook.Commands{Text: CommandText},
	}
}

// blockCap is Claude Code's limit on consecutive stop blocks, as the hook's environment
// (which includes the settings' "env") sets it: 8 unless CLAUDE_CODE_STOP_HOOK_BLOCK_CAP says
// otherwise, 0 for none.
func blockCap(getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv(BlockCapEnv)); err == nil && n >= 0 {
		return n
	}
	return 8
}

// projectDir is where the session's project is: $CLAUDE_PROJECT_DIR (set for hooks), or the
// session's directory.
func projectDir(getenv func(string) string, cwd string) string {
	if d := getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return d
	}
	return cwd
}

// stopTimeout is the Stop hook's timeout: as the settings give it for ralph-loop's hook, or
// Claude Code's default of 600 s.
func stopTimeout(getenv func(string) string, project string) time.Duration {
	if d, ok := Installer.HookTimeout("Stop", project, getenv); ok {
		return d
	}
	return 600 * time.Second
}

// Transcript reads Claude Code's JSONL transcripts (claudeshape.Scan) and the session's
// /goal (ActiveGoal).
type Transcript struct{ transcript.Reader }

// endedStatuses are the words for a background task that has ended.
var endedStatuses = []string{"completed", "failed", "killed", "stopped", "cancelled", "error"}

// writeTools are Claude Code's tools that write files.
var writeTools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}

// Decode reads one Claude Code hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	in, err := claudeshape.DecodeInput(r)
	if err != nil {
		return hook.Event{}, err
	}
	ev := claudeshape.Event(&in)
	ev.Turn = in.PromptID
	switch in.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = hook.Prompt, in.Prompt
	case "Stop":
		ev.Kind, ev.LastMessage = hook.Stop, in.LastAssistantMessage
		// background_tasks lists only work in flight ("running/pending + backgrounded", its
		// schema says; [] once a task has ended, seen with 2.1.332): a status that says it
		// ended is taken at its word all the same.
		ev.Background = claudeshape.Background(&in, func(status string) bool { return !slices.Contains(endedStatuses, status) })
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, in.ToolUseID
		// A call the user stopped (Esc) did no work: it is not counted.
		ev.Aborted = in.Event == "PostToolUseFailure" && in.Interrupt
		if in.Event == "PostToolUse" && slices.Contains(writeTools, in.ToolName) {
			ev.ToolKind = hook.WriteTool // it completed (a failure fires PostToolUseFailure)
		}
	case "PreSkillShellCommand":
		// The shell line of a skill or a command (!`…`), run by Claude Code itself (2.1.332):
		// judged as the agent's shell command, whoever invoked the skill (the agent can write
		// skill and command files; the user's own loop commands have no shell line).
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, in.ToolName, in.ToolUseID
		ev.ToolKind, ev.Command = hook.ShellTool, in.Command
	case "PreToolUse":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, in.ToolName, in.ToolUseID
		switch {
		case in.ToolName == "Bash":
			ev.ToolKind, ev.Command, ev.Unsandboxed = hook.ShellTool, in.Command, in.Unsandboxed
		case slices.Contains(writeTools, in.ToolName):
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.FilePath
		}
	case "ConfigChange":
		ev.Kind, ev.Source, ev.ConfigFile = hook.ConfigChange, in.Source, in.ConfigFile
	}
	return ev, nil
}

// Encode writes the reply as Claude Code's hook output JSON (see claudeshape.Encode).
func (Host) Encode(w, stderr io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	return claudeshape.Encode(w, stderr, ev, rep)
}
