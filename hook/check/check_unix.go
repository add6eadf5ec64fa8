//go:build unix

package check

import (
	"os/exec"
	"syscall"
	"time"
)

// shell runs each check: the system's, by its path, never a sh found on a PATH that may
// name the project's bin/ first.
const shell = "/bin/sh"

// configure runs the check in a process group of its own, killed whole on timeout.
func configure(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
