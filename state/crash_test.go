package state

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The loop file is written without fsync (Store.save): a process killed while it writes
// leaves the file as it was or as it was being written, never a part of it, and the next
// reader takes it as ralph-loop's own without a repair. (What a crash of the machine can
// lose is said in docs/how-it-works.md; no test here cuts the power.)

// TestKillDuringWrite kills, again and again, a process that does nothing but save the
// loop of a session, at random moments: after each kill the loop file verifies as written
// by ralph-loop (no copy put back), its iteration never goes back, and the next writer
// goes on from it.
func TestKillDuringWrite(t *testing.T) {
	if dir := os.Getenv("RALPH_TEST_WRITER"); dir != "" {
		writeForever(dir)
		return
	}
	kills := 40
	if os.Getenv("RALPH_STRESS") == "1" {
		kills = 400
	}
	root := t.TempDir()
	s := NewStore(filepath.Join(root, "state"))
	s.SetKeepDir(filepath.Join(root, "keep"))
	if err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return newLoop("s1"), nil }); err != nil {
		t.Fatal(err)
	}
	last, torn := 0, 0
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestKillDuringWrite$")
		cmd.Env = append(os.Environ(), "RALPH_TEST_WRITER="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rand.IntN(25)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if temps, _ := filepath.Glob(filepath.Join(s.SessionDir("s1"), ".loop.json.*.tmp")); len(temps) > 0 {
			torn++ // killed between the temp file and the rename
		}
		r := NewStore(s.Dir())
		r.SetKeepDir(s.KeepDir())
		l, repair, err := r.readChecked("s1")
		switch {
		case err != nil:
			t.Fatalf("kill %d: the loop cannot be read: %v", i, err)
		case repair != nil:
			t.Fatalf("kill %d: the loop file is not as ralph-loop wrote it: %s", i, repair.Why)
		case l.Iteration < last:
			t.Fatalf("kill %d: the iteration went back from %d to %d", i, last, l.Iteration)
		}
		last = l.Iteration
	}
	t.Logf("%d kills, %d of them with a temp file left (mid-write); the loop at iteration %d", kills, torn, last)
	if last == 0 {
		t.Fatal("no write was made before a kill")
	}
}

// writeForever saves the loop of session s1 of the store at root again and again, one
// iteration more each time.
func writeForever(root string) {
	s := NewStore(filepath.Join(root, "state"))
	s.SetKeepDir(filepath.Join(root, "keep"))
	for {
		err := s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
			cur.Iteration++
			return cur, nil
		})
		if err != nil {
			os.Exit(3)
		}
	}
}
