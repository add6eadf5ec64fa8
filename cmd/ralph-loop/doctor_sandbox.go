package main

import (
	"os"

	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/install"
)

// sandbox reports the host's sandbox for the agent's shell, for a host that has one.
func (d *doctor) sandbox(inst *install.Target) {
	if hh, ok := hosts.Lookup(inst.Name); ok {
		if sb, ok := hh.(hosts.Sandboxed); ok {
			trusted := []string{stateDir(), keepDir(), userSettings()}
			if exe, err := os.Executable(); err == nil {
				trusted = append(trusted, exe)
			}
			sb.SandboxReport(d, d.getenv, d.dir, trusted)
		}
	}
}
