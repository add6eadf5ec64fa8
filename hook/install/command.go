package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
)

// HookCommand is the command line of a host's hooks for a binary at an absolute path.
func HookCommand(binary, host string) string {
	return args.Quote(binary) + " hook --host " + host
}

// DefaultCommand makes a hook's command line: the binary's absolute path (BinaryCommand),
// or at a shared scope the portable command (PortableCommandAt).
func DefaultCommand(c CommandSpec) string {
	if c.Portable {
		return PortableCommandAt(c.Target, c.Event, c.Scope)
	}
	return BinaryCommand(c.Target, c.Event, c.Binary, c.Script)
}

// Mark ends every hook command line install writes, saying what it is: install and
// uninstall know their lines by it (as pre-commit knows its hook by its "# ID:" line),
// whatever the line holds, now or in a later version.
const Mark = "# ralph-loop hook"

// A hook's command line is POSIX sh, as the hosts run them, and short: it runs ralph-loop
// with exec (the host then talks to ralph-loop itself), and when it cannot (the binary
// removed, moved or made unrunnable; a machine without ralph-loop), it reads the host's hook
// script (Script, hook.sh) with ".", which answers the event in the host's protocol: for a
// session whose loop is active a stop is blocked, the user's /cancel-ralph recorded and let
// through; for any other session nothing, but telling the user at the events that ask for
// it (Event.Notice) that ralph-loop is missing. A tool event's line reads the script first:
// with no active loop on this machine it ends there, having started no process.
//
// The line sets b (the binary's path, "" for the one on PATH), e (the event) and s (the
// script), and ends with Mark. Without the script, a line answers as ralph-loop would with
// no loop: it lets everything through, telling the user at the events that ask for it that
// no ralph-loop can run (inject.HooksFindNone).

// BinaryCommand is the hook command line at the user's own scopes: it runs the binary at its
// absolute path, and once that cannot run, the host's hook script at its absolute path
// (install writes it there: ScriptPath).
func BinaryCommand(inst *Target, ev Event, binary, script string) string {
	run := `[ -f "$b" ] && [ -x "$b" ] && exec "$b" hook --host ` + inst.Name + "; "
	return inst.line(ev, "b="+args.Quote(binary), run, "s="+args.Quote(script)+"; ")
}

// PortableCommandAt is the hook command line for files used on other machines, at a shared
// scope of the host's: it runs the ralph-loop found on PATH, and on a machine without one
// the host's hook script in ralph-loop's keep, where install on that machine wrote it (or
// the one in the plugin, at ScopePlugin). It sets ScopeEnv to the scope, so that the hook
// defers to ralph-loop's hooks in the machine's own settings (see Defers). Install writes it
// at shared scopes.
func PortableCommandAt(inst *Target, ev Event, scope string) string {
	env := ""
	if scope != "" {
		env = ScopeEnv + "=" + scope + " "
	}
	run := portableRun + env + "exec ralph-loop hook --host " + inst.Name + "; "
	// ralph-loop's keep, where ralph-loop keeps it: $XDG_DATA_HOME/ralph-loop, else
	// ~/.local/share/ralph-loop, or on macOS ~/Library/Application Support/ralph-loop. A
	// relative $XDG_DATA_HOME (which ralph-loop ignores) is passed over: it would name a
	// directory of the project's, which the agent can write.
	find := `for d in "${XDG_DATA_HOME:-$HOME/.local/share}" ~/Library/Application\ Support; do case $d in /*) s=$d/ralph-loop/hooks/` +
		inst.Name + `.sh; [ -f "$s" ] && . "$s";; esac; done; `
	if scope == ScopePlugin && inst.PluginRoot != "" {
		find = `s="${` + inst.PluginRoot + `}/` + PluginScript + `"; `
	}
	return inst.line(ev, "b=", run, find)
}

// portableRun is how the portable command runs ralph-loop.
const portableRun = "command -v ralph-loop >/dev/null && "

