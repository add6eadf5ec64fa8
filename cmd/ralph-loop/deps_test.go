package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every hook process starts this binary, so it stays a static one: a package that needs the
// C library (os/user, net) would bring in cgo, and every hook would pay for the dynamic
// loader (1 to 5 ms per process, measured).
func TestStaticBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "runtime/cgo", "os/user", "net":
			t.Errorf("ralph-loop depends on %s", p)
		}
	}
}

// The dashboard's terminal UI libraries stay in its own program (cmd/ralph-loop-watch):
// linked here they would initialise in every hook process, and bring cgo in through
// os/user (docs/performance.md, "The dashboard apart").
func TestNoDashboardLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "charm.land/") || strings.HasPrefix(p, "github.com/charmbracelet/") || p == "github.com/xo/terminfo" {
			t.Errorf("ralph-loop depends on %s", p)
		}
	}
}

// The engine knows no installer and no host (docs/architecture.md): what a hook command
// line answers by itself is bridged by hook/internal/hookline, which the hosts' installers
// call.
func TestEngineImportsNoInstallerNorHost(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ralph-loop/ralph-loop/hook").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(p, "github.com/ralph-loop/ralph-loop/hook/")
		if !ok {
			continue
		}
		switch rest {
		case "install", "hosts", "claude", "codex", "copilot", "cursor", "droid", "gemini", "opencode", "pi", "qwen":
			t.Errorf("package hook depends on hook/%s", rest)
		}
	}
}
