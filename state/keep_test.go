package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// keptStore is a store with a keep, and one active loop in session s1 at iteration 3.
func keptStore(t *testing.T) (*Store, *Loop) {
	t.Helper()
	root := t.TempDir()
	s := NewStore(filepath.Join(root, "state", "ralph-loop"))
	s.SetKeepDir(filepath.Join(root, "data", "ralph-loop"))
	l := newLoop("s1")
	if err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return l, nil }); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		err := s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
			cur.Iteration = i
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s, l
}

func TestLoopFilesAreSigned(t *testing.T) {
	s, _ := keptStore(t)
	data, err := os.ReadFile(s.loopPath("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := signedBy(s.key(false), data); got != "ok" {
		t.Fatalf("loop file is %s, want signed:\n%s", got, data)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("signed loop file is not JSON: %v\n%s", err, data)
	}
	kept, err := os.ReadFile(s.copyPath("s1"))
	if err != nil || !bytes.Equal(kept, data) {
		t.Fatalf("the keep's copy differs from the loop file (%v)", err)
	}
	// Another key does not verify it.
	if got := signedBy([]byte("another key of sixteen bytes or more"), data); got != "bad" {
		t.Errorf("with another key: %s, want bad", got)
	}
}

// Every way the loop file can be not as ralph-loop left it: the loop goes on from the
// keep's copy, the event log says so, and the session gets one notice.
func TestTamperedLoopIsPutBack(t *testing.T) {
	forged := func(s *Store) []byte {
		l, _ := s.Peek("s1")
		l.Status, l.EndedBy, l.EndReason = PromiseAccepted, ByPromise, "promise accepted"
		b, _ := json.MarshalIndent(l, "", "  ")
		return b
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, s *Store)
		why    string
	}{
		{"removed", func(t *testing.T, s *Store) { os.Remove(s.loopPath("s1")) }, "removed"},
		{"state directory removed", func(t *testing.T, s *Store) { os.RemoveAll(s.Dir()) }, "removed"},
		{"emptied", func(t *testing.T, s *Store) { os.WriteFile(s.loopPath("s1"), nil, 0o600) }, "unreadable"},
		{"garbage", func(t *testing.T, s *Store) { os.WriteFile(s.loopPath("s1"), []byte("{"), 0o600) }, "unreadable"},
		{"a directory", func(t *testing.T, s *Store) {
			os.Remove(s.loopPath("s1"))
			os.Mkdir(s.loopPath("s1"), 0o700)
		}, "not a file"},
		{"rewritten as accepted", func(t *testing.T, s *Store) { os.WriteFile(s.loopPath("s1"), forged(s), 0o600) }, "changed"},
		{"rewritten with a made-up mac", func(t *testing.T, s *Store) {
			b := forged(s)
			b = append(b[:len(b)-2], []byte(macField+strings.Repeat("0", 64)+"\"\n}\n")...)
			os.WriteFile(s.loopPath("s1"), b, 0o600)
		}, "changed"},
		{"signed file edited", func(t *testing.T, s *Store) {
			b, _ := os.ReadFile(s.loopPath("s1"))
			os.WriteFile(s.loopPath("s1"), bytes.Replace(b, []byte(`"ACTIVE"`), []byte(`"CANCELLED"`), 1), 0o600)
		}, "changed"},
		{"older signed file put back", func(t *testing.T, s *Store) {
			old, _ := os.ReadFile(s.loopPath("s1"))
			s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
				cur.Finish(Cancelled, ByUser, "x", t0) // a later, real write
				cur.Status = Active
				cur.EndedAt = nil
				return cur, nil
			})
			os.WriteFile(s.loopPath("s1"), old, 0o600)
		}, "older"},
		{"another session's signed file", func(t *testing.T, s *Store) {
			o := newLoop("s2")
			o.Status = PromiseAccepted
			s.Update(context.Background(), "s2", func(*Tx, *Loop) (*Loop, error) { return o, nil })
			b, _ := os.ReadFile(s.loopPath("s2"))
			os.WriteFile(s.loopPath("s1"), b, 0o600)
		}, "unreadable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, l := keptStore(t)
			want, _ := s.Peek("s1")
			c.tamper(t, s)
			got, err := s.Peek("s1")
			if err != nil || got == nil || got.Status != Active || got.LoopID != l.LoopID || got.Iteration != want.Iteration {
				t.Fatalf("Peek after tampering = %+v, %v; want the active loop at iteration %d", got, err, want.Iteration)
			}
			var seen *Loop
			err = s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
				seen = cur
				return nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if seen == nil || seen.Status != Active || len(seen.Pending) != 1 || !strings.Contains(seen.Pending[0].Why, c.why) {
				t.Fatalf("Update saw %+v; want the active loop with one notice saying %q", seen, c.why)
			}
			after, err := s.Peek("s1")
			if err != nil || after.Status != Active || len(after.Pending) != 1 {
				t.Fatalf("the repair was not saved: %+v, %v", after, err)
			}
			data, _ := os.ReadFile(s.loopPath("s1"))
			if signedBy(s.key(false), data) != "ok" {
				t.Errorf("the loop file put back is not signed")
			}
			ev, _ := s.Events("s1")
			if n := len(ev); n == 0 || ev[n-1].Action != ActRestored {
				t.Errorf("events %+v, want a restored event last", ev)
			}
			// Said once: a second Update finds nothing to repair.
			s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
				if len(cur.Pending) != 1 {
					t.Errorf("pending %v after the repair, want the one", cur.Pending)
				}
				return nil, nil
			})
			if ev2, _ := s.Events("s1"); len(ev2) != len(ev) {
				t.Errorf("a second restore was recorded")
			}
		})
	}
}

