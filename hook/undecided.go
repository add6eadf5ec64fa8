package hook

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// A stop hook killed before it answers (SIGKILL from a process the agent left running, an
// out-of-memory kill) lets the host end the turn with no decision of ralph-loop's: the
// host takes a hook that did not answer for one that allows the stop. Each stop of an
// active loop marks itself in flight from before it decides until after it has answered
// (state.BeginStop); the session's next prompt, stop or start finds a mark whose process
// is gone (undecided), tells the user, logs it, and the loop's next stop is blocked
// (state.Loop.Missed: the agent's output of that turn was never judged, so no promise in
// it counts), unless the loop ends at its limits.

// markInFlight marks this stop in flight; Handle clears the mark once the reply is written.
func (e *engine) markInFlight() {
	if e.inflight != nil {
		return
	}
	self, err := proc.Self()
	if err != nil {
		return // no process table here: a killed stop cannot be told from a finished one
	}
	e.inflight = e.env.Store.BeginStop(e.ev.SessionID, inflightMark(self.ID))
}

// inflightMark names a process in a mark: pid, start time, boot.
func inflightMark(id proc.ID) string {
	boot := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'f' {
			return r
		}
		return -1
	}, id.Boot)
	return fmt.Sprintf("%d-%d-%s", id.PID, id.Start, boot)
}

// markAlive reports whether the process a mark names still runs (a mark that does not
// parse names none).
func markAlive(mark string) bool {
	f := strings.SplitN(mark, "-", 3)
	if len(f) != 3 {
		return false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	p, err := proc.Read(pid)
	if err != nil || p.Zombie || p.Start != start {
		return false
	}
	boot := inflightMark(proc.ID{Boot: p.Boot})[len("0-0-"):]
	return f[2] == "" || boot == "" || f[2] == boot
}

// undecided finds the stops of this session the host let through with no decision (their
// hook was killed: see markInFlight) and returns what the user is to be told. The loop's
// next stop is blocked (Missed), and the event log says what happened.
func (e *engine) undecided(ctx context.Context) string {
	id := e.ev.SessionID
	if state.ValidSessionID(id) != nil || !proc.Supported {
		return ""
	}
	gone := e.env.Store.StopsInFlight(id, markAlive)
	if len(gone) == 0 {
		return ""
	}
	defer e.env.Store.ClearStops(id, gone)
	var told string
	now := e.env.Now()
	_, err := update(ctx, e.env, id, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		cur.Missed = inject.UnreadMissed(len(gone))
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActError,
			Reason: inject.ReasonMissed(len(gone))})
		told = inject.MissedNotice(cur, len(gone), e.facts.Words)
		return cur, nil
	})
	if err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	return told
}
