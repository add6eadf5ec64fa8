package main

import (
	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/state"
)

// sandbox reports the host's sandbox for the agent's shell, the strongest wall around
// ralph-loop's files: on, off (and how to turn it on), or on in the settings but unable to
// start here, which is a problem: the host then runs every command outside it, or
// refuses to start.
func (d *doctor) sandbox(h *install.Target) {
	if h != claude.Installer {
		return
	}
	st, enabled := claude.SandboxState(d.getenv, d.dir)
	if missing := claude.SandboxMissing(); enabled && missing != "" {
		d.problem("%s: its sandbox is on in its settings, but %s: until then it runs the agent's commands outside it, or does not start (failIfUnavailable)", h.Title, missing)
		return
	}
	switch st {
	case state.SandboxOn:
		d.say("sandbox: on: the agent's commands cannot write ralph-loop's files")
	default:
		d.say("sandbox: %s: the agent's commands are kept from ralph-loop's files by the process table and the guard only (ralph-loop install --sandbox turns it on)", st)
	}
}
