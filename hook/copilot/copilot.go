// Package copilot is ralph-loop's host for GitHub Copilot CLI: it reads Copilot CLI's hook
// events into the engine's events, answers in Copilot CLI's protocol, and states its facts.
//
// Facts seen on Copilot CLI 1.0.102 that shape this package:
//   - The events carry no event name: each is told by its own fields (agentStop by
//     stopReason/transcriptPath, postToolUse by toolResult, preToolUse by toolName,
//     userPromptSubmitted by prompt, sessionStart by source, sessionEnd by reason).
//   - agentStop carries no last assistant message: the turn's text is read from the
//     transcript, $COPILOT_HOME/session-state/<id>/events.jsonl, which lags (missing at the
//     first stop, often ending at the previous turn when the hook starts). The stop hook's
//     own hook.start line, with the event's timestamp, shows the turn has reached it.
//   - postToolUse carries no tool-call id: tool calls are counted from the transcript's
//     tool.execution_complete lines (toolCallId), once each, less the ones a hook denied;
//     postToolUse is not used.
//   - A blocked stop's reason reaches userPromptSubmitted as the next prompt: it is not
//     the user's prompt.
//   - Only {"decision":"block","reason":R} on stdout blocks a stop (or refuses a prompt);
//     exit 2 blocks nothing but shows the hook's stderr to the user ("! text"), which is how
//     notices reach the user. {"additionalContext":C} from the prompt hook reaches the model
//     (in a <system_reminder> block); systemMessage and stderr at exit 0 are shown nowhere.
//   - Copilot CLI ends a turn after 8 consecutive stop blocks, tool calls in between do not
//     reset the count, and no setting raises it.
package copilot

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/inject"
)

// Name is the host's name on the command line and in state files.
const Name = "copilot"

// BlockCap is how many consecutive stop blocks Copilot CLI honours; the next one is ignored
// and the turn ends. Tool calls do not reset the count and nothing raises it.
const BlockCap = 8

// Host is GitHub Copilot CLI.
type Host struct{}

var (
	_ hook.Host = Host{}
)

// Name returns "copilot".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "GitHub Copilot CLI"

// Words are Copilot CLI's facts for texts.
var Words = inject.Words{
	Name:           Name,
	Display:        display,
	MessageCap:     9500,
	Cap:            inject.Cap{CountsTools: true},
	SteersCommands: true,
}

// Facts states Copilot CLI's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	return hook.Facts{
		Hooks:       hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, cwd, "config.json") }},
		Words:       Words,
		BlockCap:    BlockCap,
		StopTimeout: func() time.Duration { return stopTimeout(getenv, cwd) },
		ProjectDir:  cwd,
		// postToolUse has no id: every call is counted by the transcript's toolCallId.
		Transcript: &hook.Transcript{Read: Transcript, Lags: true, Record: hook.RecordShown},
		CLI:        "copilot",
	}
}

// stopTimeout is the agentStop hook's timeout as the installed hooks give it, or Copilot
// CLI's default of 30 s.
func stopTimeout(getenv func(string) string, project string) time.Duration {
	if d, ok := Installer.HookTimeout("agentStop", project, getenv); ok {
		return d
	}
	return 30 * time.Second
}

// input is the part of a Copilot CLI hook event that ralph-loop uses.
type input struct {
	key                                    string
	SessionID, Cwd, TranscriptPath         string
	Prompt, StopReason, Source, Reason     string
	ToolName, Command, Path, InitialPrompt string
	Timestamp                              string // milliseconds, as JSON text
	StopActive                             bool
}

