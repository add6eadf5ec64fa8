//go:build !unix

package check

import "os/exec"

// shell runs each check (a sh found on PATH: Git for Windows').
const shell = "sh"

func configure(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
