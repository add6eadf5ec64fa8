package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Only the user ends a loop. Who asks is told by the process table, not by how a command
// is spelled: every loop records its session's host process (state.Owner), and
//
//   - an event of a session whose loop has an owner is taken from that owner only, reaching
//     the hook the way the owner's hooks always do (a socket the owner made proves it); an
//     event from a process below the owner (the agent's shell, a host the agent started,
//     whatever its program is called) or from another host of the session while the owner
//     runs changes nothing;
//   - a loop command (/ralph-loop, /cancel-ralph, a resume) from a host below the owner of
//     any active loop is refused, and so is ralph-loop's own cancel, start, install and
//     uninstall run below one (see InsideLoop);
//   - once the owner is gone (the user quit and resumed the session), the next host to
//     send an event owns the loop.
//
// Where the process table cannot be read, events are judged as before there were owners,
// and the guard's reading of commands is the only line (docs/guard.md).

// standing is how the sender of an event stands to a session's loop.
type standing int

const (
	// standUnknown: who sent it cannot be told (no process table, or the loop has no
	// owner yet): the event is taken as before.
	standUnknown standing = iota
	// standOwner: the loop's own host.
	standOwner
	// standNew: a host not below any active loop's host, while the loop's owner is gone:
	// it owns the loop from now on.
	standNew
	// standInside: a process below the host of an active loop, or one that claims to be the
	// owner but does not reach the hook the way the owner's hooks do.
	standInside
	// standOther: another host of the session, while the owner still runs.
	standOther
	// standUnseen: a process that may run below the loop's host, which cannot be told:
	// its chain up to its host cannot be followed, or it runs in a process namespace below
	// the host's (or one whose parents cannot be seen).
	standUnseen
)

// refused reports whether an event of this standing may not change the loop.
func (s standing) refused() bool { return s == standInside || s == standOther || s == standUnseen }

// caller returns who ran this hook (memoized); false when that cannot be told.
func (e *engine) caller() (proc.Caller, bool) {
	if !e.callerRead {
		e.callerRead = true
		if e.env.Caller != nil {
			e.callerInfo, e.callerErr = e.env.Caller()
		} else {
			e.callerErr = proc.ErrUnsupported
		}
	}
	return e.callerInfo, e.callerErr == nil
}

// untraced reports whether the process table can be read but the chain from this hook up to
// its host cannot be followed to its end: such a sender counts as inside an active loop.
func (e *engine) untraced() bool {
	e.caller()
	return e.callerErr != nil && !errors.Is(e.callerErr, proc.ErrUnsupported)
}

// who names the sender of this event, for the log and the user.
func (e *engine) who() string {
	if c, ok := e.caller(); ok {
		return c.String()
	}
	if e.untraced() {
		return inject.Untraced(e.callerErr)
	}
	return "an unknown process"
}

// ownerOf is the owner record of a caller, or nil when its input is not one a host hands
// its hooks (a file, a terminal, /dev/null): such a process is not taken for a host.
func ownerOf(c proc.Caller) *state.Owner {
	switch c.Stdin.Kind {
	case "socket", "pipe":
	default:
		return nil
	}
	return &state.Owner{PID: c.Host.PID, Start: c.Host.Start, Boot: c.Host.Boot, Comm: c.Host.Comm,
		Stdin: c.Stdin.Kind, Peer: c.Proved(), SameSession: c.SameSession, PidNS: c.PidNS}
}

func ownerID(o *state.Owner) proc.ID { return proc.ID{PID: o.PID, Start: o.Start, Boot: o.Boot} }

// nsOf tells how a process in process namespace ns (this one's) stands to owner o's: unseen,
// it may run below o without the process table showing it (its namespace is below o's, or
// the namespaces above it cannot be seen); elsewhere, o runs in a namespace that is not
// above this one, so this process is not below o, and whether o still runs cannot be seen.
func nsOf(o *state.Owner, ns uint64) (unseen, elsewhere bool) {
	if o.PidNS == 0 || ns == 0 || o.PidNS == ns {
		return false, false
	}
	below, known := proc.NSBelow(o.PidNS)
	return below || !known, !below && known
}

