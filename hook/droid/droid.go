// Package droid is ralph-loop's host for Factory Droid: it reads Factory Droid's hook events
// into the engine's events, answers in its protocol, and states its facts.
//
// Factory Droid's hooks are Claude Code's in shape (the same event names, fields and output
// JSON), so decoding and encoding build on package claudeshape. The differences are facts
// kept here: the Stop event carries no last message (the turn's final text is in the
// transcript, Claude-like JSONL, when Stop fires); tool events carry no tool-call id; the
// prompt hook fires only under --input-format stream-jsonrpc and in the TUI, never in plain
// "droid exec", and gets a command file's expansion, not the typed text; there is no cap on
// consecutive stop blocks; and the transcript records no token usage.
package droid

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/inject"
)

// Name is the host's name on the command line and in state files.
const Name = "droid"

// Host is Factory Droid.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "droid".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Factory Droid"

// Words are Factory Droid's facts for texts.
var Words = inject.Words{
	Name:       Name,
	Display:    display,
	MessageCap: 9500,
	// A message typed while the agent works goes to the agent within the turn, never to
	// UserPromptSubmit (seen under stream-jsonrpc).
	SteersCommands: true,
}

// NoUsage is why budgets cannot be kept on Factory Droid: its transcript records no usage
// per reply (only the session's running totals, in a settings file beside it).
const NoUsage = "Factory Droid's transcript records no token usage per reply"

// Facts states Factory Droid's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := projectDir(getenv, cwd)
	return hook.Facts{
		Words:       Words,
		StopTimeout: func() time.Duration { return stopTimeout(getenv, project) },
		ProjectDir:  project,
		// The Stop event has no last message, but the turn's final message is in the
		// transcript before Stop fires (seen with 0.215.0); every call that runs fires
		// PostToolUse, which is what counts tool calls. Stop fires after a model request
		// failed too, with no reply in the transcript (seen: a loop blocked on each went on
		// to its last iteration with no answer).
		Transcript: &hook.Transcript{Read: Transcript, StopsWithoutReply: true, NoUsage: NoUsage},
		Hooks:      hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, project) }},
		CLI:        "droid",
	}
}

// projectDir is where the session's project is: $FACTORY_PROJECT_DIR (set for hooks), or
// the session's directory.
func projectDir(getenv func(string) string, cwd string) string {
	if d := getenv("FACTORY_PROJECT_DIR"); d != "" {
		return d
	}
	return cwd
}

// stopTimeout is the Stop hook's timeout: as the hooks file gives it for ralph-loop's hook,
// or else 60 s (Factory Droid's default was not checked: the shortest any host has).
func stopTimeout(getenv func(string) string, project string) time.Duration {
	if d, ok := Installer.HookTimeout("Stop", project, getenv); ok {
		return d
	}
	return 60 * time.Second
}

// Tool names of Factory Droid's built-in tools that the guard looks at (droid exec
// --list-tools, 0.215.0).
const (
	shellTool = "Execute"
	patchTool = "ApplyPatch"
)

var writeTools = []string{"Create", "Edit"}

// input is a Factory Droid hook event: Claude Code's fields, with ApplyPatch's patch.
type input struct {
	claudeshape.Input
	Patch string
}

// patchText is ApplyPatch's patch from its tool_input.input: the patch text, or, for a model
// offered no ApplyPatch that calls it anyway, the call's raw arguments ({"input": PATCH}),
// which Factory Droid passes on as they came (seen; it then refuses the call).
func patchText(in string) string {
	if !strings.HasPrefix(strings.TrimSpace(in), "{") {
		return in
	}
	var raw struct{ Input string }
	if json.Unmarshal([]byte(in), &raw) == nil && raw.Input != "" {
		return raw.Input
	}
	return in
}

// Decode reads one Factory Droid hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	var in input
	spec := claudeshape.InputSpec(&in.Input)
	spec.Objects["tool_input"].Loose["input"] = &in.Patch
	if err := claudeshape.DecodeWith(r, &in.Input, spec); err != nil {
		return hook.Event{}, err
	}
	ev := hook.Event{Name: in.Event, SessionID: in.SessionID, Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, Key: in.Key}
	switch in.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = hook.Prompt, inject.TypedEchoed(in.Prompt)
	case "Stop":
		ev.Kind = hook.Stop
	case "PostToolUse":
		// PostToolUse carries no tool-call id: the event's key (a hash of its bytes, which
		// hold the call's input and output) stands for one, so that a duplicate delivery
		// counts once.
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, "posttooluse:"+in.Key
		if slices.Contains(writeTools, in.ToolName) || in.ToolName == patchTool {
			ev.ToolKind = hook.WriteTool
		}
	case "PreToolUse":
		ev.Kind, ev.ToolName = hook.ToolCheck, in.ToolName
		switch {
		case in.ToolName == shellTool:
			ev.ToolKind, ev.Command = hook.ShellTool, in.Command
		case slices.Contains(writeTools, in.ToolName):
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.FilePath
		case in.ToolName == patchTool:
			ev.ToolKind, ev.Patch = hook.PatchTool, patchText(in.Patch)
		}
	case "SessionStart":
		ev.Kind, ev.Source = hook.SessionStart, in.Source
	case "SessionEnd":
		ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
	}
	return ev, nil
}

// Encode writes the reply as Factory Droid's hook output JSON, which is Claude Code's: a
// block as decision and reason, a notice as systemMessage, context and denials in
// hookSpecificOutput; exit code 0, nothing for an empty reply. A refused prompt is the
// exception: Factory Droid ignores {"decision":"block"} from UserPromptSubmit and sends the
// prompt on (seen with 0.215.0), but exit code 2 drops it and shows the user the hook's
// stderr as an error.
func (Host) Encode(w, stderr io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	if ev.Kind != hook.Prompt || !rep.Block {
		return claudeshape.Encode(w, stderr, ev, rep)
	}
	msg := rep.Reason
	if rep.Notice != "" && rep.Notice != msg {
		msg = strings.TrimPrefix(msg+"\n"+rep.Notice, "\n")
	}
	if _, err := io.WriteString(stderr, strings.TrimRight(msg, "\n")+"\n"); err != nil {
		return 1, err
	}
	return 2, nil
}
