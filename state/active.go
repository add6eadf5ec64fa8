package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The state directory's active/<session-id> files mark the sessions whose loop is active:
// made when a loop starts, removed when it ends, and touched by every hook event of the
// session, so that their time is when a hook of the session last ran. Each is also one of
// the loop's two witnesses (see keep.go). A process that only
// needs to know whether a session has a loop (opencode's plugin, before it runs ralph-loop
// for a tool call) looks for the file; status and the hooks of other sessions compare its
// time with the session's transcript, to tell when a session's hooks stopped answering.

func (s *Store) activePath(id string) string { return filepath.Join(s.ActiveDir(), id) }

// ActiveDir is the directory of the active markers (opencode's plugin asks for it once, to
// skip sessions without a loop).
func (s *Store) ActiveDir() string { return filepath.Join(s.dir, "active") }

// Touch records that a hook of the session ran now (nothing when its loop is not active).
func (s *Store) Touch(id string) {
	if ValidSessionID(id) != nil {
		return
	}
	now := time.Now()
	_ = os.Chtimes(s.activePath(id), now, now)
}

// Active lists the sessions marked as having an active loop.
func (s *Store) Active() ([]string, error) {
	entries, err := os.ReadDir(s.ActiveDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.Type().IsRegular() && ValidSessionID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// LastEvent is when a hook of the session last ran, by its active marker (zero when it
// has none).
func (s *Store) LastEvent(id string) time.Time {
	if ValidSessionID(id) != nil {
		return time.Time{}
	}
	fi, err := os.Lstat(s.activePath(id))
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}
	}
	return fi.ModTime()
}
