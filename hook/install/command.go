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
	return BinaryCommand(c.Target, c.Event, c.Binary)
}

// A hook's command line is POSIX sh, as the hosts run them. It runs ralph-loop with exec (the
// host then talks to ralph-loop itself), and when it cannot (the binary removed, moved or
// made unrunnable; a machine without ralph-loop) it answers the event itself, in the host's
// protocol (Target.Encode), without ralph-loop:
//
//   - for a session whose loop is active (its marker in the state directory's active/, or
//     its loop file or ralph-loop's copy of it in the keep saying ACTIVE), a stop is blocked
//     with the reason and how to fix it, at most as many times as the loop has iterations
//     left (counted in the session's fallback-stop.N files); the user's /cancel-ralph is
//     recorded in the session's cancel-typed file, which lets its stops through and which
//     the next ralph-loop run takes as the user's cancel (hook.Fallback); a settings change
//     is refused (ConfigChange) and a prompt or a session's start is told why;
//   - for any other session it does nothing (no hook error, no block), telling the user at
//     the events that ask for it (Event.Notice) that ralph-loop is missing.
//
// A tool event first looks for an active loop's marker on this machine, and with none it
// never starts ralph-loop: a tool call of a session without a loop costs a directory read.
// A marker removed by the agent only skips the tool hooks until the loop's next stop, which
// always runs ralph-loop (and blocks: see hook's stop).

// BinaryCommand is the hook command line at the user's own scopes: it runs the binary at its
// absolute path, and once that cannot run, answers as above; for a session without a loop,
// that tells the user at the events that ask for it that ralph-loop is gone and how to get
// it back or remove the hooks.
func BinaryCommand(inst *Target, ev Event, binary string) string {
	q := args.Quote(binary)
	run := "[ -f " + q + " ] && [ -x " + q + " ] && exec " + q + " hook --host " + inst.Name + "; "
	return inst.line(ev, run, binary, inject.BinaryGone(inst.Title, binary))
}

// PortableCommandAt is the hook command line for files used on other machines, at a shared
// scope of the host's: it runs the ralph-loop found on PATH, and on a machine without one
// answers as above; for a session without a loop, that tells the user once how to get it at
// the events that ask for it. It sets ScopeEnv to the scope, so that the hook defers to
// ralph-loop's hooks in the machine's own settings (see Defers). Install writes it at shared
// scopes.
func PortableCommandAt(inst *Target, ev Event, scope string) string {
	return portable(inst, ev, scope)
}

// portableRun is how the portable command runs ralph-loop.
const portableRun = "command -v ralph-loop >/dev/null 2>&1 && "

func portable(inst *Target, ev Event, scope string) string {
	env := ""
	if scope != "" {
		env = ScopeEnv + "=" + scope + " "
	}
	run := portableRun + env + "exec ralph-loop hook --host " + inst.Name + "; "
	return inst.line(ev, run, "ralph-loop (on PATH)", inject.NotInstalledHere(inst.Title))
}

// skipWithoutLoop ends a tool event's command line at once, reading its input away, when no
// session on this machine has an active loop (no marker in the state directory's active/:
// $XDG_STATE_HOME, or where ralph-loop keeps it without one on Linux and on macOS).
const skipWithoutLoop = `l(){ for f in "$1"/active/* "$1"/active/.[!.]* "$1"/active/..?*; do [ -e "$f" ] && return; done; return 1; }; ` +
	`case $XDG_STATE_HOME in /*) l "$XDG_STATE_HOME/ralph-loop";; *) l "$HOME/.local/state/ralph-loop" || l "$HOME/Library/Application Support/ralph-loop";; esac || exec cat >/dev/null; `

