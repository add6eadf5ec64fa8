package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// lockHolder says who holds the lock file at path: a live ralph-loop (waited for), or
// anything else, which never is: a process stopped, another program (by the file it runs,
// not its name), or a process that is gone although the lock is still held (it handed the
// file on to another process; ralph-loop's own lock files are close-on-exec).
func lockHolder(path string) state.LockHolder {
	fi, err := os.Stat(path)
	if err != nil {
		return state.LockHolder{}
	}
	dev, ino, ok := devIno(fi)
	if !ok {
		return state.LockHolder{}
	}
	pids, err := proc.LockHolders(dev, ino)
	if err != nil {
		return state.LockHolder{}
	}
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return state.LockHolder{}
	}
	var h state.LockHolder
	for _, pid := range pids {
		p, err := proc.Read(pid)
		switch {
		case err != nil || p.Zombie:
			h.Gone = true
			h.Who = fmt.Sprintf("a process that is gone (pid %d), whose lock file another process holds", pid)
			continue
		case p.Stopped:
			return state.LockHolder{Foreign: true, Who: p.String() + ", stopped"}
		}
		// An exiting process has no program any more but still holds its files: unknown,
		// so waited for.
		exe, err := os.Stat(fmt.Sprintf("/proc/%d/exe", pid))
		if err == nil && !os.SameFile(exe, self) {
			return state.LockHolder{Foreign: true, Who: p.String()}
		}
		if err == nil {
			return state.LockHolder{Who: p.String()} // a live ralph-loop
		}
		h = state.LockHolder{Who: p.String()}
	}
	return h
}

// refuseInside returns the error of a command (what it is, for messages) that would end,
// re-arm or unhook a loop, run below the host of an active loop: in the agent's shell, a
// host the agent started, a script it wrote, or the host's own shell escape. Such a command
// is refused whatever its spelling; the attempt is logged in the loop's session and the
// user is told there. A command whose chain of parents cannot be followed to its end, or
// that runs in another process namespace than a loop's host, may run below it, and is
// refused too. The loops looked at are those of stores (the command's own, and for install
// and uninstall those its ancestors' hooks use). nil when it may act, or when process
// ancestry cannot be read at all (the guard's reading of the command is then the only
// line, and status says so).
func refuseInside(ctx context.Context, what string, stores ...*state.Store) error {
	a, ok := hook.SelfAncestry()
	if !ok {
		return nil
	}
	for _, s := range stores {
		l, o := hook.InsideLoop(s, a)
		if l == nil {
			continue
		}
		return refused(ctx, s, o, what, a)
	}
	return nil
}

// refused records a refused command (what) in the session of the loop o, run by a process
// of ancestry a, and returns its error.
func refused(ctx context.Context, s *state.Store, o hook.Owned, what string, a hook.Ancestry) error {
	env := hook.Env{Store: s}
	if o.Unseen != "" {
		_ = hook.RecordRefusal(ctx, env, o.Loop.SessionID, fmt.Sprintf("%q run where ralph-loop cannot tell whether it is below %s (%s)", what, o.Proc, o.Unseen))
		return fmt.Errorf("%s", inject.RefusedUnseen(what, o.Loop.SessionID, o.Proc.Comm, o.Proc.PID, o.Unseen))
	}
	_ = hook.RecordRefusal(ctx, env, o.Loop.SessionID, fmt.Sprintf("%q run by %s", what, chainString(a.Procs, o.Proc)))
	return fmt.Errorf("%s", inject.RefusedCommand(what, o.Loop.SessionID, o.Proc.Comm, o.Proc.PID))
}

// chainString names the processes from this one's parent up to the host p.
func chainString(chain []proc.Info, p proc.Info) string {
	var names []string
	for _, q := range chain {
		if q.PID == p.PID {
			break
		}
		names = append(names, q.String())
	}
	if len(names) == 0 {
		return p.String() + " itself (a tool call of the agent, or the host's shell escape)"
	}
	return strings.Join(names, " under ") + " under " + p.String()
}

// ancestorStores are the state directories the hooks of this process's ancestors use (from
// their environment when they started), besides this process's own: an install or
// uninstall with another XDG_STATE_HOME still unhooks the loops its ancestors run.
func ancestorStores() []*state.Store {
	own := stateDir()
	seen := map[string]bool{own: true}
	out := []*state.Store{newStore()}
	chain, _ := proc.SelfAncestors() // as far as it can be followed
	for _, p := range chain {
		env, err := proc.Environ(p.PID)
		if err != nil {
			continue
		}
		dir := storeDirOf(env)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		out = append(out, state.NewStore(dir))
	}
	return out
}

// storeDirOf is the state directory of a process with environment env.
func storeDirOf(env []string) string {
	var home, xdgState string
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "XDG_STATE_HOME="):
			xdgState = kv[len("XDG_STATE_HOME="):]
		case strings.HasPrefix(kv, "HOME="):
			home = kv[len("HOME="):]
		}
	}
	if xdgState != "" && filepath.IsAbs(xdgState) {
		return filepath.Join(xdgState, "ralph-loop")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "ralph-loop")
}

// commandLine is this command as typed, for messages and the log.
func commandLine() string {
	return "ralph-loop " + strings.Join(os.Args[1:], " ")
}

// refuseUnhook returns the error of an install or uninstall of host h at scope (project
// directory dir) run below the host of an active loop of the same host whose settings it
// would change: the loop's hooks are the user's to change. An install into another home
// or project (a test run under a loop) goes ahead.
func refuseUnhook(ctx context.Context, inst *install.Target, scope, dir string) error {
	a, ok := hook.SelfAncestry()
	if !ok {
		return nil
	}
	mine := scopeTarget(inst, scope, os.Getenv, dir)
	for _, s := range ancestorStores() {
		for _, o := range hook.OwnedLoops(s, a) {
			if o.Loop.Host != inst.Name {
				continue
			}
			// The host's environment and directory, where it can be seen (an owner not seen
			// among the ancestors may be another process under its pid here).
			getenv := os.Getenv
			if env, err := proc.Environ(o.Proc.PID); err == nil && o.Unseen == "" {
				getenv = lookup(env)
			}
			theirs := []string{scopeTarget(inst, scope, getenv, o.Loop.Cwd)}
			if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", o.Proc.PID)); err == nil && o.Unseen == "" {
				theirs = append(theirs, scopeTarget(inst, scope, getenv, cwd))
			}
			for _, t := range theirs {
				if mine != "" && sameFile(mine, t) {
					return refused(ctx, s, o, commandLine(), a)
				}
			}
		}
	}
	return nil
}

// scopeTarget is the file (or, for a host with no settings file, the directory) through
// which the hooks of inst's host at scope are installed, for environment getenv and project dir.
func scopeTarget(inst *install.Target, scope string, getenv func(string) string, dir string) string {
	sc, ok := inst.Scope(scope)
	if !ok {
		return ""
	}
	base := dir
	if sc.Base == install.UserBase {
		d, err := inst.Host.UserDir(getenv)
		if err != nil {
			return ""
		}
		base = d
	}
	if sc.Settings != "" {
		return filepath.Join(base, sc.Settings)
	}
	return filepath.Join(base, sc.CommandsDir)
}

// sameFile compares two paths as written and with links resolved.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(filepath.Dir(a))
	rb, err2 := filepath.EvalSymlinks(filepath.Dir(b))
	return err1 == nil && err2 == nil && filepath.Join(ra, filepath.Base(a)) == filepath.Join(rb, filepath.Base(b))
}

// lookup is getenv over an environment list.
func lookup(env []string) func(string) string {
	return func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
}
