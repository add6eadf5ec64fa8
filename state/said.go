package state

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// The said log, sessions/<id>/said.jsonl, keeps the agent's messages for a host that hands
// each one to a hook of its own instead of keeping a transcript ralph-loop can read
// (Cursor's afterAgentResponse). Like the tool log, each message is one line appended with a
// single O_APPEND write, without the session lock; only messages of an active loop are
// kept. The stop decision reads it as that host's transcript, from where the last decision
// stopped.

// Said is one line of the said log.
type Said struct {
	Version int `json:"version"`
	// Timestamp is when the hook got the message (transcript.OffsetAfter reads it).
	Timestamp time.Time `json:"timestamp"`
	LoopID    string    `json:"loop_id"`
	// Turn is the host's id of the turn the message belongs to ("" if it gives none): a
	// stop counts only its own turn's messages.
	Turn string `json:"turn,omitempty"`
	Text string `json:"text"`
}

// SaidPath is the session's said log.
func (s *Store) SaidPath(id string) string { return filepath.Join(s.SessionDir(id), "said.jsonl") }

// AppendSaid appends one of the agent's messages to the session's said log.
func (s *Store) AppendSaid(id string, m Said) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	m.Version = Version
	line, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode the agent's message: %w", err)
	}
	path := s.SaidPath(id)
	f, err := s.openAppend(path)
	if err != nil {
		return fmt.Errorf("append to said log %s: %w", path, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append to said log %s: %w", path, err)
	}
	return f.Close()
}
