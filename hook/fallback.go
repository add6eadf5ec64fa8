package hook

import (
	"bytes"
	"context"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// fallback takes what the hooks' script left in the session's directory while the hooks
// could not run ralph-loop (see hook/install's hook.sh) and the session's loop was
// active, and returns what the user is to be told. The user's /cancel-ralph it recorded
// ends the loop as the user's cancel only when the hooks saw ralph-loop missing: it was
// recorded while this loop ran, the host's own record (its transcript, since the loop's last
// decision) shows a stop the hooks' script blocked because they could not run ralph-loop
// (hooksSawItGone), and the ralph-loop running now changed after the cancel (moved,
// removed or made unrunnable, and back). Otherwise it is not taken on its word (anything
// the agent runs can write the file, and touch the binary): it is refused and logged, and
// the user types /cancel-ralph again. The stops it blocked are logged, not counted.
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
	if e.env.BinaryChanged != nil && !f.CancelAt.Before(l.StartedAt) && (e.vouched(l) || e.hooksSawItGone(l)) {
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

// vouched reports whether the event's plugin, in the loop's own host process, says it
// answered the user's /cancel-ralph itself while it could not run ralph-loop (opencode's,
// Kilo Code's and pi's keep no transcript ralph-loop reads): an event forged by a process
// below the host is not the host's word.
func (e *engine) vouched(l *state.Loop) bool {
	if !e.ev.FallbackCancel {
		return false
	}
	st := e.judge(l)
	return st == standOwner || st == standNew
}

// hooksSawItGone reports whether the host's transcript, from where the loop's last decision
// read it, records a stop the hooks' script blocked by itself because the hooks could not
// run ralph-loop (its reason holds inject.FallbackMark; the host writes a blocked stop's
// reason into the transcript as the agent's next message). At most fallbackRead bytes are
// searched; a host that keeps no transcript ralph-loop reads records none.
func (e *engine) hooksSawItGone(l *state.Loop) bool {
	if e.facts.transcript().SaidLog {
		return false
	}
	if l.Transcript.Path != "" && transcriptHolds(l.Transcript.Path, max(l.Transcript.Offset, 0), inject.FallbackMark) {
		return true
	}
	p := e.ev.TranscriptPath
	return p != "" && p != l.Transcript.Path && transcriptHolds(p, 0, inject.FallbackMark)
}

// transcriptHolds reports whether the file at path holds text after offset from, searching
// at most fallbackRead bytes.
func transcriptHolds(path string, from int64, text string) bool {
	f, err := state.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	mark := []byte(text)
	buf := make([]byte, 1<<20)
	keep := 0
	for read := int64(0); read < fallbackRead; {
		n, err := f.ReadAt(buf[keep:], from)
		if bytes.Contains(buf[:keep+n], mark) {
			return true
		}
		if err != nil || n == 0 {
			return false
		}
		from += int64(n)
		read += int64(n)
		// The mark may straddle two reads: keep the end of this one.
		keep = copy(buf, buf[max(0, keep+n-len(mark)):keep+n])
	}
	return false
}

// fallbackRead bounds the transcript hooksSawItGone searches.
const fallbackRead = 256 << 20
