package install

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
)

// HookCommand is the command line of a host's hooks for a binary at an absolute path.
func HookCommand(binary, host string) string {
	return args.Quote(binary) + " hook --host " + host
}

// DefaultCommand makes a hook's command line: the binary's absolute path (BinaryCommand),
// or at a shared scope the portable command (PortableCommand).
func DefaultCommand(c CommandSpec) string {
	if c.Portable {
		return PortableCommandAt(c.Target, c.Event, c.Scope)
	}
	return BinaryCommand(c.Target, c.Event, c.Binary)
}

// BinaryCommand is the hook command line at the user's own scopes: it runs the binary at its
// absolute path and, once that is gone (npm rm -g, a deleted download), does what the
// portable command does on a machine without ralph-loop: exits 0 (no hook error, no block),
// telling the user at the events that ask for it (Event.Notice) that ralph-loop is gone and
// how to get it back or remove the hooks.
func BinaryCommand(h *Target, ev Event, binary string) string {
	q := args.Quote(binary)
	return guarded(h, ev, "[ -x "+q+" ] && exec "+q+" hook --host "+h.Name+"; ", inject.BinaryGone(h.Title, binary))
}

// HookBinary is the program a hook command line of ralph-loop's runs: the binary of
// HookCommand or BinaryCommand, or "ralph-loop" (looked up on PATH) for the portable command.
func HookBinary(cmd, host string) (string, bool) {
	if IsHookCommand(cmd, host) {
		w, _ := args.Split(cmd)
		return w[0].Text, true
	}
	if strings.HasPrefix(cmd, "command -v ralph-loop ") {
		return "ralph-loop", true
	}
	return guardedBinary(cmd, host)
}

// guardedBinary is the binary of a BinaryCommand line for the host, from any event.
func guardedBinary(cmd, host string) (string, bool) {
	rest, ok := strings.CutPrefix(cmd, "[ -x ")
	if !ok {
		return "", false
	}
	q, _, ok := strings.Cut(rest, " ] && exec ")
	if !ok {
		return "", false
	}
	w, err := args.Split(q)
	if err != nil || len(w) != 1 || !strings.HasPrefix(rest, q+" ] && exec "+q+" hook --host "+host+"; ") {
		return "", false
	}
	return w[0].Text, true
}

// PortableCommand is a hook command for files used on other machines: it runs the
// ralph-loop found on PATH, and on a machine without one it exits 0 (no hook error, no
// block), telling the user once how to get it at the events that ask for it (Event.Notice).
// It is a POSIX sh command line, as the hosts run them.
func PortableCommand(h *Target, ev Event) string {
	return portable(h, ev, "")
}

// PortableCommandAt is PortableCommand for a shared scope of the host's: it sets ScopeEnv
// to the scope, so that the hook defers to ralph-loop's hooks in the machine's own settings
// (see Defers). Install writes it at shared scopes.
func PortableCommandAt(h *Target, ev Event, scope string) string {
	return portable(h, ev, scope)
}

func portable(h *Target, ev Event, scope string) string {
	env := ""
	if scope != "" {
		env = ScopeEnv + "=" + scope + " "
	}
	run := "command -v ralph-loop >/dev/null 2>&1 && " + env + "exec ralph-loop hook --host " + h.Name + "; "
	return guarded(h, ev, run, inject.NotInstalledHere(h.Title))
}

// guarded is a hook command line that runs ralph-loop by run (which execs it when it can)
// and otherwise reads the event, says text at the events that ask for it, and exits 0.
func guarded(h *Target, ev Event, run, text string) string {
	say := ""
	if ev.Notice != Silent {
		if h.Notice != nil {
			say = "printf '%s\\n' " + args.Quote(h.Notice(text))
		} else {
			say = "printf '%s\\n' " + args.Quote(text) + " >&2"
		}
	}
	switch ev.Notice {
	case Always:
		return run + "cat >/dev/null; " + say + "; exit 0"
	case IfRalph:
		return run + `case "$(cat)" in *ralph*) ` + say + ";; esac; exit 0"
	}
	return run + "cat >/dev/null; exit 0"
}

// commandFor is the command line of the host's hooks for an event.
func (h *Target) commandFor(ev Event, binary string, scope Scope) string {
	mk := h.Command
	if mk == nil {
		mk = DefaultCommand
	}
	return mk(CommandSpec{Target: h, Event: ev, Binary: binary, Portable: scope.Shared, Scope: scope.Name})
}