// A loop file written before files were signed, with no copy in the keep, is taken as it
// is and signed at its next write; once a copy exists, an unsigned file is a forgery.
func TestUnsignedLoop(t *testing.T) {
	root := t.TempDir()
	old := NewStore(filepath.Join(root, "state"))
	l := newLoop("s1")
	if err := old.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return l, nil }); err != nil {
		t.Fatal(err)
	}
	s := NewStore(filepath.Join(root, "state"))
	s.SetKeepDir(filepath.Join(root, "keep"))
	s.key(true) // another session's loop made the key
	got, err := s.Peek("s1")
	if err != nil || got == nil || got.LoopID != l.LoopID {
		t.Fatalf("Peek of an unsigned loop = %+v, %v", got, err)
	}
	if err := s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { return cur, nil }); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.loopPath("s1"))
	if signedBy(s.key(false), data) != "ok" {
		t.Fatal("not signed at its next write")
	}
	// Now unsigned means forged.
	forged, _ := json.MarshalIndent(l, "", "  ")
	os.WriteFile(s.loopPath("s1"), forged, 0o600)
	if _, r, _ := s.readChecked("s1"); r == nil {
		t.Fatal("an unsigned file over a signed loop was taken as it is")
	}
}

// Both the state and the keep removed: the loop is gone (not covered, and said so in
// docs/guard.md), and nothing fails.
func TestStateAndKeepRemoved(t *testing.T) {
	s, _ := keptStore(t)
	os.RemoveAll(s.Dir())
	os.RemoveAll(s.KeepDir())
	s.keyRead = false
	if l, err := s.Peek("s1"); l != nil || err != nil {
		t.Fatalf("Peek = %+v, %v", l, err)
	}
}

// Processes making the key at once all end up with the same key.
func TestKeyMadeOnce(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	keys := make([][]byte, 16)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewStore(filepath.Join(dir, "state"))
			s.SetKeepDir(filepath.Join(dir, "keep"))
			keys[i] = s.key(true)
		}()
	}
	wg.Wait()
	for i, k := range keys {
		if k == nil || !bytes.Equal(k, keys[0]) {
			t.Fatalf("key %d = %x, key 0 = %x", i, k, keys[0])
		}
	}
}

