package install

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
)

// scriptSource is the hook script (hook.sh): what a hook's command line answers by itself
// when it cannot run ralph-loop, and the tool events' fast path. Its two "#@" lines are
// where a host's part goes (Script).
//
//go:embed hook.sh
var scriptSource string

// ScriptPath is where install writes the host's hook script in ralph-loop's keep:
// hooks/<host>.sh.
func ScriptPath(keepDir, host string) string {
	return filepath.Join(keepDir, "hooks", host+".sh")
}

// PluginScript is the hook script's path in a host's plugin (Claude Code's), from the
// plugin's root.
const PluginScript = "hooks/ralph-loop.sh"

// onPath is what the texts call the ralph-loop a portable command line runs.
const onPath = "ralph-loop (on PATH)"

// progMark stands for ralph-loop's path in the texts the script's answers are made from:
// the script puts the path of the command line in its place, as the answer needs it (a JSON
// string's inside, or plain text).
const progMark = "\x01"

// Script is the host's hook script, as install writes it: hook.sh with the host's part (its
// session field, its events' kinds and its answers in its own protocol, its Encoder's) in
// place of the lines that say where they go. A host that is no Encoder has none ("").
func (inst *Target) Script() string {
	if _, ok := inst.Host.(Encoder); !ok {
		return ""
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(scriptSource, "\n") {
		switch {
		case strings.HasPrefix(line, "#@facts"):
			out.WriteString(inst.scriptFacts())
		case strings.HasPrefix(line, "#@answers"):
			out.WriteString(inst.scriptAnswers())
		default:
			out.WriteString(line)
		}
	}
	return out.String()
}

// scriptKind is an event's kind and notice as the script names them.
func scriptKind(ev Event) (kind, notice string) {
	switch ev.Kind {
	case SessionEvent:
		kind = "start"
	case PromptEvent:
		kind = "prompt"
	case ToolEvent:
		kind = "tool"
	case StopEvent:
		kind = "stop"
	case ConfigEvent:
		kind = "config"
	default:
		kind = "other"
	}
	switch ev.Notice {
	case Always:
		notice = "always"
	case IfRalph:
		notice = "ralph"
	}
	return kind, notice
}

// scriptFacts is the host's part of the script that comes first: the field of its events'
// input that holds the session, the loop's default number of iterations, what the texts
// call ralph-loop on PATH, and each event's kind and notice.
func (inst *Target) scriptFacts() string {
	var b strings.Builder
	b.WriteString("# Written by install for " + inst.Title + ".\n")
	fmt.Fprintf(&b, "key=%s max=%s prog=%s\n", args.Quote(inst.sessionKey()), DefaultMaxIterations(), args.Quote(onPath))
	b.WriteString("case $e in\n")
	type arm struct {
		names        []string
		kind, notice string
	}
	var arms []*arm
	for _, ev := range inst.Events {
		kind, notice := scriptKind(ev)
		var a *arm
		for _, x := range arms {
			if x.kind == kind && x.notice == notice {
				a = x
			}
		}
		if a == nil {
			a = &arm{kind: kind, notice: notice}
			arms = append(arms, a)
		}
		a.names = append(a.names, args.Quote(ev.Name))
	}
	for _, a := range arms {
		fmt.Fprintf(&b, "%s) kind=%s notice=%s ;;\n", strings.Join(a.names, " | "), a.kind, a.notice)
	}
	b.WriteString("*) kind=other notice= ;;\nesac\n")
	return b.String()
}

func (inst *Target) sessionKey() string {
	if inst.SessionKey == "" {
		return "session_id"
	}
	return inst.SessionKey
}

// scriptAnswers is the host's answer function: for each event the script answers and each
// thing it says there, the reply as the host's hook prints it (its Encoder's), and its exit code.
func (inst *Target) scriptAnswers() string {
	var b strings.Builder
	b.WriteString("# Written by install for " + inst.Title + ": answer WHAT prints the reply to this event, in\n" +
		"# " + inst.Title + "'s protocol, and ends the command line.\n")
	b.WriteString("answer() {\n\tcase $e:$1 in\n")
	p := progMark
	for _, ev := range inst.Events {
		if ev.Kind == ToolEvent || ev.Kind == OtherEvent && ev.Notice == Silent {
			continue // the command line answers these without the script
		}
		type said struct {
			what string
			r    Reply
		}
		var replies []said
		switch ev.Kind {
		case StopEvent:
			replies = append(replies,
				said{"block", Reply{Block: true, Reason: inject.FallbackBlock(p), Notice: inject.FallbackNotice(inst.Title, p)}},
				said{"limit", Reply{Notice: inject.FallbackLimit(inst.Title, p)}})
		case PromptEvent:
			replies = append(replies,
				said{"cancelled", Reply{Block: true, Reason: inject.FallbackCancelled(p)}},
				said{"notice", Reply{Notice: inject.FallbackNotice(inst.Title, p)}})
		case ConfigEvent:
			replies = append(replies, said{"config", Reply{Block: true, Reason: inject.FallbackConfig(inst.Title, p)}})
		default:
			replies = append(replies, said{"notice", Reply{Notice: inject.FallbackNotice(inst.Title, p)}})
		}
		if ev.Notice != Silent {
			replies = append(replies,
				said{"gone", Reply{Notice: inject.BinaryGone(inst.Title, p)}},
				said{"absent", Reply{Notice: inject.NotInstalledHere(inst.Title)}})
		}
		for _, s := range replies {
			fmt.Fprintf(&b, "\t%s:%s)\n", args.Quote(ev.Name), s.what)
			for _, line := range inst.printReply(ev, s.r) {
				b.WriteString("\t\t" + line + "\n")
			}
			b.WriteString("\t\t;;\n")
		}
	}
	b.WriteString("\tesac\n\texit 0\n}\n")
	return b.String()
}

// printReply is the shell that prints r as the host's hook does, and exits with its code.
func (inst *Target) printReply(ev Event, r Reply) []string {
	e := inst.Host.(Encoder).Encode(ev, r) // (Script asked)
	var lines []string
	if e.Stdout != "" {
		lines = append(lines, printfOf(e.Stdout))
	}
	if e.Stderr != "" {
		lines = append(lines, printfOf(e.Stderr)+" >&2")
	}
	return append(lines, fmt.Sprintf("exit %d", e.Code))
}

// printfOf is a printf command that prints s, with ralph-loop's path where s has progMark:
// "$pj" (the path as the inside of a JSON string) where the mark was JSON-encoded, "$p"
// where it is as it was.
func printfOf(s string) string {
	var format strings.Builder
	var argv []string
	jsonMark := `\u0001`
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], jsonMark):
			format.WriteString("%s")
			argv = append(argv, `"$pj"`)
			i += len(jsonMark) - 1
		case c == progMark[0]:
			format.WriteString("%s")
			argv = append(argv, `"$p"`)
		case c == '%':
			format.WriteString("%%")
		case c == '\\':
			format.WriteString(`\\`)
		case c == '\n':
			format.WriteString(`\n`)
		case c == '\'':
			format.WriteString(`'\''`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&format, `\%03o`, c)
		default:
			format.WriteByte(c)
		}
	}
	cmd := "printf '" + format.String() + "'"
	for _, a := range argv {
		cmd += " " + a
	}
	return cmd
}
