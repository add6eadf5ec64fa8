// Package pluginkit is what every plugin of ralph-loop's own is built from (opencode's
// plugin, pi's extension): the JavaScript they share (kit.js: running ralph-loop, the
// sessions it marks active, and what the plugin answers by itself when it cannot run
// ralph-loop), and the filling in of a plugin's placeholders at install. A host loads every
// file of its plugin directory as a plugin, so a kit module beside the plugin would be one
// too: install writes the kit into each plugin's own file instead.
package pluginkit

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
	"github.com/ralph-loop/ralph-loop/inject"
)

//go:embed kit.js
var kit string

// Mark is the line of a plugin's source that the kit takes the place of.
const Mark = "__KIT__\n"

// Source is a plugin's source as install writes it for the host h, whose words are w: src
// with the kit in place of its Mark line and its placeholders filled in: __HOST__ (w.Name)
// and __HOST_NAME__ (the same, bare, for comments), __BINARY__ (binary, or where portable
// the ralph-loop on PATH), __SCOPE__, __MISSING__ (said once when the binary is not there),
// __FALLBACK__ (the replies the plugin gives by itself, see fallbackReplies), __TAIL_MAX__
// (TailMax), and each of more, as JSON.
func Source(src string, h hook.Host, w inject.Words, binary, scope string, portable bool, more map[string]any) string {
	prog := binary
	if portable {
		binary, prog = "ralph-loop", "ralph-loop (on PATH)"
	}
	r := []string{
		"__HOST__", js(w.Name),
		"__BINARY__", js(binary),
		"__SCOPE__", js(scope),
		"__MISSING__", js(inject.NotInstalledHere(w.Display)),
		"__FALLBACK__", js(fallbackReplies(h, w, prog)),
		"__HOST_NAME__", w.Name,
		"__TAIL_MAX__", strconv.Itoa(TailMax),
	}
	for k, v := range more {
		r = append(r, k, js(v))
	}
	return strings.NewReplacer(r...).Replace(strings.Replace(src, Mark, kit, 1))
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil { // strings and replies always marshal
		panic(err)
	}
	return string(b)
}

// fallbackReplies are what the plugin answers by itself when it cannot run ralph-loop
// (prog) in a session whose loop is active, as ralph-loop would reply (h's Encode): the
// texts of the other hosts' hook command lines (hook/install's command.go).
func fallbackReplies(h hook.Host, w inject.Words, prog string) map[string]any {
	encode := func(kind hook.Kind, r hook.Reply) json.RawMessage {
		var out bytes.Buffer
		if _, err := h.Encode(&out, io.Discard, hook.Event{Kind: kind}, r); err != nil { // a buffer never fails
			panic(err)
		}
		if out.Len() == 0 {
			return json.RawMessage("{}")
		}
		return bytes.TrimSpace(out.Bytes())
	}
	maxIter, _ := strconv.Atoi(install.DefaultMaxIterations())
	return map[string]any{
		"stop":          encode(hook.Stop, hook.Reply{Block: true, Reason: inject.FallbackBlock(prog), Notice: inject.FallbackNotice(w.Display, prog)}),
		"limit":         encode(hook.Stop, hook.Reply{Notice: inject.FallbackLimit(w.Display, prog)}),
		"cancelled":     encode(hook.Prompt, hook.Reply{Block: true, Reason: inject.FallbackCancelled(prog)}),
		"notice":        encode(hook.Prompt, hook.Reply{Notice: inject.FallbackNotice(w.Display, prog)}),
		"maxIterations": maxIter,
	}
}

// Reply is what every plugin's reply says alike; a host's reply adds what its plugin does
// with a prompt.
type Reply struct {
	// Continue: the loop goes on; the plugin sends this to the agent as the session's next
	// message (the host's plugin says how).
	Continue string `json:"continue,omitempty"`
	// Deny refuses a tool call with this reason for the agent.
	Deny string `json:"deny,omitempty"`
	Said
}

