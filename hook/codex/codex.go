// Package codex is ralph-loop's host for the OpenAI Codex CLI: it reads Codex's hook events
// into the engine's events, answers in Codex's protocol, and states its facts.
//
// Codex's hooks are Claude Code's in shape (hooks.json, the same field names, decision
// "block"), with these differences, all seen on Codex 0.169.0:
//   - No cap on consecutive stop blocks: the loop's own limit is the only stop.
//   - The block reason reaches the model inside <hook_prompt hook_run_id="…">…</hook_prompt>
//     with <, > and & escaped as entities.
//   - Hook output is parsed strictly: a field an event does not know fails the hook.
//   - Hook text over 2,500 approximate tokens (a quarter of its bytes) is cut to a preview
//     and the whole saved to a file.
//   - The interactive TUI refuses unknown slash commands, but a skill named ralph-loop lets
//     the user type $ralph-loop …, which reaches the prompt hook as typed.
//   - Untrusted hooks are skipped silently (see Trust).
//   - SessionEnd fires at the end of codex exec (in the TUI only when its app-server
//     daemon stops, not at /exit); Interrupt fires on Esc in the TUI and Ctrl-C in exec,
//     and no Stop follows it; its output is a systemMessage only.
//   - No event for a turn the model's API refused.
package codex

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// DefaultModel is the model Codex CLI 0.169.0 asks its provider for when config.toml names none (seen against a local server): the price table must know it.
const DefaultModel = "gpt-6.1-sol"

// Name is the host's name on the command line and in state files.
const Name = "codex"

// Host is the Codex CLI.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "codex".
func (Host) Name() string { return Name }

// Sigil starts a skill mention in Codex's composer: $ralph-loop is how the TUI arms a loop.
const Sigil = "$"

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Codex"

// Words are Codex's facts for texts.
var Words = inject.Words{
	Name:    Name,
	Display: display,
	// Codex replaces hook text longer than 2,500 approximate tokens (bytes/4, so 10,000
	// bytes) by a preview and a file; 3,200 UTF-16 units stay under that for any text
	// (at most 3 bytes a unit).
	MessageCap:    3200,
	EscapesMarkup: true,
	Sigil:         Sigil,
	SkipsHooks:    "Codex skips hooks it has not trusted, or that changed since they were trusted; install trusts them",
	// Its TUI's list of skills takes the first Enter on $cancel-ralph.
	PopupPicksCommand: true,
	SandboxOn:         `Codex runs it unless told not to: leave out --dangerously-bypass-approvals-and-sandbox and sandbox_mode = "danger-full-access"`,
}

// SessionEnv holds the session id in the agent's shell (Codex sets CODEX_THREAD_ID to the
// same id).
const SessionEnv = "CODEX_SESSION_ID"

// HomeEnv names Codex's configuration directory (default ~/.codex).
const HomeEnv = "CODEX_HOME"

// DefaultTimeout is Codex's timeout for a hook that states none, in seconds.
const DefaultTimeout = 600

// Facts states Codex's facts for an event.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := ProjectDir(cwd)
	return hook.Facts{
		Hooks: hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, project, "config.toml") }},
		Words: Words,
		StopTimeout: func() time.Duration {
			if d, ok := Installer.HookTimeout("Stop", project, getenv); ok {
				return d
			}
			return DefaultTimeout * time.Second
		},
		ProjectDir: cwd,
		// The rollout holds the turn's last message when the Stop hook starts (seen on
		// 0.169.0), and every tool call by its call id: file edits with apply_patch are
		// counted from it, whichever tool events Codex fires for them.
		Transcript: &hook.Transcript{Read: Transcript{Scan}, Record: hook.RecordShown},
		CLI:        "codex",
		SessionEnv: SessionEnv,
		Sandbox: func(transcript string, trusted []string) (string, *state.SandboxRoots) {
			return sandboxState(transcript, trusted, getenv)
		},
	}
}

// ProjectDir is the project of a session in cwd as Codex finds it (its default
// project_root_markers): the nearest directory up from cwd that holds .git, else cwd.
func ProjectDir(cwd string) string {
	if cwd == "" {
		return ""
	}
	for d := cwd; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return cwd
		}
		d = parent
	}
}

// Transcript reads Codex's rollout files (Scan) and the session's goal (ActiveGoal).
type Transcript struct{ transcript.Reader }

// Input is the part of a Codex hook event that ralph-loop uses.
type Input struct {
	Event                string // hook_event_name
	SessionID            string
	TurnID               string
	TranscriptPath       string
	Cwd                  string
	StopHookActive       bool
	LastAssistantMessage string
	HasLastMessage       bool
	Prompt               string
	ToolName             string
	ToolUseID            string
	Source               string // SessionStart
	Reason               string // SessionEnd
	Model                string
	// Command is tool_input.command: the shell command, or apply_patch's patch.
	Command string
	Key     string
}

