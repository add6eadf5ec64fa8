// Package gemini is ralph-loop's host for Gemini CLI: it reads Gemini CLI's hook events
// (BeforeAgent, AfterAgent, BeforeTool, AfterTool, SessionStart, SessionEnd) into the
// engine's events, answers in Gemini CLI's protocol, reads its chat transcript, and states
// its facts.
package gemini

import (
	"io"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/inject"
)

// DefaultModel is Gemini CLI 0.61.0's DEFAULT_GEMINI_MODEL (its bundle): the price table must know it.
const DefaultModel = "gemini-2.5-pro"

// Name is the host's name on the command line and in state files.
const Name = "gemini"

// Host is Gemini CLI.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "gemini".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Gemini CLI"

// Words are Gemini CLI's facts for texts.
var Words = inject.Words{
	Name:    Name,
	Display: display,
	// No cap on a block reason was seen (it becomes the next user message verbatim); the
	// default keeps a continuation a readable size.
	MessageCap: inject.DefaultMessageCap,
	// additionalContext reaches the model with < and > escaped (the block reason does not).
	ContextEscapesMarkup: true,
	// Its TUI follows the first blocked AfterAgent of a prompt with "This request failed.
	// Press F12 for diagnostics…", and no reply can avoid it: to continue the agent, an
	// AfterAgent hook must answer decision "block" or "deny" (DefaultHookOutput's
	// isBlockingDecision), GeminiClient.sendMessageStream then yields an
	// AgentExecutionBlocked event, and the TUI's handleAgentExecutionBlockedEvent always
	// calls maybeAddLowVerbosityFailureNote, which adds the line once per user prompt unless
	// ui.errorVerbosity is "full" or the CLI runs with --debug (0.61.0's bundle,
	// interactiveCli-*.js). The first block's notice says it is the loop going on (Facts
	// drops the note when the settings set ui.errorVerbosity to "full").
	BlockLabel: FailureNote,
	// A prompt a hook blocks is shown as a warning, "Agent execution blocked: <reason>",
	// then the FailureNote. The other way to end a prompt without a model call, continue
	// false ("Agent execution stopped", an info line), adds the prompt (the cancel's command
	// text) to the chat history the model reads at the next prompt
	// (GeminiClient.sendMessageStream in 0.61.0's bundle), so the cancel is answered by a
	// block, whose reason says it is no error.
	AnswerLabel:   "Agent execution blocked",
	LabelsPrompts: true,
}

// FailureNote is the start of the line Gemini CLI's TUI adds after a prompt's first blocked
// AfterAgent while ui.errorVerbosity is not "full": "This request failed. Press F12 for
// diagnostics, or run /settings and change "Error Verbosity" to full for full details."
const FailureNote = "This request failed"

// words are Words as the settings in effect make them: with ui.errorVerbosity "full" (the
// project's setting over the user's), Gemini CLI shows no FailureNote, so the first block's
// notice does not speak of it.
func words(getenv func(string) string, project string) inject.Words {
	w := Words
	if Installer.Setting(project, getenv, "ui", "errorVerbosity") == "full" {
		w.BlockLabel = ""
	}
	return w
}

// Tool names of Gemini CLI 0.61.0.
const (
	ShellTool = "run_shell_command"
	WriteTool = "write_file"
	EditTool  = "replace"
)

// ProjectEnv holds the project directory in every hook's environment.
const ProjectEnv = "GEMINI_PROJECT_DIR"

// DefaultTimeout is Gemini CLI's hook timeout when the settings give none.
const DefaultTimeout = 60 * time.Second

// Facts states Gemini CLI's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := getenv(ProjectEnv)
	if project == "" {
		project = cwd
	}
	return hook.Facts{
		Hooks:       hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, project, trustedFoldersFile(getenv, "")) }},
		Words:       words(getenv, project),
		BlockCap:    0, // an always-blocking hook ran 2,273 continuations
		StopTimeout: func() time.Duration { return stopTimeout(getenv, project) },
		ProjectDir:  project,
		Transcript: &hook.Transcript{
			Read: Transcript,
			// The chat file is complete when AfterAgent starts (seen in every run).
			Lags: false,
			// Tool calls are counted from AfterTool alone: the transcript records a call the
			// CLI refused (unknown tool, denied by a hook) like one that ran, with status
			// "error", and AfterTool carries no id to match it by.
			Record: hook.RecordNone,
			// After its loop detector aborts a turn, Gemini CLI answers each block with
			// another AfterAgent and no model call.
			StopsWithoutReply: true,
		},
		CLI: "gemini",
		// GEMINI_SESSION_ID is set for hooks only, not in the shell tool's environment.
		SessionEnv: "",
		// Every turn ends with AfterAgent (with no reply after an interrupt or the loop
		// detector's halt of a text reply) but one its loop detector halts on a tool call:
		// the call is left pending, and GeminiClient.fireAfterAgentHookSafe fires nothing
		// for a turn with pending calls (0.61.0's bundle).
		Halts: "its loop detector halted it: \"A potential loop was detected\"",
	}
}

