package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A stop hook of an active loop marks itself in flight, in the session's directory, from
// before it decides until after it has answered; a mark left behind by a process that is
// gone is a stop the host let through with no decision of ralph-loop's (its hook was
// killed: SIGKILL, an out-of-memory kill). The next hook of the session finds it (see
// hook's undecided). Anything the agent runs can remove a mark too: it is a witness of
// what went wrong, never a reason to let anything through.

// inflightDir holds a session's marks, one file a stop, named by its process.
func (s *Store) inflightDir(id string) string { return filepath.Join(s.SessionDir(id), "inflight") }

// BeginStop marks a stop of session id in flight, by its process (mark: its pid, start
// time and boot, as the caller names them; no path separator). The returned func clears
// the mark; it is a no-op when the mark could not be made (the stop goes on without).
func (s *Store) BeginStop(id, mark string) func() {
	if ValidSessionID(id) != nil || mark == "" || strings.ContainsAny(mark, `/\`) || mark[0] == '.' {
		return func() {}
	}
	dir := s.inflightDir(id)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return func() {}
	}
	path := filepath.Join(dir, mark)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow|oNonBlock, 0o600)
	if err != nil {
		return func() {}
	}
	f.Close()
	return func() { os.Remove(path) }
}

// StopsInFlight lists the marks of session id's stops in flight (BeginStop), each with
// whether its process is gone (alive says whether the process a mark names still runs).
func (s *Store) StopsInFlight(id string, alive func(mark string) bool) (gone []string) {
	if ValidSessionID(id) != nil {
		return nil
	}
	entries, err := os.ReadDir(s.inflightDir(id))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || alive(e.Name()) {
			continue
		}
		gone = append(gone, e.Name())
	}
	return gone
}

// ClearStops removes marks of session id (those StopsInFlight found gone).
func (s *Store) ClearStops(id string, marks []string) {
	if ValidSessionID(id) != nil {
		return
	}
	for _, m := range marks {
		if m != "" && !strings.ContainsAny(m, `/\`) {
			os.Remove(filepath.Join(s.inflightDir(id), m))
		}
	}
}
