// Package pi is ralph-loop's host for pi (the pi coding agent, npm
// @mariozechner/pi-coding-agent). pi has no hooks that run commands: install writes an
// extension (extension.js) that passes the events ralph-loop needs to "ralph-loop hook
// --host pi" as JSON objects of its own making, and does what the reply says. This package
// reads those objects and writes the replies.
//
// Facts seen on pi 0.73.1 that shape the extension and this package:
//   - There is no stop veto: the extension asks for the stop decision at agent_end (the end
//     of the agent's run for a prompt, steering and follow-up messages included) and
//     continues the same session by sending the continuation as a message of its own
//     (pi.sendMessage with triggerTurn), deferred until pi is idle: a send from inside
//     agent_end is not processed. A run that starts before it is sent (the user's
//     message) voids it: that run ends in a stop of its own.
//   - agent_end carries the run's messages as pi records them in its session file: the
//     assistant's text blocks, its stopReason ("stop", "toolUse", "length", "error",
//     "aborted") and its usage (input without the cache, cacheRead, cacheWrite, output,
//     and the cost pi computed from the model's price, 0 when it knows none). A run that
//     ended on an error or on Esc ("aborted") is not a stop: the loop waits for the user.
//   - registerCommand gives /ralph-loop, /ulw-loop and /cancel-ralph; a command runs at
//     once, also while the agent works (pi does not queue extension commands), and never
//     reaches the model: what the agent gets is what the extension sends. A prompt the
//     extension handles at the input event (source "interactive" or "rpc") can be dropped.
//   - tool_call handlers can refuse a call with {block: true, reason}; tool_result follows
//     each call that ran, with its toolCallId. The file tools take path (a leading "@" is
//     dropped, "~" is the home directory, relative to the session's directory).
//   - "pi -p" (and --mode json) exits at the first agent_end, so loops run in the TUI and
//     in RPC mode (pi --mode rpc), where the extension's context has a UI; a loop command
//     without one is refused.
package pi

import (
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/pluginkit"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Name is the host's name on the command line and in state files.
const Name = "pi"

// StopTimeout is how long the extension waits for the stop decision (a loop's checks run
// then); other events get 10 seconds.
const StopTimeout = 15 * time.Minute

// Host is pi.
type Host struct{}

var _ hook.Host = Host{}

// Name returns "pi".
func (Host) Name() string { return Name }

// display is the host's name for people (Words.Display, the installer's Title: a constant, so
// that the installer is data the linker lays out).
const display = "pi"

// Words are pi's facts for texts.
var Words = inject.Words{
	Name:    Name,
	Display: display,
}

// cannotLoop is why a loop cannot run where the extension has no UI (pi -p, --mode json).
var cannotLoop = inject.ExitsAtFirstStop("pi -p (and pi --mode json)",
	"start it in the pi TUI, or in a session of pi --mode rpc")

// Facts states pi's facts. It has no cap on continuations and no transcript the engine
// reads (the extension hands over the run's messages).
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	return hook.Facts{
		Words:       Words,
		StopTimeout: func() time.Duration { return StopTimeout },
		ProjectDir:  cwd,
		CLI:         "pi",
		Hooks:       hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, cwd, settingsFiles(getenv, cwd)...) }},
	}
}

// Events, as the extension names them.
const (
	hookCommand    = "command"
	hookInput      = "input"
	hookAgentEnd   = "agent_end"
	hookToolCall   = "tool_call"
	hookToolResult = "tool_result"
	hookStart      = "session_start"
	hookCompact    = "session_compact"
	hookShutdown   = "session_shutdown"
)

// Events are the events the extension passes on ("ralph-loop hook --help" lists them).
func (Host) Events() []string {
	return []string{hookCommand, hookInput, hookToolCall, hookToolResult, hookAgentEnd, hookStart, hookCompact, hookShutdown}
}

