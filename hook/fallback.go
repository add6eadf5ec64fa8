package hook

import (
	"bytes"
	"context"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Encode is a host's protocol for what its hooks' command line answers by itself when it
// cannot run ralph-loop (install.Target.Encode): the reply encoded by the host's own
// Encode, for an event of the kind the installer names. A host's installer names a function
// of its own that calls it, so that the installer is data laid out by the linker, not built
// at every start of the program.
func Encode(h Host, ev install.Event, r install.Reply) install.Encoded {
	var kind Kind
	switch ev.Kind {
	case install.SessionEvent:
		kind = SessionStart
	case install.PromptEvent:
		kind = Prompt
	case install.ToolEvent:
		kind = ToolUsed
	case install.StopEvent:
		kind = Stop
	case install.ConfigEvent:
		kind = ConfigChange
	}
	var out, errOut bytes.Buffer
	code, err := h.Encode(&out, &errOut, Event{Kind: kind, Name: ev.Name}, Reply{Block: r.Block, Reason: r.Reason, Notice: r.Notice})
	if err != nil { // a buffer never fails
		panic(err)
	}
	return install.Encoded{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// fallback takes what the hooks' command line left in the session's directory while it
// could not run ralph-loop (see hook/install's command.go) and the session's loop was
// active, and returns what the user is to be told. The user's /cancel-ralph it recorded
// ends the loop as the user's cancel, if it was recorded while this loop ran and the
// ralph-loop running now changed after it (it could not run then: moved, removed or made
// unrunnable, and it is back); otherwise it was not the hooks' (a file the agent wrote while
// ralph-loop ran), and it is refused and logged. The stops it blocked are logged, not
// counted: anyone can write those files.
func (e *engine) fallback(ctx context.Context) string {
	id := e.ev.SessionID
	if state.ValidSessionID(id) != nil {
		return ""
	}
	f := e.env.Store.Fallback(id)
	if f.Empty() {
		return ""
	}
	defer e.env.Store.ClearFallback(id)
	l, err := e.env.Store.Peek(id)
	if err != nil || l == nil || l.Status != state.Active {
		return ""
	}
	now := e.env.Now()
	if f.Stops > 0 {
		_ = e.env.Store.AppendEvent(id, state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActMessage,
			Reason: inject.ReasonFallbackStops(f.Stops)})
	}
	if !f.Cancel {
		return ""
	}
	if e.env.BinaryChanged != nil && !f.CancelAt.Before(l.StartedAt) {
		if back, err := e.env.BinaryChanged(); err == nil && back.After(f.CancelAt) {
			if done, err := Cancel(ctx, e.env, id, state.ByUser, inject.ReasonFallbackCancel, true); err == nil && done != nil {
				return inject.FallbackCancelTaken(done)
			}
			return ""
		}
	}
	_ = e.env.Store.AppendEvent(id, state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActRefused,
		Reason: inject.ReasonFallbackCancelRefused})
	return inject.FallbackCancelRefused(l, e.facts.Words)
}
