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
	return nil, usagef("unknown host %q: supported hosts are: %s", name, hostNames())
}