// gc never removes an active loop whose file was rewritten to look old and ended, and
// removes the keep's copy with a session it removes.
func TestGCAndTheKeep(t *testing.T) {
	s, _ := keptStore(t)
	l, _ := s.Peek("s1")
	l.Status, l.UpdatedAt = Cancelled, t0.Add(-1000*time.Hour)
	b, _ := json.MarshalIndent(l, "", "  ")
	os.WriteFile(s.loopPath("s1"), b, 0o600)
	if _, err := s.GC(context.Background(), time.Now(), false); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Peek("s1"); got == nil || got.Status != Active {
		t.Fatalf("gc removed a loop forged to look ended: %+v", got)
	}
	// A real ended loop goes, and its copy with it.
	s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
		cur.Finish(Cancelled, ByUser, "x", t0)
		cur.UpdatedAt = t0.Add(-1000 * time.Hour)
		return cur, nil
	})
	if _, err := s.GC(context.Background(), time.Now(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.copyPath("s1")); !os.IsNotExist(err) {
		t.Errorf("the keep's copy of a removed session is still there: %v", err)
	}
	if got, _ := s.Peek("s1"); got != nil {
		t.Errorf("the removed session's loop came back: %+v", got)
	}
}

// The key is kept twice, in the keep and in the state directory: with either removed, the
// loop still verifies, and the next write puts the missing one back. Two keys that differ
// verify nothing.
func TestKeyKeptTwice(t *testing.T) {
	for _, gone := range []int{0, 1} {
		s, l := keptStore(t)
		path := s.keyPaths()[gone]
		os.Remove(path)
		s = reopen(s)
		got, err := s.Peek("s1")
		if err != nil || got == nil || got.LoopID != l.LoopID || got.Status != Active {
			t.Fatalf("Peek with %s removed = %+v, %v", path, got, err)
		}
		if err := s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { return cur, nil }); err != nil {
			t.Fatal(err)
		}
		if readKey(path) == nil {
			t.Errorf("%s was not put back", path)
		}
	}
	s, _ := keptStore(t)
	os.WriteFile(s.keyPaths()[1], []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	s = reopen(s)
	if _, err := s.Peek("s1"); !errors.Is(err, ErrUnverified) || !strings.Contains(err.Error(), "differ") {
		t.Fatalf("Peek with keys that differ = %v, want ErrUnverified", err)
	}
}

// reopen is a store on the same directories, as the next hook process has.
func reopen(s *Store) *Store {
	n := NewStore(s.Dir())
	n.SetKeepDir(s.KeepDir())
	n.Warn = func(string) {}
	return n
}

// An active loop none of whose files can be verified is neither taken as ended nor moved
// aside: every reader gets an UnverifiedError naming the loop and its host as its witness
// does; Update changes nothing; the user's Seize ends it, in place of the files.
func TestUnverifiedActiveLoop(t *testing.T) {
	owner := &Owner{PID: 42, Start: 7, Comm: "claude", Stdin: "socket"}
	cases := []struct {
		name   string
		tamper func(s *Store)
		why    string
	}{
		{"garbage over both", func(s *Store) {
			os.WriteFile(s.loopPath("s1"), []byte("garbage"), 0o600)
			os.WriteFile(s.copyPath("s1"), []byte("garbage"), 0o600)
		}, "its state file was made unreadable; ralph-loop's copy of it was made unreadable"},
		{"both removed", func(s *Store) {
			os.Remove(s.loopPath("s1"))
			os.Remove(s.copyPath("s1"))
		}, "its state file was removed; ralph-loop's copy of it was removed"},
		{"the copy removed, the file rewritten unsigned as accepted", func(s *Store) {
			l, _ := s.Peek("s1")
			l.Status = PromiseAccepted
			b, _ := json.MarshalIndent(l, "", "  ")
			os.WriteFile(s.loopPath("s1"), b, 0o600)
			os.Remove(s.copyPath("s1"))
		}, "its state file was rewritten without ralph-loop's signature; ralph-loop's copy of it was removed"},
		{"the copy removed, one witness removed", func(s *Store) {
			os.WriteFile(s.loopPath("s1"), []byte("garbage"), 0o600)
			os.Remove(s.copyPath("s1"))
			os.Remove(s.activePath("s1"))
		}, "its state file was made unreadable; ralph-loop's copy of it was removed"},
		{"an earlier loop's signed files put back", func(s *Store) {
			other := reopen(s)
			other.dir = s.dir + "-other" // the same key, another state directory
			old := newLoop("s1")
			old.LoopID = NewLoopID(t0.Add(-time.Hour))
			old.Finish(PromiseAccepted, ByPromise, "promise found", t0)
			other.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return old, nil })
			b, _ := os.ReadFile(other.loopPath("s1"))
			os.WriteFile(s.loopPath("s1"), b, 0o600)
			os.WriteFile(s.copyPath("s1"), b, 0o600)
		}, "replaced by those of an earlier loop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, l := keptStore(t)
			s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { cur.Owner = owner; return cur, nil })
			c.tamper(s)
			s = reopen(s)
			_, err := s.Peek("s1")
			var u *UnverifiedError
			if !errors.As(err, &u) || !strings.Contains(u.Why, c.why) || u.LoopID != l.LoopID || !sameOwner(u.Owner, owner) {
				t.Fatalf("Peek = %v (%+v); want ErrUnverified saying %q, naming the loop and its host", err, u, c.why)
			}
			called := false
			err = s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { called = true; return nil, nil })
			if !errors.Is(err, ErrUnverified) || called {
				t.Fatalf("Update = %v (fn called: %v), want ErrUnverified before fn", err, called)
			}
			if _, err := s.GC(context.Background(), time.Now().Add(time.Hour), false); err == nil {
				t.Error("gc passed over a loop it cannot verify without a word")
			}
			err = s.Seize(context.Background(), "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
				if cur != nil || tx.Unverified() == nil {
					t.Errorf("Seize gave %+v, %v", cur, tx.Unverified())
				}
				end := tx.Unverified().Placeholder()
				end.Finish(Cancelled, ByUser, "cancelled", t0)
				return end, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := reopen(s).Peek("s1")
			if err != nil || got.Status != Cancelled || got.Unverified == "" || s.hasWitness("s1") {
				t.Fatalf("after the user's cancel: %+v, %v (witnesses left: %v)", got, err, s.hasWitness("s1"))
			}
		})
	}
}

