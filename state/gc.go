package state

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// GCResult says what GC removed (or would).
type GCResult struct {
	Loops, Sessions int
	Bytes           int64
	// Checkpointed are the removed loops that recorded checkpoints (--checkpoint): their
	// refs in the repository are the caller's to remove.
	Checkpointed []Loop
}

// GC removes the loops that ended before cutoff, with their events, task files and check
// logs, and the sessions left with nothing. Active loops are never removed.
func (s *Store) GC(ctx context.Context, cutoff time.Time, dryRun bool) (GCResult, error) {
	var res GCResult
	ids, err := s.Sessions()
	if err != nil {
		return res, err
	}
	var errs []error
	if !dryRun {
		os.RemoveAll(filepath.Join(s.dir, "trash")) // what an interrupted gc left
	}
	for _, id := range ids {
		if err := s.gcSession(ctx, id, cutoff, dryRun, &res); err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// checkpointed notes a removed loop whose checkpoints are left in its repository.
func (r *GCResult) checkpointed(l *Loop) {
	if l.Checkpoint && l.Work.Repo != "" {
		r.Checkpointed = append(r.Checkpointed, *l)
	}
}

func old(l *Loop, cutoff time.Time) bool {
	return l.Status != Active && l.UpdatedAt.Before(cutoff)
}

func (s *Store) gcSession(ctx context.Context, id string, cutoff time.Time, dryRun bool, res *GCResult) error {
	dir := s.SessionDir(id)
	if _, err := os.Lstat(dir); err != nil {
		// Only the keep's copy is left: it goes with its loop.
		if c, _, err := s.readChecked(id); err == nil && c != nil && old(c, cutoff) {
			res.Loops++
			res.Sessions++
			if !dryRun {
				s.dropCopy(id)
			}
		}
		return nil
	}
	// The whole session is removed under its lock, so that a hook arming a loop there waits,
	// then finds the lock file gone and takes a new one (see lock).
	held, err := s.lock(ctx, id, false)
	if err != nil {
		return err
	}
	defer held.unlock()
	s.removeStaleTemps(id)
	cur, repair, err := s.readChecked(id)
	if err != nil {
		return err
	}
	if repair != nil {
		return nil // not as ralph-loop left it: the session's next hook puts it back
	}
	gone := map[string]bool{}
	entries, _ := os.ReadDir(filepath.Join(dir, "history"))
	kept := 0
	for _, e := range entries {
		path := filepath.Join(dir, "history", e.Name())
		l, err := readLoop(path)
		if err != nil || l == nil || !old(l, cutoff) {
			kept++
			continue
		}
		gone[l.LoopID] = true
		res.checkpointed(l)
		res.Loops++
		res.Bytes += size(path)
		if !dryRun {
			os.Remove(path)
		}
	}
	if cur != nil && old(cur, cutoff) && kept == 0 {
		res.checkpointed(cur)
		res.Loops++
		res.Sessions++
		res.Bytes += dirSize(dir)
		if dryRun {
			return nil
		}
		// Moved out of the way whole, lock file included, then removed: a hook that opened
		// the lock file meanwhile finds, once it has the lock, that the file is no longer
		// there, and starts a new directory; none can create a file in this one.
		trash := filepath.Join(s.dir, "trash")
		if err := mkdirPrivate(trash); err != nil {
			return err
		}
		to := filepath.Join(trash, id+"-"+NewLoopID(time.Now()))
		if err := os.Rename(dir, to); err != nil {
			return fmt.Errorf("remove session %s: %w", id, err)
		}
		s.dropCopy(id)
		return os.RemoveAll(to)
	}
	// Task files and check logs of the removed loops, and their events.
	for loopID := range gone {
		for _, pattern := range []string{"task-" + loopID + ".md", filepath.Join("checks", loopID+"-*"), "work-" + loopID} {
			matches, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, m := range matches {
				if fi, err := os.Lstat(m); err == nil && fi.IsDir() {
					res.Bytes += dirSize(m)
				} else {
					res.Bytes += size(m)
				}
				if !dryRun {
					os.RemoveAll(m)
				}
			}
		}
	}
	if len(gone) > 0 && !dryRun {
		return s.pruneEvents(id, gone)
	}
	return nil
}

// pruneEvents rewrites a session's event log without the events of the given loops. Lines
// too long to be events are kept as they are.
func (s *Store) pruneEvents(id string, gone map[string]bool) error {
	path := filepath.Join(s.SessionDir(id), "events.jsonl")
	f, err := openNoFollow(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return writeAtomicFunc(path, 0o600, true, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		err := eachLine(f, func(line []byte, long, end bool) error {
			if !long {
				var e Event
				if json.Unmarshal(line, &e) == nil && gone[e.LoopID] {
					return nil
				}
			}
			bw.Write(line)
			if end {
				bw.WriteByte('\n')
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read events %s: %w", path, err)
		}
		return bw.Flush()
	})
}

func size(path string) int64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