// judge tells how the sender of this event stands to loop l.
func (e *engine) judge(l *state.Loop) standing {
	c, ok := e.caller()
	if l == nil || l.Owner == nil {
		return standUnknown
	}
	if !ok {
		if e.untraced() {
			e.unseen = e.callerErr.Error() // cannot be told from a process below the owner
			return standUnseen
		}
		return standUnknown
	}
	o := l.Owner
	switch unseen, elsewhere := nsOf(o, c.PidNS); {
	case unseen:
		e.unseen = inject.OtherNamespace
		return standUnseen
	case elsewhere:
		if e.belowActiveLoop() != nil {
			return standInside
		}
		return standNew
	}
	if c.Host.ID.Same(ownerID(o)) {
		// The owner itself, or a process that was exec'd in place of a tool the owner
		// started, or one that feeds a hook its own input: only the way in tells them apart.
		if c.Proved() {
			return standOwner
		}
		if o.Peer || o.Stdin != c.Stdin.Kind || o.SameSession != c.SameSession {
			return standInside
		}
		return standOwner
	}
	chain, err := proc.Ancestors(c.Host.PID)
	for _, p := range chain {
		if p.ID.Same(ownerID(o)) {
			return standInside
		}
	}
	if errors.Is(err, proc.ErrIncomplete) && !startedBefore(chain, ownerID(o)) {
		e.unseen = err.Error()
		return standUnseen
	}
	if proc.Alive(ownerID(o)) {
		return standOther
	}
	if e.belowActiveLoop() != nil {
		return standInside
	}
	return standNew
}

// claim records the sender as the loop's owner when it may be: the loop has none yet, the
// old owner is gone, or the owner's hooks now prove themselves (a socket the owner made).
// It is called inside the session's transaction.
func (e *engine) claim(l *state.Loop, st standing) {
	c, ok := e.caller()
	if !ok {
		return
	}
	o := ownerOf(c)
	switch {
	case o == nil:
	case st == standNew:
		l.Owner = o
	case st == standOwner && l.Owner != nil && !l.Owner.Peer && o.Peer:
		l.Owner = o
	case st == standUnknown && l.Owner == nil && e.belowActiveLoop() == nil:
		l.Owner = o
	}
}

// belowActiveLoop returns the active loop (of any session in the store) whose owner the
// sender of this event runs below, or may run below (see OwnedLoops), or nil.
func (e *engine) belowActiveLoop() *state.Loop {
	c, ok := e.caller()
	var a Ancestry
	switch {
	case ok:
		a.Procs, a.Cut = proc.Ancestors(c.Host.PID)
		a.PidNS = c.PidNS
	case e.untraced():
		a.Cut = e.callerErr
	default:
		return nil
	}
	l, _ := InsideLoop(e.env.Store, a)
	return l
}

// Ancestry is what the process table says of who runs a command: its ancestors, nearest
// first, and whether they could be followed to the end.
type Ancestry struct {
	Procs []proc.Info
	// Cut, if not nil, says why the chain could not be followed to its end (wrapping
	// proc.ErrIncomplete): it may run below any process.
	Cut error
	// PidNS names the process namespace the command runs in (0: unknown).
	PidNS uint64
}

// SelfAncestry is this process's ancestry; ok is false where the process table cannot be
// read at all.
func SelfAncestry() (a Ancestry, ok bool) {
	a.Procs, a.Cut = proc.SelfAncestors()
	if errors.Is(a.Cut, proc.ErrUnsupported) {
		return Ancestry{}, false
	}
	a.PidNS = proc.PidNS()
	return a, true
}

// InsideLoop returns the active loop of store whose owner the command of ancestry a runs
// below, or may run below (see OwnedLoops), and that owner; nil when there is none.
func InsideLoop(store *state.Store, a Ancestry) (*state.Loop, Owned) {
	if m := OwnedLoops(store, a); len(m) > 0 {
		return m[0].Loop, m[0]
	}
	return nil, Owned{}
}

// Owned is an active loop and the process among a command's ancestors that owns it.
type Owned struct {
	Loop *state.Loop
	Proc proc.Info
	// Unseen, if not "", says why the owner was not seen among the ancestors although the
	// command may run below it: its chain of parents cannot be followed to the end, or the
	// owner runs in another process namespace. Proc is then the owner as recorded.
	Unseen string
}

