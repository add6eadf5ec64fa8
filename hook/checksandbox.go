package hook

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/hook/check"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// A loop's checks run what the agent wrote (a test script, a Makefile, go test): where the
// host runs the agent's shell in a sandbox, they run in the same one (check.Sandbox), so that
// nothing the agent wrote runs outside it. The sandbox is named as what protects the loop
// only where they can (state.Loop.Sandbox); elsewhere they run as before, outside it.

// sandboxClaim is the loop's sandbox claim (state.Loop.Sandbox) once its checks are
// reckoned with: a sandbox is on only if the checks, if any, can run in it here; if they
// cannot, why not.
func sandboxClaim(ctx context.Context, env Env, l *state.Loop) string {
	if l.Sandbox != state.SandboxOn || len(l.Checks) == 0 {
		return l.Sandbox
	}
	w := checkSandbox(env, l)
	if w == nil {
		return inject.SandboxChecksOutside(check.Sandbox{}.Unavailable(ctx))
	}
	if why := w.Unavailable(ctx); why != "" {
		return inject.SandboxChecksOutside(why)
	}
	return l.Sandbox
}

// checkSandbox is the sandbox the loop's checks run in: the roots the host's sandbox lets the
// agent write, with ralph-loop's own files read-only inside them; nil when the host runs
// the agent's shell in no sandbox ralph-loop knows of. The sandbox's program is found on
// PATH outside the project and those roots.
func checkSandbox(env Env, l *state.Loop) *check.Sandbox {
	r := l.SandboxRoots
	if r == nil {
		return nil
	}
	w := &check.Sandbox{Writable: r.Writable, ReadOnly: append([]string{}, r.ReadOnly...)}
	w.ReadOnly = append(w.ReadOnly, env.Store.Dir())
	if k := env.Store.KeepDir(); k != "" {
		w.ReadOnly = append(w.ReadOnly, k)
	}
	if env.UserSettings != "" {
		w.ReadOnly = append(w.ReadOnly, filepath.Dir(env.UserSettings))
	}
	if b := l.HookBinaries; b != nil {
		w.ReadOnly = append(w.ReadOnly, b.Paths...)
	}
	if exe, err := os.Executable(); err == nil {
		w.ReadOnly = append(w.ReadOnly, exe)
	}
	w.Runner, _ = programsFor(env, l).Look(check.Runner)
	return w
}

// stopSandbox is the sandbox the loop's checks run in at a stop: the agent's, where the
// host runs the agent's shell in one; none where it does not, or where the sandbox did not
// protect the loop and its program is not here. A loop the sandbox protects never runs a
// check outside it: without its program, the check fails.
func stopSandbox(env Env, l *state.Loop) *check.Sandbox {
	w := checkSandbox(env, l)
	if w == nil || w.Runner == "" && l.Sandbox != state.SandboxOn {
		return nil
	}
	return w
}
