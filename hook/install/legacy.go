package install

import (
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
)

// The command lines earlier versions wrote, kept so that install upgrades them in place and
// uninstall removes them: they read a missing binary as "uninstalled" and exited 0, which
// let a loop's stops through once its binary was gone. Nothing writes them any more.

// LegacyCommand is the command line earlier versions wrote for an event: the binary's
// "[ -x BIN ] && exec BIN …" form, or at a shared scope the portable "command -v
// ralph-loop …" form.
func LegacyCommand(c CommandSpec) string {
	if c.Portable {
		return legacyPortable(c.Target, c.Event, c.Scope)
	}
	q := args.Quote(c.Binary)
	return legacyGuarded(c.Target, c.Event, "[ -x "+q+" ] && exec "+q+" hook --host "+c.Target.Name+"; ",
		inject.BinaryGone(c.Target.Title, c.Binary))
}

// legacyFor is the host's earlier command line for an event.
func (inst *Target) legacyFor(ev Event, binary string, scope Scope) string {
	mk := inst.Legacy
	if mk == nil {
		mk = LegacyCommand
	}
	return mk(CommandSpec{Target: inst, Event: ev, Binary: binary, Portable: scope.Shared, Scope: scope.Name})
}

func legacyPortable(inst *Target, ev Event, scope string) string {
	env := ""
	if scope != "" {
		env = ScopeEnv + "=" + scope + " "
	}
	run := "command -v ralph-loop >/dev/null 2>&1 && " + env + "exec ralph-loop hook --host " + inst.Name + "; "
	return legacyGuarded(inst, ev, run, inject.NotInstalledHere(inst.Title))
}

func legacyGuarded(inst *Target, ev Event, run, text string) string {
	say := ""
	if ev.Notice != Silent {
		if inst.Notice != nil {
			say = "printf '%s\\n' " + args.Quote(inst.Notice(text))
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

// legacyBinary is the binary of an earlier "[ -x BIN ] && exec BIN hook --host NAME; …"
// command line for the host, from any event.
func legacyBinary(cmd, host string) (string, bool) {
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
