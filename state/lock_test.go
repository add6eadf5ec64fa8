package state

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// holdLock holds session s1's lock in another Update until release is closed.
func holdLock(t *testing.T, s *Store) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(done)
		s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) {
			close(held)
			<-stop
			return nil, nil
		})
	}()
	<-held
	return func() { close(stop); <-done }
}

// A lock whose holder is anything but a live ralph-loop is never waited for: one stopped or
// of another program, and one whose holder the kernel names is gone while the lock is still
// held (it handed its file on). The lock moves to a fresh file and the update goes on. A
// holder that is gone and has let go is asked about again, not taken for foreign.
func TestLockHolders(t *testing.T) {
	for _, c := range []struct {
		name    string
		holder  func(n int32) LockHolder
		movedOn bool
	}{
		{"another program", func(int32) LockHolder { return LockHolder{Foreign: true, Who: "sleep (pid 9)"} }, true},
		{"gone, the lock still held", func(int32) LockHolder { return LockHolder{Gone: true, Who: "pid 9, gone"} }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStore(t.TempDir())
			s.LockWait = 5 * time.Second
			var warned atomic.Value
			s.Warn = func(m string) { warned.Store(m) }
			release := holdLock(t, s)
			defer release()
			var asked atomic.Int32
			s.Holder = func(string) LockHolder { return c.holder(asked.Add(1)) }
			start := time.Now()
			err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return nil, nil })
			if err != nil || time.Since(start) > 4*time.Second {
				t.Fatalf("Update = %v after %s, want the lock moved on at once", err, time.Since(start))
			}
			if m, _ := warned.Load().(string); !strings.Contains(m, "not a live ralph-loop; moved it to") {
				t.Errorf("warning %q", m)
			}
		})
	}
}

// A lock a live ralph-loop does not let go in time: the update fails with ErrLockTimeout,
// naming the holder; Seize (the user's cancel) takes it over, and the process that held it
// can save nothing afterwards.
func TestLockSeize(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Warn = func(string) {}
	s.LockWait = 100 * time.Millisecond
	s.Holder = func(string) LockHolder { return LockHolder{Who: "ralph-loop (pid 7)"} }
	ctx := context.Background()
	if err := s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return newLoop("s1"), nil }); err != nil {
		t.Fatal(err)
	}
	held, stale := make(chan struct{}), make(chan error)
	stop := make(chan struct{})
	go func() {
		stale <- s.Update(ctx, "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
			close(held)
			<-stop
			cur.Iteration = 99
			return cur, nil
		})
	}()
	<-held
	err := s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return nil, nil })
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "(held by ralph-loop (pid 7))") {
		t.Fatalf("Update while held = %v, want ErrLockTimeout naming the holder", err)
	}
	err = s.Seize(ctx, "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
		cur.Finish(Cancelled, ByUser, "cancelled", time.Now())
		return cur, nil
	})
	if err != nil {
		t.Fatalf("Seize = %v", err)
	}
	close(stop)
	if err := <-stale; !errors.Is(err, ErrWrite) {
		t.Errorf("the stale holder's Update = %v, want ErrWrite (taken over)", err)
	}
	if l, err := s.Peek("s1"); err != nil || l.Status != Cancelled || l.Iteration == 99 {
		t.Errorf("after the takeover: %+v, %v", l, err)
	}
}