// line is a hook command line: run (which execs ralph-loop when it can), then the answer of
// its own. prog names ralph-loop for people; missing is what a session without a loop is
// told at the events that ask for it.
func (inst *Target) line(ev Event, run, prog, missing string) string {
	var b strings.Builder
	if ev.Kind == ToolEvent {
		b.WriteString(skipWithoutLoop)
	}
	b.WriteString(run)
	if ev.Kind == ToolEvent || ev.Kind == OtherEvent && ev.Notice == Silent {
		b.WriteString("exec cat >/dev/null")
		return b.String()
	}
	key := inst.SessionKey
	if key == "" {
		key = "session_id"
	}
	// The session, its loop's state directory (d) and whether its loop is active (a), and
	// the loop file that says so (f).
	b.WriteString(`in=$(cat); s=; case $in in *'"` + key + `"'*) s=${in#*'"` + key + `"'}; s=${s#*'"'}; s=${s%%'"'*};; esac; ` +
		`case $s in .|..|*[!A-Za-z0-9._-]*) s=;; esac; ` +
		`case $XDG_STATE_HOME in /*) r=$XDG_STATE_HOME;; *) r=$HOME/.local/state; [ -d "$r/ralph-loop" ] || r="$HOME/Library/Application Support";; esac; ` +
		`case $XDG_DATA_HOME in /*) k=$XDG_DATA_HOME;; *) k=$HOME/.local/share; [ -d "$k/ralph-loop" ] || k="$HOME/Library/Application Support";; esac; ` +
		`r=$r/ralph-loop; d=$r/sessions/$s; f=; a=; if [ -n "$s" ]; then ` +
		`for f in "$d/loop.json" "$k"/ralph-loop/loops/*/"$s.json"; do grep -qs '^  "status": "ACTIVE",$' "$f" && break; f=; done; ` +
		`[ -n "$f" ] || [ -e "$r/active/$s" ] && a=1; fi; `)
	say := func(r Reply) string { return inst.answer(ev, r) }
	switch ev.Kind {
	case StopEvent:
		b.WriteString(`if [ -n "$a" ]; then [ -e "$d/cancel-typed" ] && exit 0; m=; i=; ` +
			`[ -n "$f" ] && { m=$(sed -n 's/^  "max_iterations": \([0-9]*\),$/\1/p' "$f"); i=$(sed -n 's/^  "iteration": \([0-9]*\),$/\1/p' "$f"); }; ` +
			`case $m/$i in *[!0-9/]*|/*|*/) m=` + DefaultMaxIterations() + `; i=0;; esac; ` +
			`set -- "$d"/fallback-stop.*; n=$#; [ -e "$1" ] || n=0; ` +
			`if [ $((i + n)) -lt "$m" ]; then (umask 077; mkdir -p "$d" && set -C && : >"$d/fallback-stop.$n") 2>/dev/null; ` +
			say(Reply{Block: true, Reason: inject.FallbackBlock(prog), Notice: inject.FallbackNotice(inst.Title, prog)}) + `; fi; ` +
			say(Reply{Notice: inject.FallbackLimit(inst.Title, prog)}) + `; fi; `)
	case PromptEvent:
		b.WriteString(`if [ -n "$a" ]; then case $in in ` + cancelTyped + `) (umask 077; mkdir -p "$d" && set -C && : >"$d/cancel-typed") 2>/dev/null; ` +
			say(Reply{Block: true, Reason: inject.FallbackCancelled(prog)}) + `;; esac; [ -e "$d/cancel-typed" ] && exit 0; ` +
			say(Reply{Notice: inject.FallbackNotice(inst.Title, prog)}) + `; fi; `)
	case ConfigEvent:
		b.WriteString(`[ -n "$a" ] && ! [ -e "$d/cancel-typed" ] && { ` + say(Reply{Block: true, Reason: inject.FallbackConfig(inst.Title, prog)}) + `; }; `)
	default:
		b.WriteString(`[ -n "$a" ] && ! [ -e "$d/cancel-typed" ] && { ` + say(Reply{Notice: inject.FallbackNotice(inst.Title, prog)}) + `; }; `)
	}
	switch ev.Notice {
	case Always:
		b.WriteString(say(Reply{Notice: missing}))
	case IfRalph:
		b.WriteString(`case $in in *ralph*) ` + say(Reply{Notice: missing}) + `;; esac; exit 0`)
	default:
		b.WriteString("exit 0")
	}
	return b.String()
}

// cancelTyped are the case patterns of a prompt event's input that carries the user's
// /cancel-ralph in any host's form: typed (also Codex's $cancel-ralph and Claude Code's
// plugin namespace), as a command file's tag (Gemini CLI, Cursor, Factory Droid) or as
// Copilot CLI's skill invocation.
const cancelTyped = `*'prompt":"/cancel-ralph'*|*'prompt": "/cancel-ralph'*|*'prompt":"$cancel-ralph'*|*'prompt": "$cancel-ralph'*|` +
	`*'prompt":"/ralph-loop:cancel-ralph'*|*'prompt": "/ralph-loop:cancel-ralph'*|*'[ralph-loop command /cancel-ralph]'*|` +
	`*'invoked the \"/cancel-ralph\" skill'*`

// DefaultMaxIterations is --max-iterations' default, for a loop whose file cannot be read.
func DefaultMaxIterations() string {
	for _, f := range args.Flags {
		if f.Name == args.FlagMaxIterations {
			return f.Default
		}
	}
	return "25"
}