// line is a hook command line: the assignment of b, then run (which execs ralph-loop when
// it can) and the script (find sets s, and may read it itself), in the order the event
// needs, then what it answers without either.
func (inst *Target) line(ev Event, bin, run, find string) string {
	head := bin + " e=" + args.Quote(ev.Name)
	read := `[ -f "$s" ] && . "$s"; `
	if strings.Contains(find, ". \"$s\"") {
		read = ""
	}
	if rest, ok := strings.CutPrefix(find, "s="); ok {
		// s set in the first assignments: "b=… e=… s=…; "
		head += " s=" + strings.TrimSuffix(rest, "; ")
		find = ""
	}
	head += "; "
	switch {
	case ev.Kind == ToolEvent:
		return head + find + read + run + "exec cat >/dev/null " + Mark
	case ev.Kind == OtherEvent && ev.Notice == Silent:
		return bin + " e=" + args.Quote(ev.Name) + "; " + run + "exec cat >/dev/null " + Mark
	}
	// (Without "exit 0" where the line's last command is an echo that exits 0.)
	tail := "exit 0 "
	missing := strings.TrimSuffix(inst.answer(ev, Reply{Notice: inject.HooksFindNone()}), "; exit 0")
	switch ev.Notice {
	case Always:
		tail = "cat >/dev/null; " + missing + " "
	case IfRalph:
		tail = "case $(cat) in *ralph*) " + missing + ";; esac "
	}
	return head + run + find + read + tail + Mark
}

// answer is the shell that prints r as the host's hook does and exits.
func (inst *Target) answer(ev Event, r Reply) string {
	var e Encoded
	if enc, ok := inst.Host.(Encoder); ok {
		e = enc.Encode(ev, r)
	} else {
		e.Stderr = strings.TrimSpace(r.Reason + "\n" + r.Notice)
	}
	var parts []string
	switch line, ok := strings.CutSuffix(e.Stdout, "\n"); {
	case ok && !strings.ContainsAny(line, "\\\n") && !strings.HasPrefix(line, "-"):
		parts = append(parts, "echo "+args.Quote(line)) // (echo reads a backslash in some shells)
	case e.Stdout != "":
		parts = append(parts, "printf '%s' "+args.Quote(e.Stdout))
	}
	if e.Stderr != "" {
		parts = append(parts, "printf '%s\\n' "+args.Quote(strings.TrimSuffix(e.Stderr, "\n"))+" >&2")
	}
	return strings.Join(append(parts, fmt.Sprintf("exit %d", e.Code)), "; ")
}

// DefaultMaxIterations is --max-iterations' default, for a loop whose file cannot be read.
func DefaultMaxIterations() string {
	for _, f := range args.Flags {
		if f.Name == args.FlagMaxIterations {
			return f.Default
		}
	}
	return "25"
}

// HookBinary is the program a hook command line of ralph-loop's runs: the binary of
// HookCommand or BinaryCommand (of this version or an earlier one), or "ralph-loop" (looked
// up on PATH) for the portable command.
func HookBinary(cmd, host string) (string, bool) {
	if IsHookCommand(cmd, host) {
		w, _ := args.Split(cmd)
		return w[0].Text, true
	}
	if strings.HasSuffix(cmd, " "+Mark) {
		if b, ok := lineBinary(cmd); ok {
			if b == "" {
				return "ralph-loop", true
			}
			return b, true
		}
	}
	return earlierBinary(cmd, host)
}

// lineBinary is the binary a command line of this version's names in its first assignment,
// "b=PATH " ("" for the portable command's "b= ").
func lineBinary(cmd string) (string, bool) {
	rest, ok := strings.CutPrefix(cmd, "b=")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, " e=") {
		return "", true
	}
	for i := 0; i < len(rest); i++ {
		j := strings.Index(rest[i:], " e=")
		if j < 0 {
			break
		}
		q := rest[:i+j]
		if w, err := args.Split(q); err == nil && len(w) == 1 && args.Quote(w[0].Text) == q {
			return w[0].Text, true
		}
		i += j
	}
	return "", false
}

