// Package hosts lists the agent CLIs ralph-loop answers: one hook.Host per host package.
package hosts

import (
	"slices"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/claude"
	"github.com/ralph-loop/ralph-loop/hook/gemini"
)

// All are the supported hosts, in the order help lists them.
var All = []hook.Host{
	claude.Host{},
	gemini.Host{},
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