// Input is the part of a Gemini CLI hook event that ralph-loop uses: Claude Code's field
// names (claudeshape.Input; the shell tool's dir_path too), and how AfterTool's tool_response
// starts. prompt_response is never read: it joins the streamed chunks and accumulates over
// continuations, so it holds earlier iterations' text.
type Input struct {
	claudeshape.Input
	// ToolOutput and ToolDisplay are the first wire.MaxHead bytes of AfterTool's
	// tool_response: its llmContent (what the model gets) and returnDisplay (what the user
	// is shown), when they are text.
	ToolOutput, ToolDisplay string
}

// DecodeInput reads one event object from r; malformed input is an error wrapping
// hook.ErrInput.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	spec := claudeshape.InputSpec(&in.Input)
	spec.Objects["tool_response"] = &wire.Spec{Heads: map[string]*string{"llmContent": &in.ToolOutput, "returnDisplay": &in.ToolDisplay}}
	err := claudeshape.DecodeWith(r, &in.Input, spec)
	return in, err
}

// CancelledByUser reports whether AfterTool's tool_response is that of a command the user
// stopped with Esc. Gemini CLI 0.61.0's shell tool, aborted by the user, answers in
// llmContent "Command was cancelled by user before it could start." or, wrapped in
// <untrusted_context>, "… before it could complete.", and shows "Command cancelled by user."
// (with --debug, llmContent unwrapped) (its execute in shell-*.js); no AfterAgent follows:
// the turn ends there. A command that ran answers "Output: …" in llmContent whatever it
// printed, and one that timed out says so in other words, so a command cannot write this
// answer: its output can be the display, never llmContent's start (unless the user has
// Gemini CLI summarize the shell's output, when a model writes llmContent).
func CancelledByUser(in Input) bool {
	const (
		start    = "Command was cancelled by user before it could start."
		complete = "Command was cancelled by user before it could complete."
	)
	if in.ToolName != ShellTool {
		return false
	}
	display := in.ToolDisplay
	if !strings.HasPrefix(display, "Command cancelled by user.") && !strings.HasPrefix(display, start) && !strings.HasPrefix(display, complete) {
		return false
	}
	out := strings.TrimPrefix(in.ToolOutput, "<untrusted_context>\n")
	return strings.HasPrefix(out, start) || strings.HasPrefix(out, complete)
}

// Decode reads one Gemini CLI hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	in, err := DecodeInput(r)
	if err != nil {
		return hook.Event{}, err
	}
	ev := hook.Event{Name: in.Event, SessionID: in.SessionID, Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, Key: in.Key}
	switch in.Event {
	case "BeforeAgent":
		if inject.IsContinuation(in.Prompt) {
			// A blocked stop's reason becomes the next user message, and BeforeAgent fires
			// for it: it is the loop going on, not the user's prompt (and it is refused when
			// its loop ended meanwhile, e.g. by Esc).
			ev.Kind, ev.Prompt = hook.Continuation, in.Prompt
			return ev, nil
		}
		ev.Kind, ev.Prompt = hook.Prompt, inject.TypedTOML(in.Prompt)
	case "AfterAgent":
		ev.Kind = hook.Stop
	case "AfterTool":
		// AfterTool fires once for each call that ran, and carries no id: the event's key
		// (a hash of its bytes, which hold the call's time, input and output) stands for
		// one, so that a duplicate delivery counts once.
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, "aftertool:"+in.Key
		// Esc while a command runs: Gemini CLI cancels it and ends the turn with no
		// AfterAgent. The loop ends there, as the first block's notice says (EscEnds).
		ev.Interrupted = CancelledByUser(in)
		if in.ToolName == WriteTool || in.ToolName == EditTool {
			ev.ToolKind = hook.WriteTool
		}
	case "BeforeTool":
		ev.Kind, ev.ToolName = hook.ToolCheck, in.ToolName
		switch in.ToolName {
		case ShellTool:
			ev.ToolKind, ev.Command, ev.ToolDir = hook.ShellTool, in.Command, in.Dir
		case WriteTool, EditTool:
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.FilePath
		}
	case "SessionStart":
		ev.Kind, ev.Source = hook.SessionStart, in.Source
	case "SessionEnd":
		ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
	}
	return ev, nil
}

// output is Gemini CLI's hook output object.
type (
	output   = claudeshape.Output
	specific = claudeshape.Specific
)

// Encode writes the reply as Gemini CLI's hook output JSON, exit code 0: a block is
// decision "block" (the reason becomes the next user message after AfterAgent, and refuses
// the prompt after BeforeAgent), a denied tool decision "deny", context
// hookSpecificOutput.additionalContext, a notice systemMessage. An empty reply writes nothing.
func (Host) Encode(w, _ io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	out := output{SystemMessage: rep.Notice}
	switch {
	case rep.Deny:
		out.Decision, out.Reason = "deny", rep.DenyReason
	case rep.Block:
		out.Decision, out.Reason = "block", rep.Reason
		if ev.Kind == hook.Prompt || ev.Kind == hook.Continuation {
			// Gemini CLI shows systemMessage instead of the reason of a refused prompt.
			out.SystemMessage = ""
		}
	}
	if rep.Context != "" && !rep.Block {
		out.HookSpecificOutput = &specific{HookEventName: ev.Name, AdditionalContext: rep.Context}
	}
	return claudeshape.WriteOutput(w, out)
}
