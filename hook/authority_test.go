package hook

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/state"
)

// A command whose chain of parents is cut short counts as below every loop whose host still
// runs, unless the process at the cut started before that host did: nothing started before
// a process runs below it. The user's terminal whose shell exited before the agent CLI was
// started (a job of a shell that is gone) may act; an agent's background job whose subshell
// exited may not.
func TestOwnedLoopsCutChain(t *testing.T) {
	self, err := proc.Self()
	if err != nil || self.Boot == "" || self.Start < 2 {
		t.Skip("no process table with boot ids here")
	}
	store := state.NewStore(filepath.Join(t.TempDir(), "state"))
	store.SetKeepDir(filepath.Join(t.TempDir(), "keep"))
	store.Warn = func(string) {}
	now := time.Now()
	err = store.Update(context.Background(), "s1", func(tx *state.Tx, cur *state.Loop) (*state.Loop, error) {
		l := &state.Loop{Config: state.DefaultConfig(), Status: state.Active, Iteration: 1, LoopID: state.NewLoopID(now),
			SessionID: "s1", StartedAt: now, UpdatedAt: now}
		l.Owner = &state.Owner{PID: self.PID, Start: self.Start, Boot: self.Boot, Comm: self.Comm, Stdin: "socket"}
		return l, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cut := fmt.Errorf("%w: handed to pid 1", proc.ErrIncomplete)
	at := func(start uint64) proc.Info {
		return proc.Info{ID: proc.ID{PID: 999999, Start: start, Boot: self.Boot}, PPID: 1, Comm: "bash"}
	}
	for _, c := range []struct {
		name  string
		a     Ancestry
		owned bool
	}{
		{"cut at a process started before the host", Ancestry{Procs: []proc.Info{at(self.Start - 1)}, Cut: cut}, false},
		{"cut at a process started with the host", Ancestry{Procs: []proc.Info{at(self.Start)}, Cut: cut}, true},
		{"cut at a process started after the host", Ancestry{Procs: []proc.Info{at(self.Start + 1)}, Cut: cut}, true},
		{"cut at once (nothing followed)", Ancestry{Cut: cut}, true},
		{"cut at a process of another boot", Ancestry{Procs: []proc.Info{{ID: proc.ID{PID: 9, Start: 1, Boot: "other"}}}, Cut: cut}, true},
		{"cut at a process of an unknown boot", Ancestry{Procs: []proc.Info{{ID: proc.ID{PID: 9, Start: 1}}}, Cut: cut}, true},
		{"whole chain, not through the host", Ancestry{Procs: []proc.Info{at(self.Start + 1)}}, false},
		{"whole chain through the host", Ancestry{Procs: []proc.Info{at(self.Start + 1), self}}, true},
	} {
		got := OwnedLoops(store, c.a)
		if (len(got) == 1) != c.owned || len(got) > 1 {
			t.Errorf("%s: %d loops owned, want owned=%v", c.name, len(got), c.owned)
		}
		if len(got) == 1 && c.a.Cut != nil && !errors.Is(c.a.Cut, proc.ErrIncomplete) {
			t.Errorf("%s: not cut", c.name)
		}
	}
}
