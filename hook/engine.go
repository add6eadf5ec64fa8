package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Handle answers one hook event of host h read from stdin: the reply goes to stdout in the
// host's protocol, errors to env.Stderr, and the exit code is returned. Malformed input is
// an error the host reports without blocking anything; every other failure lets the agent
// stop and is reported on stderr and to the user.
func Handle(ctx context.Context, env Env, h Host, stdin io.Reader, stdout io.Writer) int {
	env.defaults()
	start := env.Now()
	ev, err := h.Decode(stdin)
	if err != nil && env.Borrowed && errors.Is(err, ErrInput) {
		return 0 // another program's event (Env.Borrowed)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, inject.Error(err))
		return 1
	}
	if ev.Kind == Ignored {
		return 0
	}
	e := &engine{env: env, host: h, ev: ev, start: start, facts: h.Facts(env.Getenv, ev.Cwd)}
	if t := e.facts.transcript(); t.SaidLog && state.ValidSessionID(ev.SessionID) == nil {
		// The host's transcript is the session's said log, which the engine keeps.
		t.Read = saidLog{}
		e.facts.Transcript = &t
		e.ev.TranscriptPath = env.Store.SaidPath(ev.SessionID)
	}
	rep := e.handle(ctx)
	if e.inflight != nil {
		defer e.inflight() // once the reply is written: a stop killed before that went undecided
	}
	if e.badInput {
		return 1
	}
	var code int
	code, err = h.Encode(stdout, env.Stderr, ev, rep)
	if err != nil {
		fmt.Fprintln(env.Stderr, inject.ReplyFailed(h.Name(), err))
		return 1
	}
	return code
}

// began is when the hook began: when the host started its process, if that is known and
// earlier, else when Handle began.
func (e *engine) began() time.Time {
	if !e.startRead && e.env.Started != nil {
		if t := e.env.Started(); !t.IsZero() && t.Before(e.start) {
			e.start = t
		}
	}
	e.startRead = true
	return e.start
}

// engine handles one event.
type engine struct {
	env   Env
	host  Host
	facts Facts
	ev    Event
	// start is when Handle began; began tells when the hook began.
	start     time.Time
	startRead bool
	badInput  bool
	// Who ran the hook (see caller).
	callerRead bool
	callerInfo proc.Caller
	callerErr  error
	// unverified: the session's loop is active but its state cannot be verified (look
	// stood a placeholder for it).
	unverified *state.UnverifiedError
	// unseen says why whether the sender runs below the loop's host cannot be told (see
	// standUnseen).
	unseen string
	// inflight clears this stop's mark in flight (see markInFlight); nil: none was made.
	inflight func()
}

func (e *engine) handle(ctx context.Context) Reply {
	switch e.ev.Kind {
	case Prompt, Stop, SessionStart:
		if n := joinNotices(e.fallback(ctx), e.undecided(ctx)); n != "" {
			r := e.handleKind(ctx)
			r.Notice = joinNotices(n, r.Notice)
			return r
		}
	}
	return e.handleKind(ctx)
}

func (e *engine) handleKind(ctx context.Context) Reply {
	switch e.ev.Kind {
	case Prompt:
		r := e.prompt(ctx)
		r.Notice = joinNotices(r.Notice, e.silentNotice())
		return r
	case Stop:
		return e.stop(ctx)
	case ToolUsed:
		return e.toolUsed(ctx)
	case ToolCheck:
		return e.toolCheck()
	case SessionStart:
		r := e.sessionStart(ctx)
		r.Notice = joinNotices(r.Notice, e.silentNotice())
		return r
	case SessionEnd:
		return e.sessionEnd(ctx)
	case Said:
		return e.said()
	case ConfigChange:
		return e.configChange(ctx)
	case Continuation:
		return e.continuation()
	case Failed:
		return e.failed(ctx)
	case Interrupted:
		return e.interrupted(ctx)
	case Halted:
		return e.halted(ctx)
	}
	return Reply{}
}

// fail reports an error that lets the agent go on: one line on stderr, and the same line
// for the user.
func (e *engine) fail(msg string) Reply {
	fmt.Fprintln(e.env.Stderr, msg)
	return Reply{Notice: msg, Failed: true}
}

// session checks the session id; a bad one is malformed input.
func (e *engine) session() bool {
	if err := state.ValidSessionID(e.ev.SessionID); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.BadEvent(e.ev.Name, err))
		e.badInput = true
		return false
	}
	return true
}

// look is the cheap first look every event takes: the session's loop (nil if it has none)
// and whether it is active. An unreadable state file is moved aside and reported; an
// active loop whose state cannot be verified is stood for by a placeholder (e.unverified
// says what was changed).
func (e *engine) look() (*state.Loop, *Reply) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	var u *state.UnverifiedError
	if errors.As(err, &u) {
		e.unverified = u
		return u.Placeholder(), nil
	}
	if err != nil {
		r := e.stateError(err)
		return nil, &r
	}
	return l, nil
}

// stateError turns a state failure into a message, moving a corrupt file aside so the next
// hook starts clean (never one of an active loop that cannot be verified). A stop of an
// active loop never comes here (see blockAnyway).
func (e *engine) stateError(err error) Reply {
	var u *state.UnverifiedError
	if errors.As(err, &u) {
		return e.fail(inject.UnverifiedNotice(u.Why, e.facts.Words, false))
	}
	if errors.Is(err, state.ErrCorrupt) {
		to, qerr := e.env.Store.Quarantine(e.ev.SessionID, e.env.Now())
		if qerr == nil {
			return e.fail(inject.StateMovedAside(err, to))
		}
		return e.fail(inject.StateNotMoved(err, qerr))
	}
	if errors.Is(err, state.ErrLockTimeout) {
		return e.fail(inject.LockStuck(err))
	}
	return e.fail(inject.Error(err))
}

// joinNotices joins notices for the user, leaving out empty ones.
func joinNotices(ns ...string) string {
	var out []string
	for _, n := range ns {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// notTaken logs an event of the loop's session that changed nothing because it did not come
// from the loop's host (see judge).
func (e *engine) notTaken(what string) {
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil || l == nil {
		return
	}
	who := e.who()
	_ = e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActRefused,
		Reason: inject.ReasonNotTaken(what, who)})
}

// stopTimeout is the host's Stop hook timeout (0: unknown).
func (e *engine) stopTimeout() time.Duration {
	if e.facts.StopTimeout == nil {
		return 0
	}
	return e.facts.StopTimeout()
}

// active is the first look of the events that only matter while a loop runs.
func (e *engine) active() (*state.Loop, *Reply) {
	l, out := e.look()
	if l == nil || l.Status != state.Active {
		return nil, out
	}
	return l, nil
}

func orEmpty(r *Reply) Reply {
	if r == nil {
		return Reply{}
	}
	return *r
}
