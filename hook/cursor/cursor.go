// Package cursor is ralph-loop's host for Cursor's agent (the editor's and the cursor-agent
// CLI's): it reads Cursor's hook events into the engine's events, answers in Cursor's
// protocol, and states its facts.
//
// Cursor cannot be installed here, so this package follows Cursor's documented hook
// protocol (https://cursor.com/docs/hooks; testdata/cursor/README.md quotes the shapes it
// relies on) and has never run against the real program. What the documentation leaves
// open was decided as follows:
//   - Every event names itself in hook_event_name and carries conversation_id, "stable
//     across many turns": that is the session. sessionStart and sessionEnd also carry a
//     session_id, which is not used (the documentation does not say it equals
//     conversation_id, which every event has).
//   - stop carries no text of the agent's. The text comes from afterAgentResponse ({"text"}:
//     "called after the agent completes an assistant message"), which the engine keeps while
//     a loop is active (hook.Said, Transcript.SaidLog) and reads at the stop. Both carry the
//     turn's generation_id ("changes with every user message"; a follow-up is submitted as
//     the next user message): a stop counts only the messages of its own generation, so a
//     message that reaches the log after its turn was decided never counts for a later
//     turn, and the stop waits a bounded time for its generation's first message, since
//     Cursor may run afterAgentResponse without waiting for it. transcript_path is not
//     read: its format is not documented.
//   - stop with status "aborted" is the user's interruption, not the agent ending a turn:
//     it is ignored, as Claude Code fires no Stop hook then, and the loop goes on at the
//     next stop. Status "error" is a turn that failed: the loop pauses (hook.Failed), with
//     nothing more to say of why (Cursor gives no error's kind or message), and the user's
//     next prompt goes on with it.
//   - A stop is continued with {"followup_message": R}, which Cursor "will automatically
//     submit as the next user message". Cursor allows loop_limit follow-ups per hook
//     script (5 by default; null: no limit), and loop_count tells how many have run: the
//     engine stops blocking when either its own count of blocks in a row or loop_count
//     reaches the loop_limit of the installed stop hook (CUT_BY_HOST), instead of sending
//     a follow-up Cursor would drop. install writes a loop_limit that covers any
//     --max-iterations.
//   - Should a follow-up come back through beforeSubmitPrompt (not documented either way),
//     it is known by its text (inject.IsContinuation) and is not taken for the user's
//     prompt, which would restart the count of blocks.
//   - beforeSubmitPrompt can only let a prompt through or refuse it ({"continue": false,
//     "user_message": M}); it cannot add context for the model. The loop's contract reaches
//     the agent in the command file's text and with every follow-up, and the arming
//     notice only on stderr. A typed "/ralph-loop …" is read as typed; what the hook gets
//     when Cursor expands a command file is not documented, so the command files wrap
//     their text in tags by which the hook finds the typed arguments around it (see
//     Unwrap).
//   - Tool calls are counted from postToolUse and postToolUseFailure by tool_use_id, once
//     each (only these two tool events are installed, so afterShellExecution and
//     afterFileEdit never count the same call again); a call that failed with failure_type
//     "permission_denied" did not run and is no work.
//   - preToolUse is the guard: Shell's tool_input.command (documented); Write's and
//     Delete's tool_input is not documented, and its file_path or path is read.
//   - Cursor shows a hook's user_message only when it refuses a prompt or a tool call, so
//     every other notice goes to stderr (Cursor's Hooks output channel), exit 0. Exit 2
//     would refuse a prompt or a tool call, so it is never used.
//   - sessionEnd ends the loop only for reasons "user_close" and "window_close": for
//     "completed", "aborted" and "error" the documentation does not say whether the
//     conversation is over or only the agent's run.
package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/inject"
)

// Name is the host's name on the command line and in state files.
const Name = "cursor"

// Host is Cursor.
type Host struct{}

var (
	_ hook.Host = Host{}
)

// Name returns "cursor".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "Cursor"

// Words are Cursor's facts for texts.
var Words = inject.Words{
	Name:              Name,
	Display:           display,
	Cap:               inject.Cap{Setting: "loop_limit", CountsTools: true},
	HidesPromptNotice: true,
	SkipsHooks:        "Cursor runs a project's hooks only in a trusted workspace",
}

// input is the part of a Cursor hook event that ralph-loop uses.
type input struct {
	key                                 string
	Event, Conversation, Generation     string
	Prompt, Status, Text, Cwd, Reason   string
	ToolName, ToolUseID, FailureType    string
	Command, FilePath, Path, WorkingDir string
	LoopCount                           string // a number, as JSON text
}

// bom starts a payload on Windows (seen by others: github.com/robot-council/cli's wiki);
// it is skipped.
var bom = []byte("\xef\xbb\xbf")

// decodeInput reads one event object.
func decodeInput(raw []byte) (input, error) {
	var in input
	tool := &wire.Spec{Loose: map[string]*string{"command": &in.Command, "file_path": &in.FilePath, "path": &in.Path,
		"working_directory": &in.WorkingDir}}
	spec := &wire.Spec{
		Strings: map[string]*string{
			"hook_event_name": &in.Event, "conversation_id": &in.Conversation, "generation_id": &in.Generation,
			"prompt": &in.Prompt, "status": &in.Status, "text": &in.Text, "cwd": &in.Cwd, "reason": &in.Reason,
			"tool_name": &in.ToolName, "tool_use_id": &in.ToolUseID, "failure_type": &in.FailureType,
		},
		Numbers: map[string]*string{"loop_count": &in.LoopCount},
		Objects: map[string]*wire.Spec{"tool_input": tool},
	}
	key, err := wire.Decode(bytes.NewReader(raw), spec)
	if err != nil {
		return in, err // wraps hook.ErrInput, which is wire.ErrInput
	}
	in.key = key
	return in, nil
}