// IsHookCommand reports whether a command line runs ralph-loop's hook for the named host
// from any path: "<prog> hook --host NAME" where prog's base name ends in "ralph-loop".
// A command that only mentions it (a wrapper, a shell -c) is not recognised.
func IsHookCommand(cmd, host string) bool {
	w, err := args.Split(cmd)
	if err != nil || len(w) != 4 {
		return false
	}
	base := strings.TrimSuffix(filepath.Base(w[0].Text), ".exe")
	return strings.HasSuffix(base, "ralph-loop") &&
		w[1].Text == "hook" && w[2].Text == "--host" && w[3].Text == host
}

// Ours reports whether a hook command line is ralph-loop's for this host: the binary's
// hook command from any path, the portable command (in any of its forms), or a command
// line a record says install wrote.
func (h *Target) Ours(cmd string, rec *Record) bool {
	if IsHookCommand(cmd, h.Name) {
		return true
	}
	if bin, ok := guardedBinary(cmd, h.Name); ok {
		for _, n := range []NoticeWhen{Silent, Always, IfRalph} {
			if cmd == h.commandFor(Event{Notice: n}, bin, Scope{}) {
				return true
			}
		}
	}
	if rec != nil {
		for _, c := range rec.Commands {
			if c == cmd {
				return true
			}
		}
	}
	scopes := []string{"", ScopePlugin}
	for _, s := range h.Scopes {
		if s.Shared {
			scopes = append(scopes, s.Name)
			for _, ev := range h.Events {
				if cmd == h.commandFor(ev, "", s) {
					return true
				}
			}
		}
	}
	for _, scope := range scopes {
		for _, n := range []NoticeWhen{Silent, Always, IfRalph} {
			if cmd == portable(h, Event{Notice: n}, scope) {
				return true
			}
		}
	}
	return false
}

// ScopeEnv is set by the portable command to the (shared) scope it was installed at.
const ScopeEnv = "RALPH_LOOP_SCOPE"

// ScopePlugin is the scope name of hooks that come with a host plugin (Claude Code's), which
// are shared like a project's and defer to every other set.
const ScopePlugin = "plugin"

// Defers reports whether a hook run from a shared scope (ScopeEnv) is to do nothing because
// another set of ralph-loop's hooks answers the same event: two sets would handle every
// event twice. A project's set defers to the machine's own (user, local scope) whose binary
// exists; a plugin's set defers to any other set. projectDir is the session's project.
func (h *Target) Defers(scope, projectDir string, getenv func(string) string) bool {
	s, ok := h.Scope(scope)
	plugin := scope == ScopePlugin
	if !plugin && (!ok || !s.Shared) {
		return false
	}
	for _, other := range h.Scopes {
		if other.Name == scope || other.Shared && !plugin {
			continue
		}
		path := h.SettingsFile(other.Name, projectDir, getenv)
		if path == "" {
			continue
		}
		for _, cmd := range h.hookCommands(path) {
			if h.runnable(cmd, getenv) {
				return true
			}
		}
	}
	return false
}

// hookCommands lists the command lines of ralph-loop's hooks in a settings file.
func (h *Target) hookCommands(path string) []string {
	data, _, err := readFile(path)
	if err != nil || len(data) == 0 {
		return nil
	}
	v, err := plainValue(data)
	if err != nil {
		return nil
	}
	root, ok := v.(*object)
	if !ok {
		return nil
	}
	hooks, _ := objectAt(root, h.hooksPath(), false)
	if hooks == nil {
		return nil
	}
	var out []string
	for _, k := range hooks.keys {
		list, _ := hooks.vals[k].([]any)
		for _, g := range list {
			entries := []any{g}
			if h.Shape == Nested {
				if o, ok := g.(*object); ok {
					entries, _ = o.vals["hooks"].([]any)
				}
			}
			for _, e := range entries {
				o, ok := e.(*object)
				if !ok || !h.ourEntry(o, nil) {
					continue
				}
				for _, key := range h.commandKeys() {
					if c, ok := o.vals[key].(string); ok {
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// runnable reports whether a hook command line's program exists on this machine: the
// binary it names, or for a portable command a ralph-loop on PATH.
func (h *Target) runnable(cmd string, getenv func(string) string) bool {
	prog, ok := HookBinary(cmd, h.Name)
	if !ok {
		w, err := args.Split(cmd)
		if err != nil || len(w) == 0 {
			return false
		}
		prog = w[0].Text
	}
	if !strings.ContainsRune(prog, filepath.Separator) {
		return OnPath(prog, getenv("PATH"))
	}
	fi, err := os.Stat(prog)
	return err == nil && !fi.IsDir()
}
