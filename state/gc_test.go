package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// ended returns a loop of session id that ended at t0.
func ended(id, loopID string) *Loop {
	l := newLoop(id)
	l.LoopID = loopID
	l.Status = Cancelled
	l.UpdatedAt = t0
	return l
}

// A line over the old 16 MB scanner limit in the event log: gc keeps the active loop's
// events after it (and the line itself, which is not one of the removed loop's).
func TestGCKeepsEventsAfterLongLine(t *testing.T) {
	s := NewStore(t.TempDir())
	ctx := context.Background()
	old := ended("s1", "old")
	s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return old, nil })
	active := newLoop("s1")
	active.LoopID = "active"
	active.UpdatedAt = t0
	s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return active, nil })
	s.AppendEvent("s1", Event{At: t0, LoopID: "old", Action: ActArmed})
	f, _ := os.OpenFile(filepath.Join(s.SessionDir("s1"), "events.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"loop_id":"active","action":"note","reason":"` + strings.Repeat("x", 17<<20) + "\"}\n")
	f.Close()
	for i := 0; i < 3; i++ {
		s.AppendEvent("s1", Event{At: t0, LoopID: "active", Iteration: i, Action: ActBlocked})
	}
	res, err := s.GC(ctx, t0.Add(time.Hour), false)
	if err != nil || res.Loops != 1 {
		t.Fatalf("GC = %+v, %v", res, err)
	}
	evs, err := s.Events("s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.LoopID+"/"+e.Action)
	}
	if want := "active/blocked active/blocked active/blocked"; strings.Join(got, " ") != want {
		t.Errorf("events after gc: %q, want %q", got, want)
	}
	data, _ := os.ReadFile(filepath.Join(s.SessionDir("s1"), "events.jsonl"))
	if len(data) < 17<<20 {
		t.Errorf("the long line was dropped: %d bytes left", len(data))
	}
}

// gc removing a session's directory while a loop is armed in it: the arm never fails, and
// the loop it armed is never removed.
func TestGCConcurrentArm(t *testing.T) {
	s := NewStore(t.TempDir())
	ctx := context.Background()
	rounds := 100
	if testing.Short() {
		rounds = 30
	}
	for i := 0; i < rounds; i++ {
		id := fmt.Sprintf("s%d", i)
		if err := s.Update(ctx, id, func(*Tx, *Loop) (*Loop, error) { return ended(id, "old"), nil }); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var gcErr, armErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, gcErr = s.GC(ctx, t0.Add(time.Hour), false)
		}()
		l := newLoop(id)
		go func() {
			defer wg.Done()
			armErr = s.Update(ctx, id, func(tx *Tx, _ *Loop) (*Loop, error) {
				tx.Record(Event{At: t0, LoopID: l.LoopID, Action: ActArmed})
				return l, nil
			})
		}()
		wg.Wait()
		if gcErr != nil {
			t.Fatalf("round %d: gc: %v", i, gcErr)
		}
		if armErr != nil {
			t.Fatalf("round %d: arming beside gc: %v", i, armErr)
		}
		if got, err := s.Peek(id); err != nil || got == nil || got.LoopID != l.LoopID {
			t.Fatalf("round %d: the armed loop is gone: %v, %v", i, got, err)
		}
	}
}
