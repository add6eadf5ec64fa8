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
