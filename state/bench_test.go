package state

import (
	"context"
	"fmt"
	"os"
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

// Reading, writing and signing a loop file of a real loop's size (the fields a loop of
// Claude Code has after a few iterations).
func benchLoopFile(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "loop.json"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecodeLoop(b *testing.B) {
	data := benchLoopFile(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decodeLoop("loop.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeLoop(b *testing.B) {
	l, err := decodeLoop("loop.json", benchLoopFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := marshalIndent(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyLoop(b *testing.B) {
	data := benchLoopFile(b)
	key := make([]byte, 32)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		signedBy(key, data)
	}
}