// OwnedLoops returns every active loop of store whose owner is one of the ancestors of a
// command (a), or may be one: when a's chain could not be followed to its end, every loop
// whose owner still runs, and every loop whose owner runs in another process namespace
// (whether it still runs cannot be seen from there).
func OwnedLoops(store *state.Store, a Ancestry) []Owned {
	if len(a.Procs) == 0 && a.Cut == nil && a.PidNS == 0 {
		return nil
	}
	ids, err := store.Sessions()
	if err != nil {
		return nil
	}
	var out []Owned
	for _, id := range ids {
		l, err := store.Peek(id)
		var u *state.UnverifiedError
		if errors.As(err, &u) {
			l, err = u.Placeholder(), nil // its host, as its witness names it
		}
		if err != nil || l == nil || l.Status != state.Active || l.Owner == nil {
			continue
		}
		o := l.Owner
		found := false
		for _, p := range a.Procs {
			if p.ID.Same(ownerID(o)) {
				out = append(out, Owned{Loop: l, Proc: p})
				found = true
				break
			}
		}
		if found {
			continue
		}
		recorded := proc.Info{ID: ownerID(o), Comm: o.Comm}
		unseen, elsewhere := nsOf(o, a.PidNS)
		switch {
		case unseen:
			out = append(out, Owned{Loop: l, Proc: recorded, Unseen: inject.OtherNamespace})
		case elsewhere:
		case a.Cut != nil && !startedBefore(a.Procs, ownerID(o)) && proc.Alive(ownerID(o)):
			out = append(out, Owned{Loop: l, Proc: recorded, Unseen: a.Cut.Error()})
		}
	}
	return out
}

// startedBefore reports whether the last process of a chain cut short (nearest first, each
// one checked to have started before the one below it) started before owner did, in the same
// boot: a process below owner starts after it, so then neither that process nor anything
// below it in the chain runs below owner, whatever happened above the cut (a shell that ran
// the user's terminal and exited before the loop's host was started). A cut at or after the
// owner's start (an agent's background job whose subshell exited) tells nothing.
func startedBefore(chain []proc.Info, owner proc.ID) bool {
	if len(chain) == 0 || owner.Start == 0 {
		return false
	}
	last := chain[len(chain)-1]
	if last.Boot != owner.Boot || last.Boot == "" {
		return false
	}
	return last.Start < owner.Start
}

// refuseLoopCommand answers a loop command (name) that may not act: sent from below the host
// of an active loop, or from another host of a session whose loop's owner still runs. nil
// when it may act.
func (e *engine) refuseLoopCommand(ctx context.Context, name string) *Reply {
	if _, ok := e.caller(); !ok && !e.untraced() {
		return nil
	}
	l, _ := e.env.Store.Peek(e.ev.SessionID)
	if l == nil || l.Status != state.Active {
		l = nil
	}
	st := standUnknown
	if l != nil {
		st = e.judge(l)
	}
	outer := e.belowActiveLoop()
	if !st.refused() && outer == nil {
		return nil
	}
	who := e.who()
	what := inject.ReasonSentBy(name, who, "")
	if outer != nil && (l == nil || outer.SessionID != l.SessionID) && st != standInside {
		// A host the agent of another session started: that session is told.
		e.refusal(ctx, outer.SessionID, inject.ReasonSentBy(name, who, e.ev.SessionID))
		r := blockPrompt(inject.RefusedInside(name, who, outer.SessionID, e.facts.Words))
		return &r
	}
	e.refusal(ctx, e.ev.SessionID, what)
	if st == standUnseen {
		r := blockPrompt(inject.RefusedUnseenPrompt(name, who, e.ev.SessionID, e.unseen, e.facts.Words))
		return &r
	}
	if st == standOther {
		r := blockPrompt(inject.RefusedOtherHost(name, l.Owner.Comm, l.Owner.PID, e.ev.SessionID, e.facts.Words))
		return &r
	}
	r := blockPrompt(inject.RefusedInside(name, who, e.ev.SessionID, e.facts.Words))
	return &r
}

// refusal records, in a session whose loop is active, an attempt from inside to end,
// re-arm or unhook it: an event in its log, and a notice for the user at its next stop.
func (e *engine) refusal(ctx context.Context, sessionID, what string) {
	if err := RecordRefusal(ctx, e.env, sessionID, what); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
}

