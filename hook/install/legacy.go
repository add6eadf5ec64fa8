package install

import (
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
)

// The command lines earlier versions wrote, known so that install upgrades them in place and
// uninstall removes them. Nothing writes them any more. They are known by how they start,
// which no version changed, not by the texts they carried (which changed with every wording
// of a notice): the exec of ralph-loop's hook for the host, in one of these forms, after
// the tool events' skipWithoutLoop where there was one:
//
//	[ -f BIN ] && [ -x BIN ] && exec BIN hook --host NAME; …       the fallback lines of one
//	                                                                 line each (up to 2.7 KB)
//	[ -x BIN ] && exec BIN hook --host NAME; …                      before them, which let a
//	                                                                 loop's stops through once
//	                                                                 the binary was gone
//	command -v ralph-loop >/dev/null 2>&1 && [RALPH_LOOP_SCOPE=S ]exec ralph-loop hook --host NAME; …
//
// BIN is a path whose base name ends in "ralph-loop", quoted as args.Quote does.

// skipWithoutLoop began an earlier version's tool event line: it ended the line, reading the
// input away, when no session on the machine had an active loop.
const skipWithoutLoop = `l(){ for f in "$1"/active/* "$1"/active/.[!.]* "$1"/active/..?*; do [ -e "$f" ] && return; done; return 1; }; ` +
	`case $XDG_STATE_HOME in /*) l "$XDG_STATE_HOME/ralph-loop";; *) l "$HOME/.local/state/ralph-loop" || l "$HOME/Library/Application Support/ralph-loop";; esac || exec cat >/dev/null; `

// earlierPortable began an earlier version's portable line.
const earlierPortable = "command -v ralph-loop >/dev/null 2>&1 && "

// earlierBinary is the program an earlier version's command line for the host runs: its
// binary, or "ralph-loop" for a portable one. ok is false for any other line.
func earlierBinary(cmd, host string) (string, bool) {
	rest := strings.TrimPrefix(cmd, skipWithoutLoop)
	if p, ok := strings.CutPrefix(rest, earlierPortable); ok {
		if s, ok := strings.CutPrefix(p, ScopeEnv+"="); ok {
			name, after, _ := strings.Cut(s, " ")
			if name == "" || strings.ContainsAny(name, `'"$;`) {
				return "", false
			}
			p = after
		}
		return "ralph-loop", strings.HasPrefix(p, "exec ralph-loop hook --host "+host+"; ")
	}
	for _, form := range []struct{ start, mid string }{
		{"[ -f ", " ] && [ -x %Q ] && exec %Q hook --host %H; "},
		{"[ -x ", " ] && exec %Q hook --host %H; "},
	} {
		r, ok := strings.CutPrefix(rest, form.start)
		if !ok {
			continue
		}
		end, _, _ := strings.Cut(form.mid, "%Q")
		q, _, ok := strings.Cut(r, end)
		if !ok {
			continue
		}
		w, err := args.Split(q)
		if err != nil || len(w) != 1 || args.Quote(w[0].Text) != q ||
			!strings.HasSuffix(strings.TrimSuffix(filepath.Base(w[0].Text), ".exe"), "ralph-loop") {
			continue
		}
		mid := strings.NewReplacer("%Q", q, "%H", host).Replace(form.mid)
		if strings.HasPrefix(r, q+mid) {
			return w[0].Text, true
		}
	}
	return "", false
}