// decodeInput reads one event object from r.
func decodeInput(r io.Reader) (input, error) {
	var in input
	args := &wire.Spec{Loose: map[string]*string{"command": &in.Command, "path": &in.Path}}
	result := &wire.Spec{}
	spec := &wire.Spec{
		Strings: map[string]*string{
			"sessionId": &in.SessionID, "cwd": &in.Cwd, "transcriptPath": &in.TranscriptPath,
			"prompt": &in.Prompt, "stopReason": &in.StopReason, "source": &in.Source,
			"reason": &in.Reason, "toolName": &in.ToolName, "initialPrompt": &in.InitialPrompt,
		},
		Bools:   map[string]*bool{"stop_hook_active": &in.StopActive},
		Numbers: map[string]*string{"timestamp": &in.Timestamp},
		Objects: map[string]*wire.Spec{"toolArgs": args, "toolResult": result},
	}
	key, err := wire.Decode(r, spec)
	if err != nil {
		return in, err // wraps hook.ErrInput, which is wire.ErrInput
	}
	in.key = key
	return in, nil
}

// shellTool is the name of Copilot CLI's shell tool; writeTools write the file at
// toolArgs.path (the tools Copilot CLI 1.0.102 offers the model).
const shellTool = "bash"

var writeTools = []string{"create", "edit"}

// editorTool writes toolArgs.path unless its toolArgs.command is "view"; patchTool applies a
// patch in apply_patch's form, which Copilot CLI hands over as toolArgs itself, a string
// (the tool's input is free text), not an object.
const (
	editorTool = "str_replace_editor"
	patchTool  = "apply_patch"
)

