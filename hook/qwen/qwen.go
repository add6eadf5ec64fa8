// Package qwen is ralph-loop's host for Qwen Code: it reads Qwen Code's hook events into
// the engine's events, answers in Qwen Code's protocol, and states its facts.
//
// Qwen Code's hooks are Claude Code's in shape (the same event names, fields and output
// JSON), so decoding and encoding build on package claudeshape. The differences are facts
// kept here: UserPromptSubmit fires before every model request (after each tool result and
// each continuation too), and only the user's own prompt carries submitted_prompt; tool
// calls are named by the provider's tool_call_id; the cap on consecutive stop blocks counts
// the block it overrides and is not reset by tool calls; hook timeouts of 1000 or more are
// milliseconds; notices from the prompt hook are never shown to the user.
package qwen

import (
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/inject"
)

// Name is the host's name on the command line and in state files.
const Name = "qwen"

// Host is Qwen Code.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "qwen".
func (Host) Name() string { return Name }

// Settings and variables of Qwen Code's cap on consecutive stop blocks: with a cap of N the
// Stop hook is called N times and its N-th block is overridden, so N-1 continuations run;
// tool calls in between do not reset the count. The variable wins over the settings.
const (
	BlockCapSetting = "stopHookBlockingCap"
	BlockCapEnv     = "QWEN_CODE_STOP_HOOK_BLOCK_CAP"
	DefaultBlockCap = 8
	MaxBlockCap     = 100
)

// SessionEnv holds the session id in every hook's environment.
const SessionEnv = "QWEN_CODE_SESSION_ID"

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Qwen Code"

// Words are Qwen Code's facts for texts.
var Words = inject.Words{
	Name:                 Name,
	Display:              display,
	MessageCap:           9500,
	Cap:                  inject.Cap{Setting: BlockCapSetting, CountsTools: true, CountsOverride: true, Max: MaxBlockCap},
	ContextEscapesMarkup: true,              // additionalContext reaches the model with < and > as &lt; &gt;
	HidesPromptNotice:    true,              // a UserPromptSubmit systemMessage only goes to the debug log
	QueuesCommands:       true,              // a slash command typed while the agent works waits for the turn's end
	BlockLabel:           "Stop hook error", // what its TUI calls a block's reason
	// A command its UserPromptExpansion hook blocks (or stops) is shown as an error,
	// "UserPromptExpansion blocked: <reason>"; letting it through sends it to the model
	// (0.24.4's slashCommandProcessor): the cancel is answered by a block that says so.
	AnswerLabel: "UserPromptExpansion blocked",
}

// Facts states Qwen Code's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := projectDir(getenv, cwd)
	limit, from := blockCap(getenv, project)
	w := Words
	w.Cap.Setting = from
	return hook.Facts{
		Hooks:       hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, project) }},
		Words:       w,
		BlockCap:    limit - 1, // the blocks Qwen Code lets through
		StopTimeout: func() time.Duration { return stopTimeout(getenv, project) },
		ProjectDir:  project,
		// The Stop event's last_assistant_message is exactly the turn's last answer, and
		// every call that runs fires PostToolUse or PostToolUseFailure (a call refused
		// before it runs fires neither): the transcript is read for the model's usage only.
		// Qwen Code shows neither SessionStart's notice nor the prompt hook's: what became
		// of a resumed session's loop is told at its first stop.
		Transcript:         &hook.Transcript{Read: Transcript, Lags: true},
		ResumeNoticeHidden: true,
		CLI:                "qwen",
		SessionEnv:         SessionEnv,
		Commands:           hook.Commands{Event: commandEvent(getenv, project)},
	}
}

// ExpansionEvent is the event Qwen Code fires when it expands a slash command of a command
// file, before UserPromptSubmit: it carries the command's name and its arguments as typed
// (UserPromptSubmit's submitted_prompt holds "[Pasted Content N chars]" for a long paste),
// and its block refuses the command without sending it.
const ExpansionEvent = "UserPromptExpansion"

// commandEvent is ExpansionEvent when the installed hooks receive it ("" for hooks installed
// before it was, whose loop commands arm from UserPromptSubmit as before).
func commandEvent(getenv func(string) string, project string) string {
	if _, ok := Installer.HookTimeout(ExpansionEvent, project, getenv); ok {
		return ExpansionEvent
	}
	return ""
}

