//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package main

// stdinTerminal reports whether standard input is a terminal: never known here.
func stdinTerminal() bool { return false }