// commandFor is the command line of the host's hooks for an event.
func (inst *Target) commandFor(ev Event, binary, script string, scope Scope) string {
	mk := DefaultCommand
	if m, ok := inst.Host.(CommandMaker); ok {
		mk = m.Command
	}
	return mk(CommandSpec{Target: inst, Event: ev, Binary: binary, Script: script, Portable: scope.Shared, Scope: scope.Name})
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

// Ours reports whether a hook command line is ralph-loop's for this host: one install writes
// (it ends with Mark and runs the host's hook), the binary's hook command from any path, a
// command line an earlier version wrote (see legacy.go), or one a record says install wrote.
func (inst *Target) Ours(cmd string, rec *Record) bool {
	if strings.HasSuffix(cmd, " "+Mark) && strings.Contains(cmd, " hook --host "+inst.Name+"; ") {
		return true
	}
	if IsHookCommand(cmd, inst.Name) {
		return true
	}
	if rec != nil && slices.Contains(rec.Commands, cmd) {
		return true
	}
	_, ok := earlierBinary(cmd, inst.Name)
	return ok
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
func (inst *Target) Defers(scope, projectDir string, getenv func(string) string) bool {
	s, ok := inst.Scope(scope)
	plugin := scope == ScopePlugin
	if !plugin && (!ok || !s.Shared) {
		return false
	}
	for _, other := range inst.Scopes {
		if other.Name == scope || other.Shared && !plugin {
			continue
		}
		path := inst.SettingsFile(other.Name, projectDir, getenv)
		if path == "" {
			continue
		}
		for _, cmd := range inst.hookCommands(path) {
			if inst.runnable(cmd, getenv) {
				return true
			}
		}
	}
	return false
}

// hookCommands lists the command lines of ralph-loop's hooks in a settings file.
func (inst *Target) hookCommands(path string) []string {
	return inst.entryCommands(path, true)
}

// commandLines lists the command lines of every hook in a settings file.
func (inst *Target) commandLines(path string) []string {
	return inst.entryCommands(path, false)
}

// entryCommands lists the command lines of the hooks in a settings file (only ralph-loop's
// when ours).
func (inst *Target) entryCommands(path string, ours bool) []string {
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
	hooks, _ := objectAt(root, inst.hooksPath(), false)
	if hooks == nil {
		return nil
	}
	var out []string
	for _, k := range hooks.keys {
		list, _ := hooks.vals[k].([]any)
		for _, g := range list {
			entries := []any{g}
			if inst.Shape == Nested {
				if o, ok := g.(*object); ok {
					entries, _ = o.vals["hooks"].([]any)
				}
			}
			for _, e := range entries {
				o, ok := e.(*object)
				if !ok || ours && !inst.ourEntry(o, nil) {
					continue
				}
				for _, key := range inst.commandKeys() {
					if c, ok := o.vals[key].(string); ok {
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// Binaries are the programs ralph-loop's hooks in the host's settings files run, at every
// scope (for a project's, projectDir's): the binary a command line names, or for a portable
// one the ralph-loop found on PATH; and the ones a PluginFiler's files name (FileBinary).
// Reading them costs no check of each command line against every form install writes: only
// the forms' binaries are read.
func (inst *Target) Binaries(getenv func(string) string, projectDir string) []string {
	var out []string
	add := func(b string) {
		if !strings.ContainsRune(b, filepath.Separator) {
			if b = lookPath(b, getenv("PATH")); b == "" {
				return
			}
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	for _, s := range inst.Scopes {
		path := inst.SettingsFile(s.Name, projectDir, getenv)
		if path == "" {
			continue
		}
		for _, cmd := range inst.commandLines(path) {
			if b, ok := HookBinary(cmd, inst.Name); ok {
				add(b)
			}
		}
	}
	if plugin, ok := inst.Host.(PluginFiler); ok {
		for _, path := range inst.HookFiles(getenv, projectDir) {
			if data, _, err := readFile(path); err == nil && len(data) <= maxFileBinary {
				if b, ok := plugin.FileBinary(data); ok {
					add(b)
				}
			}
		}
	}
	return out
}

// BinarySources are the files Binaries reads: while none of them changes (nor $PATH), the
// binaries are the same.
func (inst *Target) BinarySources(getenv func(string) string, projectDir string) []string {
	var out []string
	for _, s := range inst.Scopes {
		if path := inst.SettingsFile(s.Name, projectDir, getenv); path != "" {
			out = append(out, path)
		}
	}
	if _, ok := inst.Host.(PluginFiler); ok {
		out = append(out, inst.HookFiles(getenv, projectDir)...)
	}
	return out
}

// maxFileBinary bounds the hook files FileBinary reads (opencode's plugin is 15 KB).
const maxFileBinary = 1 << 20

// ScriptBinary is a PluginFiler's FileBinary for a JavaScript file of ralph-loop's (opencode's
// plugin, pi's extension), known by mark: the program it runs, its "const BINARY = " JSON
// string at the start of a line, an absolute path or "ralph-loop" (on PATH).
func ScriptBinary(mark string, data []byte) (string, bool) {
	s := string(data)
	if !strings.Contains(s, mark) {
		return "", false
	}
	_, rest, ok := strings.Cut(s, "\nconst BINARY = ")
	if !ok {
		return "", false
	}
	var b string
	if err := json.NewDecoder(strings.NewReader(rest)).Decode(&b); err != nil || b == "" {
		return "", false
	}
	return b, true
}

// lookPath is the executable named name in one of the directories of path ("" if none).
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// runnable reports whether a hook command line's program exists on this machine: the
// binary it names, or for a portable command a ralph-loop on PATH.
func (inst *Target) runnable(cmd string, getenv func(string) string) bool {
	prog, ok := HookBinary(cmd, inst.Name)
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
