package main

import (
	"slices"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/claude"
)

// hosts are the agent CLIs ralph-loop answers, by name.
var hosts = map[string]hook.Host{
	claude.Name: claude.Host{},
}

// hostNames lists the supported hosts, sorted.
func hostNames() string {
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// lookupHost returns the named host or a usage error listing the supported ones.
func lookupHost(name string) (hook.Host, error) {
	if h, ok := hosts[name]; ok {
		return h, nil
	}
	return nil, usagef("unknown host %q: supported hosts are: %s", name, hostNames())
}