// loopCommands are the command files' names that are loop commands.
var loopCommands = []string{"ralph-loop", "ulw-loop", "cancel-ralph"}

// projectDir is where the session's project is: $QWEN_PROJECT_DIR (set for hooks), or the
// session's directory.
func projectDir(getenv func(string) string, cwd string) string {
	if d := getenv("QWEN_PROJECT_DIR"); d != "" {
		return d
	}
	return cwd
}

// input is the part of a Qwen Code hook event that ralph-loop uses: Claude Code's fields
// and Qwen Code's own.
type input struct {
	claudeshape.Input
	// SubmittedPrompt is the user's prompt as typed; only the prompt the user submitted
	// carries it (not the sends after tool results or continuations).
	SubmittedPrompt string
	// ToolCallID is the provider's id of the tool call (tool_use_id is Qwen Code's own).
	ToolCallID string
	// CommandName and CommandArgs are UserPromptExpansion's: the command file's name and
	// the text typed after it.
	CommandName, CommandArgs string
}

// decodeInput reads one event object from r, with Qwen Code's fields beside Claude Code's.
func decodeInput(r io.Reader) (input, error) {
	var in input
	spec := claudeshape.InputSpec(&in.Input)
	spec.Strings["submitted_prompt"] = &in.SubmittedPrompt
	spec.Strings["tool_call_id"] = &in.ToolCallID
	spec.Strings["command_name"] = &in.CommandName
	spec.Strings["command_args"] = &in.CommandArgs
	in.CronsField(spec)
	err := claudeshape.DecodeWith(r, &in.Input, spec)
	return in, err
}

// Tool names of Qwen Code's built-in tools that the guard looks at.
const (
	shellTool = "run_shell_command"
)

var writeTools = []string{"write_file", "edit", "notebook_edit"}

// Decode reads one Qwen Code hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	in, err := decodeInput(r)
	if err != nil {
		return hook.Event{}, err
	}
	// SessionStart, SessionEnd and StopFailure are read as Claude Code's are; Qwen Code's
	// StopFailure comes when an API error or its loop detector ended the turn (not for API
	// errors in -p runs).
	ev := claudeshape.Event(&in.Input)
	id := in.ToolCallID
	if id == "" {
		id = in.ToolUseID
	}
	switch in.Event {
	case "UserPromptSubmit":
		// Fired before every model request; "prompt" is then the tool results' (empty)
		// or a Stop hook's reason. Only the user's own submission is a prompt: the others
		// are the same turn going on, and must not restart the count of blocks.
		if in.SubmittedPrompt != "" {
			ev.Kind, ev.Prompt = hook.Prompt, in.SubmittedPrompt
		}
	case ExpansionEvent:
		if name := strings.TrimPrefix(in.CommandName, "/"); slices.Contains(loopCommands, name) {
			ev.Kind, ev.Prompt = hook.Prompt, strings.TrimRight("/"+name+" "+in.CommandArgs, " ")
		}
	case "Stop":
		ev.Kind, ev.LastMessage = hook.Stop, in.LastAssistantMessage
		// background_tasks lists Qwen Code's background subagents, finished ones too (its
		// background shells are not in it: see Transcript.Background).
		ev.Background = claudeshape.Background(&in.Input, func(status string) bool { return status == "running" })
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, id
		// A call the user stopped (Esc) did no work: it is not counted.
		ev.Aborted = in.Event == "PostToolUseFailure" && in.Interrupt
		if in.Event == "PostToolUse" && slices.Contains(writeTools, in.ToolName) {
			ev.ToolKind = hook.WriteTool
		}
	case "PreToolUse":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, in.ToolName, id
		switch {
		case in.ToolName == shellTool:
			ev.ToolKind, ev.Command = hook.ShellTool, in.Command
		case slices.Contains(writeTools, in.ToolName):
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.FilePath
		}
	}
	return ev, nil
}

// Encode writes the reply as Qwen Code's hook output JSON, which is Claude Code's: a block
// as decision and reason, the notice as systemMessage (shown on stderr in -p runs, for Stop
// only), context and denials in hookSpecificOutput; exit code 0, nothing for an empty reply.
func (Host) Encode(w, stderr io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	return claudeshape.Encode(w, stderr, ev, rep)
}
