package proc

import (
	"os"
	"testing"
)

// The ancestry walk a hook makes: its caller (the host, past a shell) at every event, and
// the whole chain of ancestors when a ralph-loop command checks whether it runs below the
// host of an active loop.

func BenchmarkRead(b *testing.B) {
	if !Supported {
		b.Skip("no process table here")
	}
	for b.Loop() {
		if _, err := Read(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAncestors(b *testing.B) {
	if !Supported {
		b.Skip("no process table here")
	}
	for b.Loop() {
		if _, err := Ancestors(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHookCaller(b *testing.B) {
	if !Supported {
		b.Skip("no process table here")
	}
	for b.Loop() {
		_, _ = HookCaller()
	}
}
