package hook

import (
	"os"

	"github.com/ralph-loop/ralph-loop/hook/program"
	"github.com/ralph-loop/ralph-loop/state"
)

// programsFor finds the programs a hook runs for the loop l (git, a notifier, bubblewrap):
// on PATH, outside its project (its directory and its work tree) and the roots the host's
// sandbox lets the agent write (see package program). A PATH that names bin/ or
// node_modules/.bin first must not hand the hook a git the agent wrote.
func programsFor(env Env, l *state.Loop) program.Finder {
	dirs := []string{l.Cwd, l.Work.Repo}
	if r := l.SandboxRoots; r != nil {
		dirs = append(dirs, r.Writable...)
	}
	if env.Programs != nil {
		return env.Programs(dirs)
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return program.For(getenv, dirs...)
}

// programs is programsFor the engine's environment.
func (e *engine) programs(l *state.Loop) program.Finder { return programsFor(e.env, l) }
