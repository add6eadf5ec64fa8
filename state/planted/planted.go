//go:build unix

// Package planted is what the tests of every file ralph-loop reads or writes plant where
// that file goes (a FIFO, a link, a hard link, a directory), and the bound they run the
// operation under: a planted file is never followed, written through nor waited on.
package planted

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// A Plant is a thing left at a file's path in place of the file.
type Plant struct {
	Name string
	// Make puts it at path; a link points at outside.
	Make func(path, outside string) error
}

// The plants.
var (
	FIFO     = Plant{"fifo", func(path, _ string) error { return syscall.Mkfifo(path, 0o600) }}
	Symlink  = Plant{"symlink", func(path, outside string) error { return os.Symlink(outside, path) }}
	Hardlink = Plant{"hardlink", func(path, outside string) error { return os.Link(outside, path) }}
	Dir      = Plant{"directory", func(path, _ string) error { return os.Mkdir(path, 0o700) }}
)

// Bounded runs f and fails the test if it has not returned in 20 seconds: a planted FIFO
// must never make an operation wait for a peer that never comes.
func Bounded[T any](t testing.TB, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s hangs on a planted file", what)
		var zero T
		return zero
	}
}
