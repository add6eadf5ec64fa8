// Package hookline is the bridge between a host's protocol (hook.Host) and the hook command
// lines install writes (hook/install): what a line answers by itself, when it cannot run
// ralph-loop, encoded as the host's own hooks answer. Host packages use it in their
// installers, so that neither the engine imports the installer nor the installer the engine.
package hookline

import (
	"bytes"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
)

// Encode is a host's protocol for what its hooks' command line answers by itself when it
// cannot run ralph-loop (install.Target.Encode): the reply encoded by the host's own
// Encode, for an event of the kind the installer names. A host's installer names a function
// of its own that calls it, so that the installer is data laid out by the linker, not built
// at every start of the program.
func Encode(h hook.Host, ev install.Event, r install.Reply) install.Encoded {
	var kind hook.Kind
	switch ev.Kind {
	case install.SessionEvent:
		kind = hook.SessionStart
	case install.PromptEvent:
		kind = hook.Prompt
	case install.ToolEvent:
		kind = hook.ToolUsed
	case install.StopEvent:
		kind = hook.Stop
	case install.ConfigEvent:
		kind = hook.ConfigChange
	}
	var out, errOut bytes.Buffer
	code, err := h.Encode(&out, &errOut, hook.Event{Kind: kind, Name: ev.Name}, hook.Reply{Block: r.Block, Reason: r.Reason, Notice: r.Notice})
	if err != nil { // a buffer never fails
		panic(err)
	}
	return install.Encoded{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}