// ReplyOf is rep's part that every plugin takes alike, for the event ev: a blocked stop's
// continuation, a refused tool call's reason, and what the user is shown.
func ReplyOf(ev hook.Event, rep hook.Reply) Reply {
	out := Reply{Said: SaidOf(rep)}
	switch {
	case rep.Block && ev.Kind == hook.Stop:
		out.Continue = rep.Reason
	case rep.Deny && ev.Kind == hook.ToolCheck:
		out.Deny = rep.DenyReason
	}
	return out
}

// Said is what a plugin's reply shows the user.
type Said struct {
	// Notice is a line for the user (the host's plugin says where it shows it).
	Notice string `json:"notice,omitempty"`
	// Error is ralph-loop's failure, shown like a notice.
	Error string `json:"error,omitempty"`
}

// SaidOf is what rep shows the user: its notice, as an Error when ralph-loop failed.
func SaidOf(rep hook.Reply) Said {
	if rep.Failed {
		return Said{Error: rep.Notice}
	}
	return Said{Notice: rep.Notice}
}

// Write writes a plugin's reply as JSON, nothing at all when it is empty, and returns the
// exit code, as a host's Encode does.
func Write[T comparable](w io.Writer, out T) (int, error) {
	var empty T
	if out == empty {
		return 0, nil
	}
	if err := wire.WriteJSON(w, out); err != nil {
		return 1, err
	}
	return 0, nil
}

// MaxInput bounds an event a plugin sends.
const MaxInput = 64 << 20

// Head is what every event a plugin of ralph-loop's own sends starts with.
type Head struct {
	Hook      string `json:"hook"`
	SessionID string `json:"sessionID"`
	Directory string `json:"directory"`
	// FallbackCancel: the plugin answered the user's /cancel-ralph itself while it could
	// not run ralph-loop (hook.Event.FallbackCancel).
	FallbackCancel bool `json:"fallbackCancel"`
}

// Call is a tool call as a plugin sends it, before it runs and after.
type Call struct {
	Tool   string          `json:"tool"`
	CallID string          `json:"callID"`
	Args   json.RawMessage `json:"args"`
	// After it ran: Failed, the host reports that it did not complete (pi: an error result;
	// opencode: a shell command with no exit status, killed), and Tail, the end of its
	// result (at most TailMax characters), from which the host's package tells a call the
	// user stopped (Esc), which did no work.
	Failed bool   `json:"failed"`
	Tail   string `json:"tail"`
}

// TailMax is the most of a call's result a plugin sends (Call.Tail).
const TailMax = 200

// Check makes ev the check of the call before it runs, and decodes its arguments into
// args (the tools' arguments vary: what does not fit is left empty).
func (c Call) Check(ev *hook.Event, args any) {
	ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolCheck, c.Tool, c.CallID
	_ = json.Unmarshal(c.Args, args)
}

// Used makes ev the report of the call having run, a file write's when writes holds. A
// call without an id is an error wrapping hook.ErrInput.
func (c Call) Used(ev *hook.Event, writes bool) error {
	if c.CallID == "" {
		return fmt.Errorf("%w: no callID", hook.ErrInput)
	}
	ev.Kind, ev.ToolName, ev.ToolUseID = hook.ToolUsed, c.Tool, c.CallID
	if writes {
		ev.ToolKind = hook.WriteTool
	}
	return nil
}

// Decode reads one event a plugin sent from r into in, a struct whose Head is head, and
// returns the Event it begins: the hook's name, the session, its directory, and the key of
// the input. An event without a session is an error wrapping hook.ErrInput.
func Decode(r io.Reader, in any, head *Head) (hook.Event, error) {
	key, err := wire.Unmarshal(r, MaxInput, in)
	if err != nil {
		return hook.Event{}, err
	}
	if head.SessionID == "" {
		return hook.Event{}, fmt.Errorf("%w: no sessionID", hook.ErrInput)
	}
	return hook.Event{Name: head.Hook, SessionID: head.SessionID, Cwd: head.Directory, Key: key, FallbackCancel: head.FallbackCancel}, nil
}
