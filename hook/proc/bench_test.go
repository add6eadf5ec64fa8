package proc

import (
	"os"
	"testing"
)

// The ancestry walk a hook makes: its caller (the host, past a shell) at every event, and
// the whole chain of ancestors when a ralph-loop command checks whether it runs below the
// host of an active loop.

func BenchmarkRead(b *testing.B)      { benchSelf(b, Read) }
func BenchmarkAncestors(b *testing.B) { benchSelf(b, Ancestors) }

func BenchmarkHookCaller(b *testing.B) {
	needTable(b)
	for b.Loop() {
		_, _ = HookCaller()
	}
}

// benchSelf measures read of this process's own pid.
func benchSelf[T any](b *testing.B, read func(pid int) (T, error)) {
	needTable(b)
	for b.Loop() {
		if _, err := read(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func needTable(b *testing.B) {
	if !Supported {
		b.Skip("no process table here")
	}
}
