package state

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A witness is a small file outside the state directory that names a session's active
// loop, written when the loop starts and removed when ralph-loop ends it. If the loop's
// state is removed or changed by something else (a command that deleted the state
// directory, an edit by hand), the witness is left and tells the next hook what happened,
// so that the user is told instead of the loop vanishing without a word. It lives in the
// cache directory: losing it only loses that notice.

// SetWitnessDir sets where witnesses are kept ("" keeps none).
func (s *Store) SetWitnessDir(dir string) { s.witnessDir = dir }

func (s *Store) witnessPath(id string) string { return filepath.Join(s.witnessDir, id) }

// witness records or clears a session's witness after a save: it names the loop while it is
// active, and is gone once ralph-loop has ended it. Failures are ignored (best effort).
func (s *Store) witness(cur, next *Loop) {
	if s.witnessDir == "" || next == nil {
		return
	}
	wasActive := cur != nil && cur.Status == Active && cur.LoopID == next.LoopID
	switch {
	case next.Status == Active && !wasActive:
		// Written atomically (a new temp file, renamed): nothing planted at the witness's
		// name is followed or waited on.
		if os.MkdirAll(s.witnessDir, 0o700) == nil {
			_ = writeFileAtomic(s.witnessPath(next.SessionID), []byte(next.LoopID+"\n"))
		}
	case next.Status != Active:
		os.Remove(s.witnessPath(next.SessionID))
	}
}

// Vanished reports a session whose active loop's state was removed or changed outside
// ralph-loop: the witness names loop id, but the state file l (nil if none) does not hold it
// as ralph-loop left it. It returns the loop id and clears the witness, so that it is
// reported once; "" when nothing is amiss.
func (s *Store) Vanished(id string, l *Loop) string {
	if s.witnessDir == "" || ValidSessionID(id) != nil {
		return ""
	}
	f, err := openNoFollow(s.witnessPath(id))
	if errors.Is(err, ErrNotRegular) {
		os.Remove(s.witnessPath(id)) // not one ralph-loop wrote
		return ""
	}
	if err != nil {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(f, 256))
	f.Close()
	if err != nil {
		return ""
	}
	loopID := strings.TrimSpace(string(data))
	if l != nil && l.LoopID == loopID && (l.Status == Active || l.EndedBy != "") {
		return "" // as ralph-loop left it (a crash between the save and the witness)
	}
	os.Remove(s.witnessPath(id))
	return loopID
}
