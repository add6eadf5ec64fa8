package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestToolLog(t *testing.T) {
	s := NewStore(t.TempDir())
	l := newLoop("s1")
	s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return l, nil })
	// Parallel hooks append without a lock; every line arrives whole.
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.AppendToolUse("s1", l.LoopID, fmt.Sprintf("toolu_%d", i), false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s.AppendToolUse("s1", "another-loop", "toolu_other", false)
	s.AppendToolUse("s1", l.LoopID, "toolu_1", false) // reported twice
	s.AppendToolUse("s1", l.LoopID, "toolu_denied", true)
	path := filepath.Join(s.SessionDir("s1"), "tools.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n" + `{"version":1,"loop_id":"` + l.LoopID + `","tool_use_id":"partial`)
	f.Close()

	if n := s.PendingToolCalls(l); n != 100 {
		t.Fatalf("PendingToolCalls = %d, want 100", n)
	}
	ids, off, err := s.ToolUses(l)
	if err != nil || len(ids) != 102 {
		t.Fatalf("ToolUses = %d ids, %v", len(ids), err)
	}
	data, _ := os.ReadFile(path)
	if want := int64(strings.LastIndexByte(string(data), '\n') + 1); off != want {
		t.Fatalf("offset %d, want %d (before the partial line)", off, want)
	}
	l.ToolsOffset = off
	if ids, _, _ := s.ToolUses(l); len(ids) != 0 {
		t.Fatalf("after the offset: %v", ids)
	}
	// The partial line is completed: it is read next time.
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`"}` + "\n")
	f.Close()
	if ids, _, _ := s.ToolUses(l); len(ids) != 1 || ids[0].ToolUseID != "partial" {
		t.Fatalf("completed line: %v", ids)
	}
	// A new loop resets the log.
	next := newLoop("s1")
	next.LoopID = "next"
	s.Update(context.Background(), "s1", func(tx *Tx, _ *Loop) (*Loop, error) { return next, tx.ResetToolLog() })
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Fatalf("log not reset: %d bytes", fi.Size())
	}
}

func TestDeniedNeverCounts(t *testing.T) {
	var l Loop
	l.CountToolCalls([]ToolUse{{ToolUseID: "a"}, {ToolUseID: "d", Denied: true}, {ToolUseID: "a"}})
	if l.ToolCalls != 1 || l.AddToolCall("d") {
		t.Fatalf("ToolCalls %d; a denied call counted when the transcript showed it", l.ToolCalls)
	}
}
