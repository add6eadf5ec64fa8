package main

import (
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
)

// hostNames lists the supported hosts.
func hostNames() string { return strings.Join(hosts.Names(), ", ") }

// lookupHost returns the named host or a usage error listing the supported ones.
func lookupHost(name string) (hook.Host, error) {
	if h, ok := hosts.Lookup(name); ok {
		return h, nil
	}
	return nil, unknownHost(name, hosts.Names())
}

// unknownHost is the usage error for a host name that is none of names, with the nearest
// one's when the typo is small, as for commands and flags.
func unknownHost(name string, names []string) error {
	if best := nearest(strings.ToLower(name), names); best != "" {
		return usagef("unknown host %q (did you mean %q?): supported hosts are: %s", name, best, strings.Join(names, ", "))
	}
	return usagef("unknown host %q: supported hosts are: %s", name, strings.Join(names, ", "))
}