// DecodeInput reads one Codex event object from r. Fields it does not use are skipped
// without being held; a known field of the wrong type, a missing hook_event_name, or
// anything but one JSON object is an error wrapping hook.ErrInput.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	last := "\x00"
	spec := &wire.Spec{
		Strings: map[string]*string{
			"hook_event_name":        &in.Event,
			"session_id":             &in.SessionID,
			"turn_id":                &in.TurnID,
			"transcript_path":        &in.TranscriptPath,
			"cwd":                    &in.Cwd,
			"last_assistant_message": &last,
			"prompt":                 &in.Prompt,
			"tool_name":              &in.ToolName,
			"tool_use_id":            &in.ToolUseID,
			"source":                 &in.Source,
			"reason":                 &in.Reason,
			"model":                  &in.Model,
		},
		Bools:   map[string]*bool{"stop_hook_active": &in.StopHookActive},
		Objects: map[string]*wire.Spec{"tool_input": {Loose: map[string]*string{"command": &in.Command}}},
	}
	key, err := wire.Decode(r, spec)
	if err != nil {
		return in, err // wraps hook.ErrInput, which is wire.ErrInput
	}
	if in.Event == "" {
		return in, fmt.Errorf("%w: no hook_event_name", hook.ErrInput)
	}
	// last_assistant_message is null when the turn ended without a message.
	if last != "\x00" {
		in.LastAssistantMessage, in.HasLastMessage = last, true
	}
	in.Key = key
	return in, nil
}

// Decode reads one Codex hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	in, err := DecodeInput(r)
	if err != nil {
		return hook.Event{}, err
	}
	ev := hook.Event{Name: in.Event, SessionID: in.SessionID, Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, Key: in.Key, Model: in.Model}
	switch in.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = hook.Prompt, Unsigil(in.Prompt)
	case "Stop":
		ev.Kind = hook.Stop
		ev.LastMessage = in.LastAssistantMessage
	case "PostToolUse":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, in.ToolUseID
		if kind, _, _ := toolKind(in.ToolName, in.Command); kind == hook.PatchTool {
			ev.ToolKind = kind
		}
	case "PreToolUse":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, in.ToolName, in.ToolUseID
		ev.ToolKind, ev.Command, ev.Patch = toolKind(in.ToolName, in.Command)
	case "SessionStart":
		ev.Kind, ev.Source = hook.SessionStart, in.Source
	case "SessionEnd":
		ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
	case "Interrupt":
		ev.Kind, ev.Turn = hook.Interrupted, in.TurnID
	}
	return ev, nil
}

// shellTools are the names Codex gives its shell tool in hook events ("Bash" for
// exec_command in 0.169.0; the others are its older and internal names).
var shellTools = []string{"Bash", "exec_command", "shell", "local_shell", "shell_command"}

// toolKind says what a tool call about to run does, with its command or its patch.
// apply_patch's tool_input.command is the patch: every file it names is judged. (The shell
// can run apply_patch too: the guard reads that as a patch.)
func toolKind(name, command string) (kind hook.ToolKind, cmd, patch string) {
	switch {
	case slices.Contains(shellTools, name):
		return hook.ShellTool, command, ""
	case name == "apply_patch" || name == "Write" || name == "Edit":
		return hook.PatchTool, "", command
	}
	return hook.OtherTool, "", ""
}

// Unsigil turns a loop command typed as a skill mention ($ralph-loop, $ulw-loop,
// $cancel-ralph: what Codex's TUI lets the user type) into the slash command the engine
// reads. Any other prompt is returned as it is.
func Unsigil(prompt string) string {
	p := strings.TrimLeft(prompt, " \t\r\n")
	for _, c := range []string{hook.CommandLoop, hook.CommandULW, hook.CommandCancel} {
		name := Sigil + strings.TrimPrefix(c, "/")
		if r, ok := strings.CutPrefix(p, name); ok && (r == "" || strings.ContainsRune(" \t\r\n", rune(r[0]))) {
			return c + r
		}
	}
	return prompt
}

// output is Codex's hook output object. Codex refuses fields an event does not know, so
// each event gets only its own.
type (
	output   = claudeshape.Output
	specific = claudeshape.Specific
)

// Encode writes the reply as Codex's hook output JSON with exit code 0 (nothing at all for
// an empty reply, which lets everything go on).
func (Host) Encode(w, _ io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	if rep.Empty() {
		return 0, nil
	}
	out := output{SystemMessage: rep.Notice}
	switch ev.Kind {
	case hook.Stop, hook.Prompt:
		if rep.Block {
			out.Decision, out.Reason = "block", rep.Reason
		}
	}
	switch {
	case ev.Kind == hook.ToolCheck && rep.Deny:
		out.HookSpecificOutput = &specific{HookEventName: ev.Name, PermissionDecision: "deny", PermissionDecisionReason: rep.DenyReason}
	case rep.Context != "" && (ev.Kind == hook.Prompt || ev.Kind == hook.SessionStart):
		out.HookSpecificOutput = &specific{HookEventName: ev.Name, AdditionalContext: rep.Context}
	}
	return claudeshape.WriteOutput(w, out)
}
