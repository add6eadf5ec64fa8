package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/guard"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

func (e *engine) toolUsed(ctx context.Context) Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil || e.unverified != nil {
		return orEmpty(out) // nothing to count a call for in a loop that cannot be verified
	}
	if e.judge(l).refused() {
		return Reply{} // not the loop's host: no work of the loop's agent
	}
	if e.ev.Interrupted {
		// The user stopped the call and the host ends the turn with no stop: the loop
		// ends here, or it would go on at the user's next prompt.
		done, err := Cancel(ctx, e.env, e.ev.SessionID, state.ByUser, inject.ReasonInterrupted(e.facts.Words), true)
		if err != nil {
			return e.stateError(err)
		}
		if done == nil {
			return Reply{}
		}
		return Reply{Notice: inject.CommandInterrupted(done, e.facts.Words)}
	}
	e.env.Store.Touch(e.ev.SessionID)
	// Appended to the tool log without the lock: parallel tool calls run their hooks at
	// once, and the next stop decision counts them. A call the host refused before it ran,
	// or one the user stopped before it finished, is logged as denied: it did no work, and
	// never counts, even when the transcript shows it. A call of a tool that writes files is
	// logged as such: the stall breaker counts it as progress without asking git.
	none := e.ev.Rejected || e.ev.Aborted
	u := state.ToolUse{LoopID: l.LoopID, ToolUseID: e.ev.ToolUseID, Denied: none, Wrote: writes(e.ev.ToolKind) && !none}
	if err := e.env.Store.LogToolUse(e.ev.SessionID, u); err != nil {
		return e.fail(inject.Error(err))
	}
	return Reply{}
}

// writes reports whether a tool of kind writes files (what the adapter tells of a call that
// completed: a call that failed has no kind).
func writes(kind ToolKind) bool { return kind == WriteTool || kind == DeleteTool || kind == PatchTool }

// said keeps one of the agent's messages in the session's said log while a loop is active,
// for the loop's next stop to read (Transcript.SaidLog). Like the tool log, it is appended
// without the lock.
func (e *engine) said() Reply {
	if !e.facts.transcript().SaidLog || !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil || e.unverified != nil {
		return orEmpty(out)
	}
	if e.judge(l).refused() {
		return Reply{}
	}
	m := state.Said{Timestamp: e.env.Now(), LoopID: l.LoopID, Turn: e.ev.TurnMark, Text: e.ev.Text}
	if err := e.env.Store.AppendSaid(e.ev.SessionID, m); err != nil {
		return e.fail(inject.Error(err))
	}
	return Reply{}
}

// toolCheck denies, while a loop is active, the agent's tool calls that would end or replace
// its loop or change its state (see guard).
func (e *engine) toolCheck() Reply {
	if !e.session() {
		return Reply{}
	}
	l, out := e.active()
	if l == nil {
		return orEmpty(out)
	}
	act := e.action()
	if act.Kind == guard.None {
		return Reply{}
	}
	reason := guard.Check(e.guardConfig(l), act)
	if reason == "" {
		return Reply{}
	}
	// The call never runs: remember it so that the transcript's record of it is not
	// counted as work, and log it for the user.
	if err := e.env.Store.AppendToolUse(e.ev.SessionID, l.LoopID, e.ev.ToolUseID, true); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	what := e.ev.ToolName
	if e.ev.Command != "" {
		what += ": " + firstLine(e.ev.Command, 200)
	} else if e.ev.FilePath != "" {
		what += " " + e.ev.FilePath
	} else if files := guard.PatchFiles(e.ev.Patch); len(files) > 0 {
		what += " of " + firstLine(strings.Join(files, ", "), 200)
	}
	if err := e.env.Store.AppendEvent(e.ev.SessionID, state.Event{At: e.env.Now(), LoopID: l.LoopID, Iteration: l.Iteration,
		Action: state.ActDenied, Reason: inject.ReasonDenied(what)}); err != nil {
		fmt.Fprintln(e.env.Stderr, inject.Error(err))
	}
	return Reply{Deny: true, DenyReason: reason}
}

