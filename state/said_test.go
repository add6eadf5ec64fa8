package state

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAppendSaid(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.AppendSaid("../x", Said{Text: "hi"}); err == nil {
		t.Fatal("a bad session id was accepted")
	}
	l := newLoop("s1")
	if err := s.ensureDir(s.SessionDir("s1")); err != nil {
		t.Fatal(err)
	}
	// A link planted in place of the log is moved aside, never written through.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(target, s.SaidPath("s1")); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, text := range []string{"one <promise>DONE</promise>", "two\nlines"} {
		if err := s.AppendSaid("s1", Said{Timestamp: at, LoopID: l.LoopID, Turn: "g1", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("written through the planted link: %v", err)
	}
	f, err := os.Open(s.SaidPath("s1"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []Said
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var m Said
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if len(got) != 2 || got[1].Text != "two\nlines" || got[0].Version != Version || got[0].Turn != "g1" || !got[0].Timestamp.Equal(at) {
		t.Fatalf("said log: %+v", got)
	}
}
