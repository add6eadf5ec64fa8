package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newLoop(session string) *Loop {
	return &Loop{LoopID: NewLoopID(t0), SessionID: session, Host: "claude", Config: DefaultConfig(), Status: Active, Iteration: 1, StartedAt: t0}
}

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"a", "dccf60f4-3cda-4a13-ad03-902d9d33ba3a", "A.b_c-1", "...", strings.Repeat("x", 128)} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("ValidSessionID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "a/b", "../x", "a\\b", "a b", "a\x00", "é", strings.Repeat("x", 129), "a\n"} {
		if err := ValidSessionID(id); !errors.Is(err, ErrBadSessionID) {
			t.Errorf("ValidSessionID(%q) = %v, want ErrBadSessionID", id, err)
		}
	}
}

func TestUpdateSaveAndPeek(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ralph-loop")
	os.Mkdir(root, 0o755) // made too open by someone else: the store closes it
	s := NewStore(root)
	if l, err := s.Peek("s1"); l != nil || err != nil {
		t.Fatalf("Peek of a new session = %v, %v", l, err)
	}
	l := newLoop("s1")
	err := s.Update(context.Background(), "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
		if cur != nil {
			t.Errorf("cur = %v, want nil", cur)
		}
		tx.Record(Event{At: t0, LoopID: l.LoopID, Iteration: 1, Action: ActArmed, Reason: "r"})
		return l, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Peek("s1")
	if err != nil || got == nil || got.LoopID != l.LoopID || got.Version != Version || got.Task != l.Task {
		t.Fatalf("Peek = %+v, %v", got, err)
	}
	ev, err := s.Events("s1")
	if err != nil || len(ev) != 1 || ev[0].Action != ActArmed || ev[0].Version != Version {
		t.Fatalf("Events = %+v, %v", ev, err)
	}
	// Permissions: directories 0700, files 0600.
	for _, p := range []string{s.Dir(), filepath.Join(s.Dir(), "sessions"), s.SessionDir("s1")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", p, fi.Mode().Perm(), err)
		}
	}
	for _, name := range []string{"loop.json", "loop.lock", "events.jsonl"} {
		p := filepath.Join(s.SessionDir("s1"), name)
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", p, fi.Mode().Perm(), err)
		}
	}
}

func TestUpdateArchivesReplacedLoop(t *testing.T) {
	s := NewStore(t.TempDir())
	ctx := context.Background()
	first, second := newLoop("s1"), newLoop("s1")
	second.LoopID = "second"
	second.StartedAt = t0.Add(time.Minute)
	s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return first, nil })
	s.Update(ctx, "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
		cur.Status = Superseded
		return second, nil
	})
	loops, err := s.Loops("s1")
	if err != nil || len(loops) != 2 || loops[0].LoopID != "second" || loops[1].LoopID != first.LoopID || loops[1].Status != Superseded {
		t.Fatalf("Loops = %+v, %v", loops, err)
	}
	ids, err := s.Sessions()
	if err != nil || len(ids) != 1 || ids[0] != "s1" {
		t.Fatalf("Sessions = %v, %v", ids, err)
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	s := NewStore(t.TempDir())
	boom := errors.New("boom")
	err := s.Update(context.Background(), "s1", func(tx *Tx, _ *Loop) (*Loop, error) {
		tx.Record(Event{Action: ActArmed})
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if l, _ := s.Peek("s1"); l != nil {
		t.Fatal("a failed update saved a loop")
	}
	if ev, _ := s.Events("s1"); len(ev) != 0 {
		t.Fatal("a failed update logged events")
	}
	entries, _ := os.ReadDir(s.SessionDir("s1"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestCorruptAndVersion(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return newLoop("s1"), nil })
	path := filepath.Join(s.SessionDir("s1"), "loop.json")
	for _, bad := range []string{"", "{", "[]", `{"version":1}`, `{"status":"ACTIVE"}`, "\x00\x01"} {
		os.WriteFile(path, []byte(bad), 0o600)
		if _, err := s.Peek("s1"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Peek of %q = %v, want ErrCorrupt", bad, err)
		}
		if err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) {
			t.Error("fn called on a corrupt file")
			return nil, nil
		}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Update of %q = %v, want ErrCorrupt", bad, err)
		}
	}
	os.WriteFile(path, []byte(`{"version":2,"loop_id":"x","session_id":"s1","status":"ACTIVE"}`), 0o600)
	if _, err := s.Peek("s1"); !errors.Is(err, ErrVersion) {
		t.Errorf("Peek of version 2 = %v, want ErrVersion", err)
	}
	to, err := s.Quarantine("s1", t0)
	if err != nil || !strings.Contains(to, "loop.json.corrupt-") {
		t.Fatalf("Quarantine = %q, %v", to, err)
	}
	if l, err := s.Peek("s1"); l != nil || err != nil {
		t.Fatalf("after Quarantine: %v, %v", l, err)
	}
}

func TestSymlinkRefused(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return newLoop("s1"), nil })
	path := filepath.Join(s.SessionDir("s1"), "loop.json")
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	data, _ := os.ReadFile(path)
	os.WriteFile(target, data, 0o600)
	os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Skip(err)
	}
	if _, err := s.Peek("s1"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Peek through a symlink = %v, want ErrCorrupt", err)
	}
}