// action is what the tool call does, as the host's adapter told it.
func (e *engine) action() guard.Action {
	dir := e.ev.Cwd
	if e.ev.ToolDir != "" {
		dir = e.ev.ToolDir
		if !filepath.IsAbs(dir) && e.ev.Cwd != "" {
			dir = filepath.Join(e.ev.Cwd, dir)
		}
	}
	act := guard.Action{Kind: e.ev.ToolKind, Tool: e.ev.ToolName, Dir: dir}
	switch act.Kind {
	case ShellTool:
		act.Command, act.Unsandboxed = e.ev.Command, e.ev.Unsandboxed
	case WriteTool, DeleteTool, PatchTool:
		if e.ev.FilePath != "" {
			act.Paths = append(act.Paths, e.ev.FilePath)
		}
		act.Patch = e.ev.Patch
	}
	return act
}

// guardConfig is what the guard knows of this session, whose loop is l.
func (e *engine) guardConfig(l *state.Loop) guard.Config {
	return guard.Config{
		StateDir:    e.env.Store.Dir(),
		Home:        e.env.Getenv("HOME"),
		StateHome:   e.env.Getenv("XDG_STATE_HOME"),
		CLI:         e.facts.CLI,
		SessionEnv:  e.facts.SessionEnv,
		SessionID:   e.ev.SessionID,
		Server:      e.facts.Server != nil,
		ServerPorts: e.facts.Server.ports(),
		Words:       e.facts.Words,
		Protected:   e.protected(l),
		Path:        e.env.Getenv("PATH"),
		User:        e.env.Getenv("USER"),
	}
}

// protected are the paths kept like the state directory: ralph-loop's keep of the loop's
// state, the user's own settings (the prices of models, whether an unpriced one pauses a
// loop), the host's hook files, and the binaries its hooks run (moved, removed or made
// unrunnable, they would leave the loop to the hooks' command line alone).
func (e *engine) protected(l *state.Loop) []string {
	var p []string
	if k := e.env.Store.KeepDir(); k != "" {
		p = append(p, k)
	}
	if e.env.UserSettings != "" {
		p = append(p, e.env.UserSettings)
	}
	if e.facts.Hooks.Files != nil {
		p = append(p, e.facts.Hooks.Files()...)
	}
	return append(p, e.hookBinaries(l)...)
}

// hookBinaries are the programs the host's hooks run. Reading them from every settings
// file at each tool call would cost more than the rest of the check: the loop records them
// when it is armed (and a stop again, when they changed), with a fingerprint of what they
// were read from (Env.HookStamp); while that is the same, the record holds, and only the
// files' status is read. The record is in the loop's signed file, which the agent cannot
// change; a settings file changed since (an install at another scope, the host's own
// writes) is read again. The binary running now is kept too.
func (e *engine) hookBinaries(l *state.Loop) []string {
	if e.env.HookBinaries == nil {
		return nil
	}
	if r := l.HookBinaries; r != nil && e.env.HookStamp != nil && r.Stamp == e.env.HookStamp(e.host.Name(), e.facts.ProjectDir) {
		p := r.Paths
		if exe, err := os.Executable(); err == nil && !slices.Contains(p, exe) {
			p = append(slices.Clip(p), exe)
		}
		return p
	}
	return e.env.HookBinaries(e.host.Name(), e.facts.ProjectDir)
}

// readBinaries reads the programs the host's hooks run, for the loop to record (nil when
// they cannot be told).
func (e *engine) readBinaries() *state.HookBinaries {
	if e.env.HookBinaries == nil || e.env.HookStamp == nil {
		return nil
	}
	stamp := e.env.HookStamp(e.host.Name(), e.facts.ProjectDir)
	return &state.HookBinaries{Stamp: stamp, Paths: e.env.HookBinaries(e.host.Name(), e.facts.ProjectDir)}
}

// refreshBinaries records the hook binaries again in l when what they are read from
// changed since (called under the session's lock, by a stop).
func (e *engine) refreshBinaries(l *state.Loop) {
	if l.HookBinaries == nil || e.env.HookStamp == nil || l.HookBinaries.Stamp == e.env.HookStamp(e.host.Name(), e.facts.ProjectDir) {
		return
	}
	l.HookBinaries = e.readBinaries()
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