// answer is the shell that prints r as the host's hook does and exits.
func (inst *Target) answer(ev Event, r Reply) string {
	var e Encoded
	if inst.Encode != nil {
		e = inst.Encode(ev, r)
	} else {
		e.Stderr = strings.TrimSpace(r.Reason + "\n" + r.Notice)
	}
	var parts []string
	if e.Stdout != "" {
		parts = append(parts, "printf '%s' "+args.Quote(e.Stdout))
	}
	if e.Stderr != "" {
		parts = append(parts, "printf '%s\\n' "+args.Quote(strings.TrimSuffix(e.Stderr, "\n"))+" >&2")
	}
	return strings.Join(append(parts, fmt.Sprintf("exit %d", e.Code)), "; ")
}

// HookBinary is the program a hook command line of ralph-loop's runs: the binary of
// HookCommand or BinaryCommand (of this version or an earlier one), or "ralph-loop" (looked
// up on PATH) for the portable command.
func HookBinary(cmd, host string) (string, bool) {
	if IsHookCommand(cmd, host) {
		w, _ := args.Split(cmd)
		return w[0].Text, true
	}
	rest := strings.TrimPrefix(cmd, skipWithoutLoop)
	if strings.HasPrefix(rest, portableRun) || strings.HasPrefix(cmd, "command -v ralph-loop ") {
		return "ralph-loop", true
	}
	if b, ok := commandBinary(cmd, host); ok {
		return b, true
	}
	return legacyBinary(cmd, host)
}

// commandBinary is the binary of a BinaryCommand line for the host, from any event.
func commandBinary(cmd, host string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(cmd, skipWithoutLoop), "[ -f ")
	if !ok {
		return "", false
	}
	q, _, ok := strings.Cut(rest, " ] && [ -x ")
	if !ok {
		return "", false
	}
	w, err := args.Split(q)
	if err != nil || len(w) != 1 || !strings.HasPrefix(rest, q+" ] && [ -x "+q+" ] && exec "+q+" hook --host "+host+"; ") {
		return "", false
	}
	return w[0].Text, true
}

// commandFor is the command line of the host's hooks for an event.
func (inst *Target) commandFor(ev Event, binary string, scope Scope) string {
	mk := inst.Command
	if mk == nil {
		mk = DefaultCommand
	}
	return mk(CommandSpec{Target: inst, Event: ev, Binary: binary, Portable: scope.Shared, Scope: scope.Name})
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
// hook command from any path, the command line install writes (or an earlier version
// wrote) for any of the host's events, binary or portable, or a command line a record says
// install wrote.
func (inst *Target) Ours(cmd string, rec *Record) bool {
	if IsHookCommand(cmd, inst.Name) {
		return true
	}
	if rec != nil {
		for _, c := range rec.Commands {
			if c == cmd {
				return true
			}
		}
	}
	notices := []NoticeWhen{Silent, Always, IfRalph}
	if bin, ok := commandBinary(cmd, inst.Name); ok {
		for _, ev := range inst.Events {
			if cmd == inst.commandFor(ev, bin, Scope{}) {
				return true
			}
		}
	}
	if bin, ok := legacyBinary(cmd, inst.Name); ok {
		for _, n := range notices {
			if cmd == inst.legacyFor(Event{Notice: n}, bin, Scope{}) {
				return true
			}
		}
	}
	scopes := []Scope{{Shared: true}, {Name: ScopePlugin, Shared: true}}
	for _, s := range inst.Scopes {
		if s.Shared {
			scopes = append(scopes, s)
		}
	}
	for _, s := range scopes {
		for _, ev := range inst.Events {
			if cmd == inst.commandFor(ev, "", s) || cmd == inst.legacyFor(ev, "", s) {
				return true
			}
		}
		for _, n := range notices {
			if cmd == inst.legacyFor(Event{Notice: n}, "", s) {
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
// one the ralph-loop found on PATH; and the ones the files of Files name (FileBinary).
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
	if inst.FileBinary != nil {
		for _, path := range inst.HookFiles(getenv, projectDir) {
			if data, _, err := readFile(path); err == nil && len(data) <= maxFileBinary {
				if b, ok := inst.FileBinary(data); ok {
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
	if inst.FileBinary != nil {
		out = append(out, inst.HookFiles(getenv, projectDir)...)
	}
	return out
}

// maxFileBinary bounds the hook files FileBinary reads (opencode's plugin is 15 KB).
const maxFileBinary = 1 << 20

// ScriptBinary is a FileBinary for a JavaScript file of ralph-loop's (opencode's plugin,
// pi's extension), known by mark: the program it runs, its "const BINARY = " JSON string at
// the start of a line, an absolute path or "ralph-loop" (on PATH).
func ScriptBinary(mark string) func(data []byte) (string, bool) {
	return func(data []byte) (string, bool) {
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