// patchArgs is apply_patch's patch: toolArgs as a string, or the first string field of
// toolArgs as an object (input, patch), or a string that holds such an object.
func patchArgs(raw []byte) string {
	var v struct {
		ToolArgs json.RawMessage `json:"toolArgs"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var str string
	if json.Unmarshal(v.ToolArgs, &str) == nil {
		if !strings.HasPrefix(strings.TrimSpace(str), "{") {
			return str
		}
		v.ToolArgs = json.RawMessage(str)
	}
	var obj map[string]any
	if json.Unmarshal(v.ToolArgs, &obj) != nil {
		return str
	}
	for _, k := range []string{"input", "patch", "patchText", "command"} {
		if p, ok := obj[k].(string); ok && p != "" {
			return p
		}
	}
	return str
}

// Decode reads one Copilot CLI hook event, telling the event by its fields.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return hook.Event{}, fmt.Errorf("%w: %v", hook.ErrInput, err)
	}
	in, err := decodeInput(strings.NewReader(string(raw)))
	if err != nil {
		return hook.Event{}, err
	}
	if in.SessionID == "" {
		return hook.Event{}, fmt.Errorf("%w: no sessionId", hook.ErrInput)
	}
	has := fields(raw)
	ev := hook.Event{SessionID: in.SessionID, Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, Key: in.key}
	switch {
	case has["stopReason"] || has["transcriptPath"] || has["stop_hook_active"]:
		ev.Name, ev.Kind = "agentStop", hook.Stop
		if in.Timestamp != "" {
			ev.TurnMark = in.Timestamp
		}
	case has["toolResult"]:
		// No tool-call id: the call is counted from the transcript.
		ev.Name = "postToolUse"
	case has["toolName"]:
		ev.Name, ev.Kind, ev.ToolName = "preToolUse", hook.ToolCheck, in.ToolName
		switch {
		case in.ToolName == shellTool:
			ev.ToolKind, ev.Command = hook.ShellTool, in.Command
		case slices.Contains(writeTools, in.ToolName):
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.Path
		case in.ToolName == editorTool && in.Command != "view":
			// str_replace_editor: create, str_replace, insert, undo_edit at toolArgs.path.
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.Path
		case in.ToolName == patchTool:
			ev.ToolKind, ev.Patch = hook.PatchTool, patchArgs(raw)
		}
	case has["prompt"]:
		ev.Name = "userPromptSubmitted"
		// A blocked stop's reason comes back as a prompt: it is the same turn going on,
		// not the user's (which would restart the count of blocks against the cap).
		// Copilot CLI also sends a background command's end as a prompt of its own
		// (<system_notification>…): not the user's either.
		if inject.IsContinuation(in.Prompt) {
			ev.Kind, ev.Prompt = hook.Continuation, in.Prompt
		} else if !strings.HasPrefix(in.Prompt, "<system_notification>") {
			ev.Kind, ev.Prompt = hook.Prompt, in.Prompt
			if c, ok := skillCommand(in.Prompt); ok {
				ev.Prompt = c
			}
		}
	case has["initialPrompt"] || (has["source"] && !has["reason"]):
		ev.Name, ev.Kind, ev.Source = "sessionStart", hook.SessionStart, in.Source
	case has["reason"]:
		ev.Name, ev.Kind, ev.Reason = "sessionEnd", hook.SessionEnd, in.Reason
	default:
		ev.Name = "unknown"
	}
	return ev, nil
}

// fields returns the names of the object's top-level fields (raw is known to be one object).
func fields(raw []byte) map[string]bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	has := make(map[string]bool, len(m))
	for k := range m {
		has[k] = true
	}
	return has
}

// Encode writes the reply in Copilot CLI's protocol: a blocked stop or a refused
// prompt as {"decision":"block","reason":R}, a denied tool call as permissionDecision
// "deny", context for the model as additionalContext; a notice goes on stderr with exit
// code 2, which Copilot CLI shows the user and which blocks nothing. A notice that comes
// with a block is not shown (Copilot CLI would ignore the block at exit 2).
func (Host) Encode(w, stderr io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	if rep.Empty() {
		return 0, nil
	}
	out := map[string]string{}
	switch {
	case rep.Block && (ev.Kind == hook.Stop || ev.Kind == hook.Prompt || ev.Kind == hook.Continuation):
		out["decision"], out["reason"] = "block", rep.Reason
	case rep.Deny && ev.Kind == hook.ToolCheck:
		out["permissionDecision"], out["permissionDecisionReason"] = "deny", rep.DenyReason
	}
	if rep.Context != "" && ev.Kind == hook.Prompt && !rep.Block {
		out["additionalContext"] = rep.Context
	}
	if len(out) > 0 {
		if err := wire.WriteJSON(w, out); err != nil {
			return 1, err
		}
	}
	if rep.Notice != "" && out["decision"] == "" && out["permissionDecision"] == "" {
		if _, err := fmt.Fprintln(stderr, rep.Notice); err != nil {
			return 1, err
		}
		return 2, nil
	}
	return 0, nil
}

// Copilot CLI's TUI hands the prompt hook a skill the user invoked by name ("/ralph-loop
// ARGS") as this text, with the skill's directory and body in between (seen on 1.0.102):
//
//	The user explicitly invoked the "/NAME" skill. Follow its instructions now.
//
//	<skill-context name="NAME">
//	Base directory for this skill: DIR
//
//	BODY
//
//
//	ARGUMENTS: ARGS
//	</skill-context>
//
// with no ARGUMENTS line when nothing follows the name.
const (
	skillInvoked = "The user explicitly invoked the \"/"
	skillFollow  = "\" skill. Follow its instructions now.\n\n<skill-context name=\""
	skillArgs    = "\n\n\nARGUMENTS: "
	skillEnd     = "\n</skill-context>"
)

// skillCommands are the skills install writes, by the command each stands for.
var skillCommands = []string{"ralph-loop", "ulw-loop", "cancel-ralph"}

// skillCommand returns the loop command a prompt invoking one of ralph-loop's skills stands
// for, as typed: "/NAME ARGS". ok is false for any other prompt.
func skillCommand(prompt string) (string, bool) {
	rest, ok := strings.CutPrefix(prompt, skillInvoked)
	if !ok {
		return "", false
	}
	name, rest, ok := strings.Cut(rest, skillFollow)
	if !ok || !slices.Contains(skillCommands, name) {
		return "", false
	}
	rest, ok = strings.CutPrefix(rest, name+"\">\n")
	if !ok {
		return "", false
	}
	body, ok := strings.CutSuffix(rest, skillEnd)
	if !ok {
		return "", false
	}
	// The body is ralph-loop's own (it holds no ARGUMENTS line): the first one is the
	// host's, and everything after it is the user's text, newlines and all.
	if _, args, ok := strings.Cut(body, skillArgs); ok {
		return "/" + name + " " + args, true
	}
	return "/" + name, true
}
