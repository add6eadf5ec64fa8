// Package opencode is ralph-loop's host for opencode, and for Kilo Code, an opencode fork
// with the same plugin API (Kilo: the same host with Kilo's facts, see kilo.go). opencode has no hooks that run
// commands: install writes a plugin (plugin.js) that passes the events ralph-loop needs to
// "ralph-loop hook --host opencode" as JSON objects of its own making, and does what the
// reply says. This package reads those objects and writes the replies.
//
// Facts seen on opencode 1.18.33 that shape the plugin and this package:
//   - There is no stop hook, and nothing can veto a session going idle: the plugin asks for
//     the stop decision when the session goes idle after being busy, and continues it with
//     client.session.promptAsync, whose text reaches the model as a plain user message.
//   - After a model error opencode goes idle twice with no busy between, and event hooks run
//     concurrently: the plugin acts only on an idle that follows a busy, one at a time. A
//     turn that ended on an error or an interrupt (session.error before the idle; Esc is a
//     MessageAbortedError) is no stop: the plugin passes it on as session.error, and the
//     loop waits for the user's next message.
//   - A shell command the user stops (Esc) still fires tool.execute.after: its output ends
//     with opencode's "User aborted the command", and it has no exit status.
//   - opencode keeps no transcript a hook can read: the plugin hands over the turn's messages
//     (from the first after the last stop's), text parts only. A message the user sends
//     while a turn runs is handed to the agent at its next step, within the turn.
//   - A custom command (/ralph-loop in the TUI, POST /session/:id/command) fires
//     command.execute.before with the raw arguments, then chat.message with the expanded
//     template; a prompt sent as text (POST /session/:id/prompt_async) reaches chat.message
//     as typed. The plugin can add to or replace the prompt's text parts; throwing there
//     fails the request with an opaque server error, so a refused prompt is replaced by a
//     request that the agent tell the user why.
//   - tool.execute.before can refuse a call by throwing: the error's message is the tool's
//     result for the model, and tool.execute.after does not fire. tool.execute.after carries
//     the call's callID.
//   - Each assistant message's info carries modelID, tokens {input, output, reasoning,
//     cache {read, write}} and the cost opencode computed: the plugin hands them over with
//     the iteration's messages. A subagent's messages are in a session of its own and are
//     not counted.
//   - "opencode run" exits at the first idle, so loops run in the TUI and under "opencode
//     serve", not under "opencode run".
package opencode

