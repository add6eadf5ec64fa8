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

// Plugged is a host that can run ralph-loop's hooks through plugins of its own (Claude
// Code): doctor reports each that the host runs in the project, and the binary its hooks run.
type Plugged interface {
	Plugins(getenv func(string) string, project string) []install.Plugin
}

// Trusting is a host that runs hooks only where the user trusts them: doctor reports what
// it can tell of that, for the hooks found in dir.
type Trusting interface {
	Trust(r install.Report, getenv func(string) string, dir string, found []install.Found)
}

// Sandboxed is a host with a sandbox of its own for the agent's shell, the best protection
// around ralph-loop's files: doctor reports whether it is on for dir, and keeps the trusted
// paths (ralph-loop's state, its keep, its binary) out of the agent's reach.
type Sandboxed interface {
	SandboxReport(r install.Report, getenv func(string) string, dir string, trusted []string)
}

// HookEnver is a host that gives its hooks an environment of its own (Claude Code passes its
// settings' env on): doctor reads the host's facts as its hooks would see them.
type HookEnver interface {
	HookEnv(getenv func(string) string, project string) func(string) string
}

// Generated is a host with files made from the code that the repository keeps (Claude
// Code's plugin and the marketplace that lists it): "make generate" writes them. Generated
// returns each as it should read, by its slash path from the repository's root, and the
// directory where no other file belongs ("": none).
type Generated interface {
	Generated(root string) (files map[string][]byte, dir string, err error)
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

// Installer returns the installer of the named host (an installer's Name is its host's).
// Only that host's installer is made: a hook asks for its own host's.
func Installer(name string) (*install.Target, bool) {
	h, ok := Lookup(name)
	if !ok {
		return nil, false
	}
	i, ok := h.(Installable)
	if !ok {
		return nil, false
	}
	return i.Installer(), true
}
