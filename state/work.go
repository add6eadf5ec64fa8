package state

import "path/filepath"

// WorkDir is where a loop keeps what it needs to record its work tree (the index file of
// the stall breaker and the checkpoints, and the objects only the stall breaker needs):
// sessions/<session-id>/work-<loop-id>, made private, with anything planted in its place
// moved aside first. gc removes it with its loop.
func (s *Store) WorkDir(id, loopID string) (string, error) {
	dir := filepath.Join(s.SessionDir(id), "work-"+loopID)
	return dir, s.ensureDir(dir)
}
