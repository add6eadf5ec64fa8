package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A re-arm that fails to save the new loop (a full disk) leaves the active loop as it was:
// its tool log, its state, and no copy of it in the history.
func TestFailedRearmKeepsActiveLoop(t *testing.T) {
	s := NewStore(t.TempDir())
	ctx := context.Background()
	a := newLoop("s1")
	a.LoopID = "a"
	if err := s.Update(ctx, "s1", func(*Tx, *Loop) (*Loop, error) { return a, nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"toolu_1", "toolu_2"} {
		if err := s.AppendToolUse("s1", "a", id, false); err != nil {
			t.Fatal(err)
		}
	}
	tools := s.toolLogPath("s1")
	before, _ := os.ReadFile(tools)

	failWrite = func(path string) error {
		if filepath.Base(path) == "loop.json" {
			return syscall.ENOSPC
		}
		return nil
	}
	defer func() { failWrite = nil }()
	b := newLoop("s1")
	b.LoopID = "b"
	err := s.Update(ctx, "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
		if err := tx.ResetToolLog(); err != nil {
			return nil, err
		}
		cur.Status = Superseded
		tx.WriteTaskFile("b", strings.Repeat("task ", 100))
		return b, nil
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Update = %v, want the write's failure", err)
	}
	failWrite = nil
	if after, _ := os.ReadFile(tools); string(after) != string(before) {
		t.Errorf("the active loop's tool log changed: %q, was %q", after, before)
	}
	cur, err := s.Peek("s1")
	if err != nil || cur == nil || cur.LoopID != "a" || cur.Status != Active {
		t.Fatalf("the active loop after a failed re-arm: %+v, %v", cur, err)
	}
	uses, _, _ := s.ToolUses(cur)
	if len(uses) != 2 {
		t.Errorf("%d tool calls of the active loop left, want 2", len(uses))
	}
	if loops, err := s.Loops("s1"); err != nil || len(loops) != 1 {
		t.Errorf("Loops = %d loops, %v; want only the active one", len(loops), err)
	}

	// The same re-arm, once the disk has room: the new loop starts with no tool calls, the
	// log is emptied.
	if err := s.Update(ctx, "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
		tx.ResetToolLog()
		return b, nil
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Peek("s1")
	if uses, _, _ := s.ToolUses(got); got.LoopID != "b" || len(uses) != 0 {
		t.Errorf("new loop %s sees %d tool calls", got.LoopID, len(uses))
	}
	// More calls than the old log held bytes' worth of: each is read.
	for i := 0; i < 20; i++ {
		s.AppendToolUse("s1", "b", fmt.Sprintf("toolu_b%d", i), false)
	}
	if uses, _, _ := s.ToolUses(got); len(uses) != 20 {
		t.Errorf("new loop sees %d tool calls after 20", len(uses))
	}
	// A call of the old loop logged as the new one is armed does not count for the new one.
	c := newLoop("s1")
	c.LoopID = "c"
	if err := s.Update(ctx, "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
		tx.ResetToolLog()
		s.AppendToolUse("s1", "b", "toolu_late", false) // arrives as c is saved
		return c, nil
	}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Peek("s1")
	s.AppendToolUse("s1", "c", "toolu_c", false)
	if uses, _, _ := s.ToolUses(got); len(uses) != 1 || uses[0].ToolUseID != "toolu_c" {
		t.Errorf("loop c sees %v, want only toolu_c", uses)
	}
}