// A write cut short between a new loop's file and its witnesses (a crash while arming):
// the newer loop stands, and its witnesses are written at the next update; witnesses left
// by an ended loop are removed.
func TestWitnessesBehind(t *testing.T) {
	s, first := keptStore(t)
	witness, _ := os.ReadFile(s.keepWitnessPath("s1"))
	marker, _ := os.ReadFile(s.activePath("s1"))
	next := newLoop("s1")
	next.LoopID = NewLoopID(t0.Add(time.Hour))
	if err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return next, nil }); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.keepWitnessPath("s1"), witness, 0o600) // still naming the first loop
	os.WriteFile(s.activePath("s1"), marker, 0o600)
	s = reopen(s)
	if got, err := s.Peek("s1"); err != nil || got.LoopID != next.LoopID {
		t.Fatalf("Peek = %+v, %v; want the newer loop %s (not %s)", got, err, next.LoopID, first.LoopID)
	}
	s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { return cur, nil })
	if w := s.readWitnesses("s1", s.key(false)); w.w == nil || w.w.LoopID != next.LoopID || w.n != 2 {
		t.Fatalf("witnesses after the update: %+v", w)
	}
	// Ended, with its witnesses left behind.
	s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { cur.Finish(Cancelled, ByUser, "x", t0); return cur, nil })
	w, _ := os.ReadFile(s.keepWitnessPath("s1"))
	if len(w) != 0 {
		t.Fatal("an ended loop's witness is left")
	}
	os.WriteFile(s.keepWitnessPath("s1"), witness, 0o600)
	s = reopen(s)
	if got, err := s.Peek("s1"); err != nil || got.Status != Cancelled {
		t.Fatalf("Peek with a stale witness = %+v, %v", got, err)
	}
	s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return nil, nil })
	if s.hasWitness("s1") {
		t.Error("the stale witness was not removed")
	}
}

// The file of a loop that is over, unreadable and with no copy, is corrupt as before (moved
// aside by the hooks): nothing says a loop is active.
func TestEndedLoopUnreadable(t *testing.T) {
	s, _ := keptStore(t)
	s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
		cur.Finish(Cancelled, ByUser, "x", t0)
		return cur, nil
	})
	if s.hasWitness("s1") {
		t.Fatal("an ended loop's witnesses are still there")
	}
	os.WriteFile(s.loopPath("s1"), []byte("garbage"), 0o600)
	os.Remove(s.copyPath("s1"))
	if _, err := reopen(s).Peek("s1"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Peek = %v, want ErrCorrupt", err)
	}
}
