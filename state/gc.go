package state

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GCResult says what GC removed (or would).
type GCResult struct {
	Loops, Sessions int
	Bytes           int64
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
	for _, id := range ids {
		if err := s.gcSession(ctx, id, cutoff, dryRun, &res); err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

func old(l *Loop, cutoff time.Time) bool {
	return l.Status != Active && l.UpdatedAt.Before(cutoff)
}

func (s *Store) gcSession(ctx context.Context, id string, cutoff time.Time, dryRun bool, res *GCResult) error {
	dir := s.SessionDir(id)
	whole := false
	err := s.Update(ctx, id, func(tx *Tx, cur *Loop) (*Loop, error) {
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
			res.Loops++
			res.Bytes += size(path)
			if !dryRun {
				os.Remove(path)
			}
		}
		if cur != nil && old(cur, cutoff) && kept == 0 {
			whole = true
			res.Loops++
			res.Sessions++
			res.Bytes += dirSize(dir)
			return nil, nil
		}
		// Task files and check logs of the removed loops, and their events.
		for loopID := range gone {
			for _, pattern := range []string{"task-" + loopID + ".md", filepath.Join("checks", loopID+"-*")} {
				matches, _ := filepath.Glob(filepath.Join(dir, pattern))
				for _, m := range matches {
					res.Bytes += size(m)
					if !dryRun {
						os.Remove(m)
					}
				}
			}
		}
		if len(gone) > 0 && !dryRun {
			return nil, s.pruneEvents(id, gone)
		}
		return nil, nil
	})
	if err != nil || !whole || dryRun {
		return err
	}
	return os.RemoveAll(dir)
}

// pruneEvents rewrites a session's event log without the events of the given loops.
func (s *Store) pruneEvents(id string, gone map[string]bool) error {
	path := filepath.Join(s.SessionDir(id), "events.jsonl")
	f, err := openNoFollow(path)
	if err != nil {
		return nil
	}
	var keep strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && gone[e.LoopID] {
			continue
		}
		keep.Write(sc.Bytes())
		keep.WriteByte('\n')
	}
	f.Close()
	return writeFileAtomic(path, []byte(keep.String()))
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
