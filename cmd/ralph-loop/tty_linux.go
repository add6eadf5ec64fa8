package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdinTerminal reports whether standard input is a terminal.
func stdinTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}
