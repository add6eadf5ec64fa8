package install

import (
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
)

// HookCommand is the command line of a host's hooks for a binary at an absolute path.
func HookCommand(binary, host string) string {
	return args.Quote(binary) + " hook --host " + host
}

// DefaultCommand makes a hook's command line: the binary's absolute path, or at a shared
// scope the portable command (PortableCommand).
func DefaultCommand(c CommandSpec) string {
	if c.Portable {
		return PortableCommand(c.Host, c.Event)
	}
	return HookCommand(c.Binary, c.Host.Name)
}

// PortableCommand is the hook command written into files that are committed and used on
// other machines: it runs the ralph-loop found on PATH, and on a machine without one it
// exits 0 (no hook error, no block), telling the user once how to get it at the events
// that ask for it (Event.Notice). It is a POSIX sh command line, as the hosts run them.
func PortableCommand(h *Host, ev Event) string {
	run := "command -v ralph-loop >/dev/null 2>&1 && exec ralph-loop hook --host " + h.Name + "; "
	say := ""
	if ev.Notice != Silent {
		text := inject.NotInstalledHere(h.Title)
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
func (h *Host) commandFor(ev Event, binary string, portable bool) string {
	mk := h.Command
	if mk == nil {
		mk = DefaultCommand
	}
	return mk(CommandSpec{Host: h, Event: ev, Binary: binary, Portable: portable})
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
func (h *Host) Ours(cmd string, rec *Record) bool {
	if IsHookCommand(cmd, h.Name) {
		return true
	}
	if rec != nil {
		for _, c := range rec.Commands {
			if c == cmd {
				return true
			}
		}
	}
	for _, ev := range h.Events {
		if cmd == h.commandFor(ev, "", true) {
			return true
		}
	}
	for _, n := range []NoticeWhen{Silent, Always, IfRalph} {
		if cmd == PortableCommand(h, Event{Notice: n}) {
			return true
		}
	}
	return false
}
