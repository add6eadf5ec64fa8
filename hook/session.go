package hook

import (
	"context"
	"fmt"
	"slices"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// configChange refuses, while the session's loop is active, a change to the host's settings
// that alters what the host would run or how, compared with what was in force when the loop
// was armed (Hooks.Settings): its hooks (any of them may end a turn), their commands,
// timeouts and types, the plugins that bring more, the hooks' environment, the sandbox,
// every other setting (a value of the wrong type anywhere makes Claude Code drop the whole
// file), at every scope. What cannot be read or told refuses the change. The loop's next
// stop tells the user what was tried.
func (e *engine) configChange(ctx context.Context) Reply {
	if e.facts.Hooks.Settings == nil || !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	now, err := e.facts.Hooks.Settings()
	why := ""
	switch {
	case err != nil:
		why = inject.SettingsUnreadable(err)
	case len(l.SettingsRefused) > 0:
		why = inject.SettingsRefusedBefore(l.SettingsRefused[0], e.facts.Words)
	default:
		why = settingsChange(l.Settings, now)
	}
	if why == "" {
		return Reply{}
	}
	if err := e.refuseSettings(ctx, why); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	return Reply{Block: true, Reason: inject.ConfigRefused(e.ev.ConfigFile, why, e.facts.Words)}
}

// refuseSettings records a settings change refused: an event in the loop's log, the file
// among those the host now holds otherwise than the disk (Loop.SettingsRefused), and a
// notice for the user.
// Who changed the file cannot be told (the agent, the user's editor, the host itself): the
// user is told what was kept, not of an attempt.
func (e *engine) refuseSettings(ctx context.Context, why string) error {
	now := e.env.Now()
	what := inject.ReasonConfigChange(e.ev.ConfigFile, why)
	_, err := update(ctx, e.env, e.ev.SessionID, func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.Status != state.Active {
			return nil, nil
		}
		tx.Record(state.Event{At: now, LoopID: cur.LoopID, Iteration: cur.Iteration, Action: state.ActRefused, Reason: inject.ReasonRefused(what)})
		if len(cur.Pending) < maxPending {
			cur.Pending = append(cur.Pending, state.Pending{At: now, What: state.PendingSettings, Why: what})
		}
		if e.ev.ConfigFile != "" && !slices.Contains(cur.SettingsRefused, e.ev.ConfigFile) && len(cur.SettingsRefused) < maxRefusedFiles {
			cur.SettingsRefused = append(cur.SettingsRefused, e.ev.ConfigFile)
		}
		return cur, nil
	})
	return err
}

// maxRefusedFiles bounds Loop.SettingsRefused (Claude Code has a handful of settings files).
const maxRefusedFiles = 64

// ended is what to tell the user at a stop or prompt of a session whose loop is not active:
// an ending the user did not see, or what happened to its state meanwhile.
func (e *engine) ended(ctx context.Context, l *state.Loop) string {
	return e.tell(ctx, l)
}

// tell returns the notice for a loop that ended without the user seeing it (a cancel from a
// terminal, the session's end), with what the user has not been told of it yet, and marks
// it told, so that it is said once. "" when there is nothing to tell.
func (e *engine) tell(ctx context.Context, l *state.Loop) string {
	if l == nil || l.Status == state.Active || l.Told && len(l.Pending) == 0 {
		return ""
	}
	var notice string
	_, err := update(ctx, e.env, e.ev.SessionID, func(_ *state.Tx, cur *state.Loop) (*state.Loop, error) {
		if cur == nil || cur.LoopID != l.LoopID || cur.Status == state.Active || cur.Told && len(cur.Pending) == 0 {
			return nil, nil
		}
		notice = takePending(cur, e.facts.Words)
		if !cur.Told {
			notice = joinNotices(notice, inject.EndedUnseen(cur, e.facts.Words))
		}
		cur.Told = true
		return cur, nil
	})
	if err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	return notice
}

// sessionStart tells the user, when a session resumes, what became of its loop: still
// active, or ended with the session (and the one command that picks it up again). After a
// compaction or /clear, an active loop's contract is given to the model again.
func (e *engine) sessionStart(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil {
		return Reply{Notice: e.ended(ctx, l)}
	}
	e.settle(ctx, l)
	if e.ev.Source == "resume" && e.facts.ResumeNoticeHidden {
		return Reply{} // told at the first prompt, where the user sees it
	}
	if l.Status == state.Active && e.unverified != nil {
		return Reply{Notice: inject.UnverifiedNotice(e.unverified.Why, e.facts.Words, false)}
	}
	if l.Status == state.Active && e.judge(l).refused() {
		return Reply{}
	}
	if l.Status == state.Active {
		switch e.ev.Source {
		case "compact", "clear":
			return Reply{Context: inject.Contract(l, e.facts.Words)}
		case "resume":
			return Reply{Notice: inject.StillActive(l, e.facts.Words)}
		}
		return Reply{}
	}
	if e.ev.Source == "resume" || e.ev.Source == "startup" {
		return Reply{Notice: e.ended(ctx, l)}
	}
	return Reply{}
}

func (e *engine) sessionEnd(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.look()
	if out != nil {
		return *out
	}
	if l == nil || l.Status != state.Active {
		e.settle(ctx, l)
		return Reply{}
	}
	if e.unverified != nil {
		return Reply{} // an active loop that cannot be verified goes on until the user ends it
	}
	if e.judge(l).refused() {
		// A host the agent started on this session (claude -p --resume) ending, or an
		// event sent from inside: the loop's own session goes on.
		e.notTaken("session end")
		return Reply{}
	}
	why := inject.ReasonSessionEnded(e.ev.Reason)
	if _, err := finish(ctx, e.env, e.ev.SessionID, state.SessionEnded, state.BySessionEnd, state.ActEnded, why, false); err != nil {
		return e.stateError(err)
	}
	return Reply{}
}

// continuation answers a blocked stop's reason handed back as the next prompt. A block is
// never delivered after its loop ended, nor after the loop went past it: such a reason
// (queued by the host and sent late, after a stop that ended the loop) is refused, so that
// the agent is not told to go on with a loop that is over.
func (e *engine) continuation() Reply {
	iteration, ok := inject.ContinuationIteration(e.ev.Prompt)
	if !ok || !e.session() {
		return Reply{}
	}
	l, err := e.env.Store.Peek(e.ev.SessionID)
	if err != nil {
		return Reply{}
	}
	if l != nil && l.Status == state.Active && l.Iteration == iteration {
		return Reply{}
	}
	return blockPrompt(inject.StaleContinuation(l, iteration))
}
