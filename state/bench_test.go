package state

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// The first look every hook takes (Peek): a session with no loop, among 100 sessions with
// an active one, and a session with an active loop.

func benchStore(b *testing.B) *Store {
	root := b.TempDir()
	s := NewStore(filepath.Join(root, "state"))
	s.SetKeepDir(filepath.Join(root, "keep"))
	for i := range 100 {
		id := fmt.Sprintf("s%d", i)
		if err := s.Update(context.Background(), id, func(*Tx, *Loop) (*Loop, error) { return newLoop(id), nil }); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkPeekNoLoop(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		if l, err := s.Peek("none"); l != nil || err != nil {
			b.Fatal(l, err)
		}
	}
}

func BenchmarkPeekActive(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		s2 := NewStore(s.Dir()) // a new hook process reads the key again
		s2.SetKeepDir(s.KeepDir())
		if l, err := s2.Peek("s1"); l == nil || err != nil {
			b.Fatal(l, err)
		}
	}
}