// RecordRefusal records, in a session whose loop is active, an attempt to end, re-arm or
// unhook the loop from inside the session, refused: an event in its log, and a notice for
// the user at its next stop or prompt.
func RecordRefusal(ctx context.Context, env Env, sessionID, what string) error {
	env.defaults()
	now := env.Now()
	_, err := update(ctx, env, sessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActRefused, Reason: inject.ReasonRefused(what)})
		if len(cur.Pending) < maxPending {
			cur.Pending = append(cur.Pending, state.Pending{At: now, What: state.ActRefused, Why: what})
		}
		return cur, nil
	})
	return err
}

// maxPending bounds the notices a loop keeps for the user (a process that tries again and
// again is told of once per notice slot; the log has every attempt).
const maxPending = 8

// takePending returns the notice for what the user has not been told yet, and clears it.
// It is called inside the session's transaction.
func takePending(l *state.Loop, w inject.Words) string {
	if len(l.Pending) == 0 {
		return ""
	}
	n := inject.Pending(l.Pending, w)
	l.Pending = nil
	return n
}

// OwnerRunning reports whether a loop's owner, when known, still runs.
func OwnerRunning(l *state.Loop) bool { return l.Owner != nil && proc.Alive(ownerID(l.Owner)) }

// Authority says, for status, how it is told for loop l who may end it.
func Authority(l *state.Loop) string {
	switch {
	case !proc.Supported:
		return inject.AuthorityGuard(inject.NoProcessTable)
	case l.Owner == nil:
		return inject.AuthorityGuard(inject.HostNotKnownYet)
	}
	return inject.AuthorityProcess(l.Owner.Comm, l.Owner.PID)
}

// silentAfter is how long a session's transcript may grow with no hook of it running before
// its hooks are taken to have stopped answering: every turn of a host fires a hook within
// seconds of writing to its transcript.
const silentAfter = time.Minute

// HooksSilent reports, for an active loop, whether its session's transcript has grown for
// longer than silentAfter after the last hook of the session ran (its hooks were turned off
// or removed while the loop was active), and for how long.
func HooksSilent(store *state.Store, l *state.Loop, now time.Time) (time.Duration, bool) {
	if l.Status != state.Active || l.Transcript.Path == "" {
		return 0, false
	}
	last := store.LastEvent(l.SessionID)
	if last.IsZero() {
		last = l.LastSeenAt
	}
	fi, err := os.Stat(l.Transcript.Path)
	if err != nil {
		return 0, false
	}
	grew := fi.ModTime().Sub(last)
	if grew <= silentAfter {
		return 0, false
	}
	return grew, true
}

// silentNotice tells the user, at a prompt or a session start in any other session, about
// the sessions whose hooks stopped answering while their loop was active (see HooksSilent):
// once per silence, recorded in the silent session's log. A session whose hooks answer
// costs one read of the active markers' directory.
func (e *engine) silentNotice() string {
	ids, err := e.env.Store.Active()
	if err != nil || len(ids) == 0 {
		return ""
	}
	now := e.env.Now()
	var out []string
	for _, id := range ids {
		if id == e.ev.SessionID {
			continue
		}
		last := e.env.Store.LastEvent(id)
		if last.IsZero() || now.Sub(last) <= silentAfter {
			continue // a hook of it ran lately: nothing to read
		}
		l, err := e.env.Store.Peek(id)
		if err != nil || l == nil {
			continue
		}
		since, ok := HooksSilent(e.env.Store, l, now)
		if !ok || toldSilent(e.env.Store, id, last) {
			continue
		}
		n := inject.HooksSilent(id, since.Round(time.Second).String())
		out = append(out, n)
		why := inject.ReasonHooksSilent(since.Round(time.Second), silentMark(last), e.ev.SessionID)
		if err := e.env.Store.AppendEvent(id, state.Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: state.ActSilent, Reason: why}); err != nil {
			fmt.Fprintln(e.env.Stderr, inject.Error(err))
		}
	}
	return joinNotices(out...)
}

// toldSilent reports whether the user was told of session id's silence since its last hook
// ran (at last): its log has the silence's event, which names that time.
func toldSilent(store *state.Store, id string, last time.Time) bool {
	events, err := store.Events(id)
	if err != nil {
		return true // cannot tell: say nothing rather than at every prompt
	}
	mark := silentMark(last)
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Action == state.ActSilent && strings.Contains(events[i].Reason, mark) {
			return true
		}
	}
	return false
}

// silentMark names the time of a silent session's last hook in its log.
func silentMark(last time.Time) string { return last.UTC().Format(time.RFC3339Nano) }