func TestLockTimeout(t *testing.T) {
	s := NewStore(t.TempDir())
	s.LockWait = 50 * time.Millisecond
	ctx := context.Background()
	held := make(chan struct{})
	release := make(chan struct{})
	go s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) {
		close(held)
		<-release
		return nil, nil
	})
	<-held
	err := s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return nil, nil })
	close(release)
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("Update while locked = %v, want ErrLockTimeout", err)
	}
}

// TestConcurrentUpdates checks that updates are serialised: no lost update.
func TestConcurrentUpdates(t *testing.T) {
	s := NewStore(t.TempDir())
	ctx := context.Background()
	s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return newLoop("s1"), nil })
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Update(ctx, "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
				cur.AddToolCall("")
				return cur, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l, _ := s.Peek("s1")
	if l.ToolCalls != 50 {
		t.Fatalf("ToolCalls = %d, want 50", l.ToolCalls)
	}
}

func TestAddToolCall(t *testing.T) {
	var l Loop
	if !l.AddToolCall("a") || l.AddToolCall("a") || !l.AddToolCall("b") || !l.AddToolCall("") || !l.AddToolCall("") {
		t.Fatal("AddToolCall dedupe wrong")
	}
	if l.ToolCalls != 4 {
		t.Fatalf("ToolCalls = %d", l.ToolCalls)
	}
	for i := 0; i < 2*MaxToolIDs; i++ {
		l.AddToolCall(strings.Repeat("x", i+1))
	}
	if len(l.ToolIDs) != MaxToolIDs {
		t.Fatalf("len(ToolIDs) = %d", len(l.ToolIDs))
	}
}

func TestEventsSkipsBrokenLines(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Update(context.Background(), "s1", func(tx *Tx, _ *Loop) (*Loop, error) {
		tx.Record(Event{Action: ActArmed})
		return newLoop("s1"), nil
	})
	f, _ := os.OpenFile(filepath.Join(s.SessionDir("s1"), "events.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"action":"blocked","at":"2026-`)
	f.Close()
	ev, err := s.Events("s1")
	if err != nil || len(ev) != 1 {
		t.Fatalf("Events = %+v, %v", ev, err)
	}
}

func TestWriteFileAtomicKeepsOldOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteFileAtomic(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	// A directory in the way of the rename: the write fails, the temp file goes.
	if err := WriteFileAtomic(dir, []byte("new"), 0o600); err == nil {
		t.Fatal("rename over a directory succeeded")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
