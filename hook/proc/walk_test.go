package proc

import (
	"errors"
	"fmt"
	"testing"
)

// fakeTable is a process table for walk: pid → entry; hidden are pids of another user the
// table does not show; reparent, if set, is called once the walk has read a pid (a parent
// exiting during the walk).
type fakeTable struct {
	procs  map[int]Info
	hidden map[int]bool
	after  func(pid int, t *fakeTable)
}

func (t *fakeTable) Read(pid int) (Info, error) {
	p, ok := t.procs[pid]
	if t.after != nil {
		defer t.after(pid, t)
	}
	if !ok {
		return Info{}, fmt.Errorf("read process %d: no such process", pid)
	}
	return p, nil
}

func (t *fakeTable) Hidden(pid int) bool { return t.hidden[pid] }

func info(pid, ppid, sid int, start uint64) Info {
	return Info{ID: ID{PID: pid, Start: start}, PPID: ppid, Session: sid, Comm: fmt.Sprintf("p%d", pid)}
}

// A chain with no bound on its depth is followed to its end; one that cannot be followed
// there (a parent gone, a pid reused, a loop, a process handed to pid 1) is reported cut,
// never as complete.
func TestWalk(t *testing.T) {
	deep := &fakeTable{procs: map[int]Info{}}
	for pid := 2; pid <= 1002; pid++ {
		deep.procs[pid] = info(pid, pid+1, 1003, uint64(2000-pid))
	}
	deep.procs[1003] = info(1003, 1, 1003, 1)

	for _, c := range []struct {
		name     string
		t        *fakeTable
		start    int
		own      bool
		want     int // ancestors returned
		complete bool
	}{
		{"a thousand levels deep", deep, 2, true, 1001, true},
		{"parent gone before the walk reads it", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5),
		}}, 10, false, 0, false},
		{"pid reused: the parent read started after its child", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: info(11, 1, 11, 9),
		}}, 10, false, 0, false},
		{"a zombie parent", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: {ID: ID{PID: 11, Start: 1}, PPID: 1, Session: 11, Zombie: true},
		}}, 10, false, 0, false},
		{"a loop in the table", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: info(11, 12, 11, 4), 12: info(12, 11, 12, 3),
		}}, 10, false, 2, false},
		{"another user's parent the table hides: the end", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: info(11, 12, 11, 4),
		}, hidden: map[int]bool{12: true}}, 10, false, 1, true},
		{"a hidden parent the process no longer names", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: info(11, 12, 11, 4),
		}, hidden: map[int]bool{12: true}, after: func(pid int, t *fakeTable) {
			if pid == 12 {
				t.procs[11] = info(11, 1, 11, 4) // handed to pid 1
			}
		}}, 10, false, 1, false},
		{"own session: below the leader, a parent in another session", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 7, 5), 11: info(11, 1, 11, 4),
		}}, 10, true, 0, false},
		{"own session: handed to pid 1 below the leader", &fakeTable{procs: map[int]Info{
			10: info(10, 1, 7, 5),
		}}, 10, true, 0, false},
		{"not own session: the same chains are how launchers start programs", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 7, 5), 11: info(11, 1, 11, 4),
		}}, 10, false, 1, true},
		{"own session: a leader's parent in another session", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 12, 6), 11: info(11, 12, 12, 5), 12: info(12, 13, 12, 4), 13: info(13, 1, 1, 3),
		}}, 10, true, 3, true},
		{"parent exits while the walk runs", &fakeTable{procs: map[int]Info{
			10: info(10, 11, 10, 5), 11: info(11, 12, 11, 4), 12: info(12, 1, 12, 3),
		}, after: func(pid int, t *fakeTable) {
			if pid == 11 {
				delete(t.procs, 12)
			}
		}}, 10, false, 1, false},
	} {
		got, err := walk(c.t.procs[c.start], c.t, c.own)
		if len(got) != c.want || (err == nil) != c.complete || err != nil && !errors.Is(err, ErrIncomplete) {
			t.Errorf("%s: %d ancestors, %v; want %d, complete %v", c.name, len(got), err, c.want, c.complete)
		}
	}
}
