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

// TestCountRecorded: on a host whose transcript records every call, a call counts once
// both records hold it, in whichever order they show it, across counts; a call only the
// tool log holds (anything can append to it), one without an id, or one the guard denied
// never counts.
func TestCountRecorded(t *testing.T) {
	type step struct {
		logged []ToolUse
		shown  []string
		want   int
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"both at once", []step{{[]ToolUse{{ToolUseID: "a"}}, []string{"a"}, 1}}},
		{"logged first, shown later", []step{{[]ToolUse{{ToolUseID: "a"}}, nil, 0}, {nil, []string{"a"}, 1}}},
		{"shown first, logged later", []step{{nil, []string{"a"}, 0}, {[]ToolUse{{ToolUseID: "a"}}, nil, 1}}},
		{"logged only (the agent's lines)", []step{{[]ToolUse{{ToolUseID: "f1"}, {ToolUseID: "f2"}}, nil, 0}, {nil, []string{"x"}, 0}}},
		{"shown only (refused before it ran)", []step{{nil, []string{"a"}, 0}, {nil, nil, 0}}},
		{"no id", []step{{[]ToolUse{{}}, []string{""}, 0}}},
		{"denied", []step{{[]ToolUse{{ToolUseID: "d", Denied: true}}, []string{"d"}, 0}, {[]ToolUse{{ToolUseID: "d"}}, nil, 0}}},
		{"reported twice", []step{{[]ToolUse{{ToolUseID: "a"}, {ToolUseID: "a"}}, []string{"a", "a"}, 1}, {[]ToolUse{{ToolUseID: "a"}}, []string{"a"}, 1}}},
		{"many", []step{{[]ToolUse{{ToolUseID: "a"}, {ToolUseID: "b"}, {ToolUseID: "c"}}, []string{"c", "a"}, 2}, {nil, []string{"b", "z"}, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Loop
			for i, s := range tc.steps {
				l.CountRecorded(s.logged, s.shown)
				if l.ToolCalls != s.want {
					t.Fatalf("after step %d: %d tool calls, want %d (unshown %v, unlogged %v)", i+1, l.ToolCalls, s.want, l.Unshown, l.Unlogged)
				}
			}
		})
	}
}

// TestCountShown: the transcript's calls count; the tool log only marks the denied ones.
func TestCountShown(t *testing.T) {
	var l Loop
	l.CountShown([]ToolUse{{ToolUseID: "f1"}, {ToolUseID: "d", Denied: true}, {}}, []string{"a", "d", "a"})
	if l.ToolCalls != 1 {
		t.Fatalf("%d tool calls, want 1 (a)", l.ToolCalls)
	}
}
