// Package hosts lists the agent CLIs ralph-loop answers: one hook.Host per host package.
package hosts

import (
	"slices"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/codex"
	"github.com/ralph-loop/ralph-loop/hook/copilot"
	"github.com/ralph-loop/ralph-loop/hook/cursor"
	"github.com/ralph-loop/ralph-loop/hook/droid"
	"github.com/ralph-loop/ralph-loop/hook/gemini"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/opencode"
	"github.com/ralph-loop/ralph-loop/hook/pi"
	"github.com/ralph-loop/ralph-loop/hook/qwen"
)

// All are the supported hosts, in the order help lists them.
var All = []hook.Host{
	claude.Host{},
	qwen.Host{},
	codex.Host{},
	copilot.Host{},
	gemini.Host{},
	cursor.Host{},
	opencode.Host{},
	droid.Host{},
	opencode.Kilo,
	pi.Host{},
}

// Lookup returns the host of that name.
func Lookup(name string) (hook.Host, bool) {
	i := slices.IndexFunc(All, func(h hook.Host) bool { return h.Name() == name })
	if i < 0 {
		return nil, false
	}
	return All[i], true
}

// Names are the supported hosts' names.
func Names() []string {
	names := make([]string, len(All))
	for i, h := range All {
		names[i] = h.Name()
	}
	return names
}

// Installable is a host that ralph-loop can install itself into.
type Installable interface {
	Installer() *install.Target
}

// Installers are the installers of the hosts that have one, in the order of All.
func Installers() []*install.Target {
	var out []*install.Target
	for _, h := range All {
		if i, ok := h.(Installable); ok {
			out = append(out, i.Installer())
		}
	}
	return out
}

// Evented is a host whose events are not hook entries its installer writes (opencode's
// plugin passes on events of its own): it names them.
type Evented interface {
	Events() []string
}

// Events are the events of h that ralph-loop answers ("ralph-loop hook --help" lists
// them): those its installer hooks, or those it names itself.
func Events(h hook.Host) []string {
	if e, ok := h.(Evented); ok {
		return e.Events()
	}
	var names []string
	if i, ok := h.(Installable); ok {
		for _, e := range i.Installer().Events {
			names = append(names, e.Name)
		}
	}
	return names
}

// Title is the host's name for people ("Claude Code"), its installer's title.
func Title(h hook.Host) string {
	if i, ok := h.(Installable); ok && i.Installer().Title != "" {
		return i.Installer().Title
	}
	return h.Name()
}

// Installer returns the installer of the named host.
func Installer(name string) (*install.Target, bool) {
	for _, i := range Installers() {
		if i.Name == name {
			return i, true
		}
	}
	return nil, false
}