// input is one event as the extension sends it.
type input struct {
	pluginkit.Head
	// Prompt is the command as typed ("/ralph-loop ARGUMENTS"), or the user's prompt
	// (input).
	Prompt string `json:"prompt"`
	// Source is who sent the input: "interactive" (typed), "rpc", or "extension".
	Source string `json:"source"`
	// NoUI: the extension's context has no UI (pi -p, --mode json), where pi exits at the
	// first agent_end.
	NoUI bool `json:"noUI"`
	// Busy: the agent was working when the prompt came (pi hands it over within the run).
	Busy bool `json:"busy"`
	// Messages are the run's messages (agent_end).
	Messages []message `json:"messages"`
	// Tool calls: the tool, its call id and arguments, and the home directory pi expands
	// "~" to (tool_call).
	pluginkit.Call
	Home string `json:"home"`
	// Reason is why the session started or is shut down (session_start, session_shutdown).
	Reason string `json:"reason"`
}

// message is one of pi's messages (AgentMessage), with its text blocks only.
type message struct {
	Role       string `json:"role"`
	StopReason string `json:"stopReason"`
	Model      string `json:"model"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Usage *struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
		Cost       *struct {
			Total *float64 `json:"total"`
		} `json:"cost"`
	} `json:"usage"`
}

// Decode reads one event from the extension.
func (Host) Decode(r io.Reader) (hook.Event, error) {
	var in input
	ev, err := pluginkit.Decode(r, &in, &in.Head)
	if err != nil {
		return hook.Event{}, err
	}
	switch in.Hook {
	case hookCommand:
		ev.Kind, ev.Prompt, ev.InTurn = hook.Prompt, in.Prompt, in.Busy
	case hookInput:
		// A message sent by an extension is not the user's.
		if in.Source != "extension" {
			ev.Kind, ev.Prompt, ev.InTurn = hook.Prompt, in.Prompt, in.Busy
		}
	case hookAgentEnd:
		switch end, ok := runEnd(in.Messages); {
		case !ok:
		case end == endAborted:
			// Esc: no stop; the loop waits for the user's next message, who is told so.
			ev.Kind, ev.Interrupted = hook.Halted, true
		case end == endError:
			ev.Kind = hook.Halted // pi shows the error
		default:
			ev.Kind, ev.Text, ev.HasText = hook.Stop, runText(in.Messages), true
			ev.Usage = runUsage(in.Messages)
		}
	case hookToolCall:
		var a struct {
			Command string `json:"command"`
			Path    string `json:"path"`
		}
		in.Check(&ev, &a)
		switch in.Tool {
		case "bash":
			ev.ToolKind, ev.Command = hook.ShellTool, a.Command
		case "write", "edit":
			ev.ToolKind, ev.FilePath = hook.WriteTool, toolPath(a.Path, in.Home)
		}
	case hookToolResult:
		if err := in.Used(&ev, in.Tool == "write" || in.Tool == "edit"); err != nil {
			return hook.Event{}, err
		}
		ev.Aborted = aborted(in.Call)
	case hookStart:
		ev.Kind, ev.Source = hook.SessionStart, in.Reason
	case hookCompact:
		ev.Kind, ev.Source = hook.SessionStart, "compact"
	case hookShutdown:
		// A reload keeps the session; quitting, or leaving it for another (new, resume,
		// fork), ends it here.
		if in.Reason != "reload" {
			ev.Kind, ev.Reason = hook.SessionEnd, in.Reason
		}
	}
	if ev.Kind == hook.Prompt && in.NoUI {
		ev.CannotLoop = cannotLoop
	}
	return ev, nil
}

// How a run's last assistant message ended (its stopReason), where that is no stop.
const (
	endAborted = "aborted" // the user stopped the agent (Esc)
	endError   = "error"
)

// runEnd is the stopReason of a run's last assistant message (ok is false when it has
// none). The run ends a turn the agent finished unless it ended on an error or an interrupt
// (Esc).
func runEnd(ms []message) (reason string, ok bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "assistant" {
			return ms[i].StopReason, true
		}
	}
	return "", false
}

// abortedEnds are how pi 0.73.1 ends the error result of a call the user stopped (Esc): its
// bash tool's "Command aborted", the file tools' "Operation aborted", each on a line of its
// own after whatever the call printed.
var abortedEnds = []string{"Command aborted", "Operation aborted"}

// aborted reports whether a call that ran was stopped by the user (Esc) before it finished:
// an error result that ends with pi's words for it. A command cannot end an error result
// so (pi's own status line comes after its output); at worst a call is not counted.
func aborted(c pluginkit.Call) bool {
	if !c.Failed {
		return false
	}
	for _, end := range abortedEnds {
		if c.Tail == end || strings.HasSuffix(c.Tail, "\n"+end) {
			return true
		}
	}
	return false
}

// runText is the agent's text of the run: the text blocks of its assistant messages, in
// order.
func runText(ms []message) string {
	var texts []string
	for _, m := range ms {
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.Content {
			if c.Type == "text" && c.Text != "" {
				texts = append(texts, c.Text)
			}
		}
	}
	return strings.Join(texts, "\n\n")
}

// runUsage is what the run's assistant messages used. pi's own cost counts; a cost of 0
// for tokens used means pi knows no price for the model, and the record is priced by
// ralph-loop instead (never taken as free).
func runUsage(ms []message) []spend.Record {
	var rs []spend.Record
	for _, m := range ms {
		u := m.Usage
		if m.Role != "assistant" || u == nil {
			continue
		}
		r := spend.Record{Model: m.Model, Tokens: spend.Tokens{Input: u.Input, CacheWrite: u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}}
		if !r.Valid() || r.Total() == 0 {
			continue
		}
		if c := u.Cost; c != nil && c.Total != nil && *c.Total > 0 && !math.IsInf(*c.Total, 0) && !math.IsNaN(*c.Total) {
			r.Cost, r.HasCost = *c.Total, true
		}
		rs = append(rs, r)
	}
	return rs
}

// toolPath is the file a pi file tool's path names, as pi resolves it: a leading "@"
// dropped, "~" the home directory (relative paths are taken from the session's directory
// by the engine).
func toolPath(p, home string) string {
	p = strings.TrimPrefix(p, "@")
	p = strings.Map(func(r rune) rune {
		if r == '\u00A0' || r >= '\u2000' && r <= '\u200A' || r == '\u202F' || r == '\u205F' || r == '\u3000' {
			return ' '
		}
		return r
	}, p)
	switch {
	case home == "" || !filepath.IsAbs(home):
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return home + p[1:]
	}
	return p
}

// Output is the reply the extension acts on; empty fields are left out. Continue (a
// blocked stop's) is sent as ralph-loop's message, which starts the agent's next turn;
// Notice and Error are shown the user: a notification in the TUI, an
// extension_ui_request notify in RPC mode.
type Output struct {
	// Send is for the agent: the loop's contract, which the extension sends as ralph-loop's
	// message (after a loop command, starting the agent's turn; otherwise with the next
	// prompt).
	Send string `json:"send,omitempty"`
	// Refuse: the prompt is dropped (nothing reaches the agent) and this is shown to the
	// user: a refused command, or a command's answer (a cancel).
	Refuse string `json:"refuse,omitempty"`
	pluginkit.Reply
}

// Encode writes the reply for the extension.
func (Host) Encode(w, _ io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	var out Output
	switch {
	case rep.Block && ev.Kind == hook.Prompt:
		out.Refuse = rep.Reason
	case rep.Context != "" && !rep.Block && (ev.Kind == hook.Prompt || ev.Kind == hook.SessionStart):
		out.Send = rep.Context
	}
	out.Reply = pluginkit.ReplyOf(ev, rep)
	return pluginkit.Write(w, out)
}