import (
	"io"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/internal/pluginkit"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Name is the host's name on the command line and in state files.
const Name = "opencode"

// StopTimeout is how long the plugin waits for the stop decision (a loop's checks run then);
// other events get 10 seconds.
const StopTimeout = 15 * time.Minute

// Host is opencode (the zero Host), or a fork of it with the same plugin API (Kilo).
type Host struct{ f *flavor }

var _ hook.Host = Host{}

// flavor is what tells one CLI of opencode's family from another.
type flavor struct {
	words inject.Words
	cli   string // the executable
	// runCannotLoop is why "CLI run" cannot hold a loop ("": it can, it waits for the
	// plugin's continuation).
	runCannotLoop string
	installer     *lazy.Value[*install.Target]
}

var opencodeFlavor = &flavor{words: Words, cli: "opencode", installer: &opencodeInstaller, runCannotLoop: inject.ExitsAtFirstStop("opencode run",
	"start it in the opencode TUI, or in a session of opencode serve (opencode run --attach to a running server works too)")}

func (h Host) flavor() *flavor {
	if h.f == nil {
		return opencodeFlavor
	}
	return h.f
}

// Name returns "opencode" (or the fork's name).
func (h Host) Name() string { return h.flavor().words.Name }

// Words are opencode's facts for texts.
var Words = inject.Words{
	Name:    Name,
	Display: "opencode",
	// Its TUI's list of commands takes the first Enter on /cancel-ralph.
	PopupPicksCommand: true,
}

// Facts states opencode's facts. It has no cap on continuations and no transcript the
// engine reads (the plugin hands over the iteration's text).
func (h Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	f := h.flavor()
	return hook.Facts{
		Hooks:       hook.Hooks{Files: func() []string { return f.installer.Get().HookFiles(getenv, cwd) }},
		Words:       f.words,
		StopTimeout: func() time.Duration { return StopTimeout },
		ProjectDir:  cwd,
		CLI:         f.cli,
		Server:      &hook.Server{Ports: serverPorts(getenv(ServerEnv))},
	}
}

// ServerEnv holds the URL of opencode's server as the plugin sees it (its serverUrl), so
// that the guard knows the port requests to it go to.
const ServerEnv = "RALPH_LOOP_OPENCODE_SERVER"

// serverPorts is the port of the server's URL (none when it is not one).
func serverPorts(u string) []string {
	p, err := url.Parse(u)
	if err != nil || p.Port() == "" {
		return nil
	}
	return []string{p.Port()}
}

// Hooks, as the plugin names the events it passes on.
const (
	hookIdle        = "session.idle"
	hookError       = "session.error" // the turn ended on an error or an interrupt: no stop
	hookDeleted     = "session.deleted"
	hookCommand     = "command.execute.before"
	hookMessage     = "chat.message"
	hookToolBefore  = "tool.execute.before"
	hookToolAfter   = "tool.execute.after"
	shellTool       = "bash"
	unknownToolName = "invalid" // what opencode runs for a call to a tool it does not have
)

// abortedError is the name of the error a turn the user stopped (Esc) ends on.
const abortedError = "MessageAbortedError"

// abortedEnd ends the output of a shell command the user stopped (Esc), as opencode 1.18.33
// and Kilo 7.7.9 write it after the command's own output; the command was killed, so it
// has no exit status (Call.Failed).
const abortedEnd = "<shell_metadata>\nUser aborted the command\n</shell_metadata>"

// Events are the events the plugin passes on ("ralph-loop hook --help" lists them).
func (Host) Events() []string {
	return []string{hookMessage, hookCommand, hookToolBefore, hookToolAfter, hookIdle, hookError, hookDeleted}
}

// writeTools are opencode's tools that write the file at args.filePath.
var writeTools = []string{"write", "edit", "multiedit"}

// patchTools apply args.patchText, a patch in apply_patch's form (opencode 1.18: apply_patch
// for the models that take it, patch in older versions).
var patchTools = []string{"apply_patch", "patch"}

// input is one event as the plugin sends it.
type input struct {
	pluginkit.Head
	// Prompt is the user's prompt (chat.message), or the command as typed
	// (command.execute.before: "/ralph-loop ARGUMENTS").
	Prompt string `json:"prompt"`
	// Run: opencode runs as "opencode run", which exits at the first idle.
	Run bool `json:"run"`
	// Busy: the prompt came while the agent worked (chat.message); opencode hands it to
	// the agent within the turn.
	Busy bool `json:"busy"`
	// Goal is the host's own goal for the session, active or paused
	// (command.execute.before: Kilo's /goal, from the session's metadata).
	Goal *struct {
		Text   string `json:"text"`
		Paused bool   `json:"paused"`
	} `json:"goal"`
	// Messages are the agent's messages of the iteration (session.idle).
	Messages []message `json:"messages"`
	// Error is the name of the error a turn ended on (session.error): MessageAbortedError
	// when the user stopped it (Esc).
	Error string `json:"error"`
	// Tool calls.
	pluginkit.Call
}

type message struct {
	Role  string `json:"role"`
	Parts []struct {
		Text      string `json:"text"`
		Synthetic bool   `json:"synthetic"`
	} `json:"parts"`
	// Usage is what an assistant message used, as opencode records it: its model, the cost
	// it computed (0 for a model whose price it does not know) and its tokens (input
	// without the cache, reasoning beside output).
	Usage *struct {
		Model  string   `json:"model"`
		Cost   *float64 `json:"cost"`
		Tokens struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"usage"`
}

// iterationUsage is what the iteration's assistant messages used. opencode's own cost
// counts; a cost of 0 for tokens used means opencode knows no price for the model, and the
// record is priced by ralph-loop instead (never taken as free).
func iterationUsage(ms []message) []spend.Record {
	var rs []spend.Record
	for _, m := range ms {
		u := m.Usage
		if m.Role != "assistant" || u == nil {
			continue
		}
		t := u.Tokens
		r := spend.Record{Model: u.Model, Tokens: spend.Tokens{Input: t.Input, CacheWrite: t.Cache.Write, CacheRead: t.Cache.Read,
			Output: t.Output + t.Reasoning}}
		if !r.Valid() || t.Output < 0 || t.Reasoning < 0 {
			continue
		}
		if u.Cost != nil && *u.Cost > 0 && !math.IsInf(*u.Cost, 0) {
			r.Cost, r.HasCost = *u.Cost, true
		}
		rs = append(rs, r)
	}
	return rs
}

// Decode reads one event from the plugin.
func (h Host) Decode(r io.Reader) (hook.Event, error) {
	var in input
	ev, err := pluginkit.Decode(r, &in, &in.Head)
	if err != nil {
		return hook.Event{}, err
	}
	switch in.Hook {
	case hookIdle:
		ev.Kind, ev.Text, ev.HasText = hook.Stop, iterationText(in.Messages), true
		ev.Usage = iterationUsage(in.Messages)
	case hookCommand:
		ev.Kind, ev.Prompt = hook.Prompt, in.Prompt
		if in.Goal != nil {
			ev.Goal = &hook.HostGoal{Text: in.Goal.Text, Paused: in.Goal.Paused}
		}
	case hookMessage:
		// A blocked stop's continuation comes back as a user message: the same turn going
		// on, not the user's prompt.
		if !inject.IsContinuation(in.Prompt) {
			ev.Kind, ev.Prompt, ev.InTurn = hook.Prompt, in.Prompt, in.Busy
		}
	case hookToolBefore:
		var a struct {
			Command   string `json:"command"`
			FilePath  string `json:"filePath"`
			PatchText string `json:"patchText"`
			Workdir   string `json:"workdir"`
		}
		in.Check(&ev, &a)
		switch {
		case in.Tool == shellTool:
			ev.ToolKind, ev.Command, ev.ToolDir = hook.ShellTool, a.Command, a.Workdir
		case slices.Contains(patchTools, in.Tool):
			ev.ToolKind, ev.Patch, ev.FilePath = hook.PatchTool, a.PatchText, a.FilePath
		case slices.Contains(writeTools, in.Tool):
			ev.ToolKind, ev.FilePath = hook.WriteTool, a.FilePath
		}
	case hookToolAfter:
		if err := in.Used(&ev, slices.Contains(writeTools, in.Tool) || slices.Contains(patchTools, in.Tool)); err != nil {
			return hook.Event{}, err
		}
		ev.Rejected = in.Tool == unknownToolName
		ev.Aborted = in.Tool == shellTool && in.Failed && strings.HasSuffix(strings.TrimRight(in.Tail, "\n"), abortedEnd)
	case hookError:
		ev.Kind = hook.Halted
		if in.Error == abortedError {
			ev.Interrupted = true
		} else {
			ev.Error = in.Error
		}
	case hookDeleted:
		ev.Kind, ev.Reason = hook.SessionEnd, "deleted"
	}
	if ev.Kind == hook.Prompt && in.Run {
		ev.CannotLoop = h.flavor().runCannotLoop
	}
	return ev, nil
}

// iterationText is the agent's text of the iteration: the text parts of the assistant
// messages the plugin sends (the turn's, from its first message after the last stop), in
// order, less synthetic parts. A user message among them (one sent while the turn ran) does
// not end what counts.
func iterationText(ms []message) string {
	var texts []string
	for _, m := range ms {
		if m.Role != "assistant" {
			continue
		}
		for _, p := range m.Parts {
			if !p.Synthetic && p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
	}
	return strings.Join(texts, "\n\n")
}

// Output is the reply the plugin acts on; empty fields are left out. Continue (a blocked
// stop's) is the session's next prompt; Notice and Error are shown the user as a toast in
// the TUI, and in opencode's log.
type Output struct {
	// Append is added to the prompt's text for the model (the loop's context).
	Append string `json:"append,omitempty"`
	// Replace replaces the prompt's text: a refused prompt, which the agent is asked to
	// explain to the user instead.
	Replace *string `json:"replace,omitempty"`
	// Drop: the command (command.execute.before) is answered in full by the notice (the
	// cancel): the plugin stops it before opencode makes it a message, so nothing of it
	// reaches the model, which a prompt sent as text cannot be.
	Drop bool `json:"drop,omitempty"`
	pluginkit.Reply
}

// Encode writes the reply for the plugin.
func (Host) Encode(w, _ io.Writer, ev hook.Event, rep hook.Reply) (int, error) {
	var out Output
	switch {
	case rep.Block && ev.Kind == hook.Prompt && rep.Answered && ev.Name == hookCommand && ev.CannotLoop == "":
		// The cancel, run as a command in the TUI or a server: dropped before it becomes a
		// message, its answer shown as a toast.
		out.Drop = true
		rep.Notice = joinLines(rep.Notice, rep.Reason)
	case rep.Block && ev.Kind == hook.Prompt:
		// opencode cannot drop a prompt: the agent is asked to pass the reason on.
		s := inject.RelayRefusal(rep.Reason)
		out.Replace = &s
		if rep.Notice == "" {
			rep.Notice = rep.Reason
		}
	case rep.Context != "" && ev.Kind == hook.Prompt:
		out.Append = rep.Context
	}
	out.Reply = pluginkit.ReplyOf(ev, rep)
	return pluginkit.Write(w, out)
}

// joinLines joins two notices, either of which may be empty.
func joinLines(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}