// workspaceRoot is the first of the event's workspace_roots ("" if none).
func workspaceRoot(raw []byte) string {
	var v struct {
		Roots []json.RawMessage `json:"workspace_roots"`
	}
	if json.Unmarshal(raw, &v) != nil || len(v.Roots) == 0 {
		return ""
	}
	var root string
	if json.Unmarshal(v.Roots[0], &root) != nil {
		return ""
	}
	return root
}

// Tool names of preToolUse (its matcher's values): Shell runs tool_input.command; Write
// and Delete change the file at tool_input.file_path (or path).
const (
	shellTool = "Shell"
	// ToolMatcher is install's preToolUse matcher: the tools the guard looks at.
	ToolMatcher = "Shell|Write|Delete"
)

var writeTools = []string{"Write", "Delete"}

// Decode reads one Cursor hook event.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return hook.Event{}, fmt.Errorf("%w: %v", hook.ErrInput, err)
	}
	raw = bytes.TrimPrefix(raw, bom)
	in, err := decodeInput(raw)
	if err != nil {
		return hook.Event{}, err
	}
	ev := hook.Event{Name: in.Event, SessionID: in.Conversation, Key: in.key}
	switch in.Event {
	case "beforeSubmitPrompt":
		// A follow-up coming back as a prompt is the same turn going on.
		if !inject.IsContinuation(in.Prompt) {
			ev.Kind, ev.Prompt = hook.Prompt, Unwrap(in.Prompt)
		}
	case "stop":
		switch in.Status {
		case "", "completed":
			ev.Kind, ev.TurnMark, ev.HostBlocks = hook.Stop, in.Generation, count(in.LoopCount)
		case "error":
			ev.Kind = hook.Failed
		}
	case "afterAgentResponse":
		ev.Kind, ev.Text, ev.TurnMark = hook.Said, in.Text, in.Generation
	case "postToolUse", "postToolUseFailure":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, in.ToolName, in.ToolUseID
		ev.Rejected = in.FailureType == "permission_denied"
		if in.Event == "postToolUse" && slices.Contains(writeTools, in.ToolName) {
			ev.ToolKind = hook.WriteTool
		}
	case "preToolUse":
		ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, in.ToolName, in.ToolUseID
		switch {
		case in.ToolName == shellTool:
			// The command runs in tool_input.working_directory when it gives one.
			ev.ToolKind, ev.Command, ev.ToolDir = hook.ShellTool, in.Command, in.WorkingDir
		case slices.Contains(writeTools, in.ToolName):
			ev.ToolKind, ev.FilePath = hook.WriteTool, in.FilePath
			if in.ToolName == "Delete" {
				ev.ToolKind = hook.DeleteTool
			}
			if ev.FilePath == "" {
				ev.FilePath = in.Path
			}
		}
	case "sessionEnd":
		if in.Reason == "user_close" || in.Reason == "window_close" {
			ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
		}
	}
	if ev.Kind == hook.Ignored {
		return ev, nil
	}
	if ev.SessionID == "" {
		return hook.Event{}, fmt.Errorf("%w: no conversation_id", hook.ErrInput)
	}
	ev.Cwd = workspaceRoot(raw)
	if ev.Kind == hook.ToolCheck {
		// The guard resolves the command's relative paths from where it runs.
		for _, d := range []string{in.Cwd, in.WorkingDir} {
			if d != "" {
				ev.Cwd = d
				break
			}
		}
	}
	if ev.Cwd == "" {
		ev.Cwd = in.Cwd
	}
	return ev, nil
}

// count reads loop_count: a whole number, 0 when missing or not one.
func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Encode writes the reply in Cursor's protocol: a blocked stop as
// {"followup_message": R} (any other answer to a stop as {}), a refused prompt as
// {"continue": false, "user_message": R}, a denied tool call as {"permission": "deny",
// "user_message": R, "agent_message": R}; a notice goes on stderr, exit 0. A reply that
// failed (Reply.Failed) exits 1, which lets the action proceed.
func (Host) Encode(w, stderr io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	if rep.Empty() {
		return 0, nil
	}
	if rep.Failed {
		// A hook that fails lets the action proceed, and Cursor reports it.
		fmt.Fprintln(stderr, rep.Notice)
		return 1, nil
	}
	var out any
	switch ev.Kind {
	case hook.Stop:
		if rep.Block {
			out = struct {
				Followup string `json:"followup_message"`
			}{rep.Reason}
		} else {
			out = struct{}{}
		}
	case hook.Prompt:
		if rep.Block {
			out = struct {
				Continue bool   `json:"continue"`
				Message  string `json:"user_message"`
			}{false, rep.Reason}
		}
	case hook.ToolCheck:
		if rep.Deny {
			out = struct {
				Permission string `json:"permission"`
				User       string `json:"user_message"`
				Agent      string `json:"agent_message"`
			}{"deny", rep.DenyReason, rep.DenyReason}
		}
	}
	if out != nil {
		if err := wire.WriteJSON(w, out); err != nil {
			return 1, err
		}
	}
	if rep.Notice != "" {
		if _, err := fmt.Fprintln(stderr, rep.Notice); err != nil {
			return 1, err
		}
	}
	return 0, nil
}
