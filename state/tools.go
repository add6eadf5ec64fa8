package state

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The tool log, sessions/<id>/tools.jsonl, is how PostToolUse hooks count tool calls
// without taking the session lock: each appends one short line with a single O_APPEND
// write, which never interleaves with another's. The stop decision (under the lock) merges
// the lines since Loop.ToolsOffset into the loop's count, deduplicated by tool-use id.

// ToolUse is one line of the tool log.
type ToolUse struct {
	Version   int    `json:"version"`
	LoopID    string `json:"loop_id"`
	ToolUseID string `json:"tool_use_id"`
	// Denied marks a call that did no work: one the guard or the host refused, or one the
	// user stopped before it finished. It never counts, even when the transcript shows it.
	Denied bool `json:"denied,omitempty"`
	// Wrote marks a call of a tool that writes files (an edit, a write, a patch) and
	// completed: the stall breaker counts it as progress without reading the work tree.
	Wrote bool `json:"wrote,omitempty"`
}

func (s *Store) toolLogPath(id string) string { return filepath.Join(s.SessionDir(id), "tools.jsonl") }

// AppendToolUse records a tool call of a session's loop (or one the guard denied), without
// locking.
func (s *Store) AppendToolUse(id, loopID, toolUseID string, denied bool) error {
	return s.LogToolUse(id, ToolUse{LoopID: loopID, ToolUseID: toolUseID, Denied: denied})
}

// LogToolUse appends u (its Version set here) to a session's tool log, without locking.
func (s *Store) LogToolUse(id string, u ToolUse) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	u.Version = Version
	line, err := marshal(&u)
	if err != nil {
		return fmt.Errorf("encode tool use: %w", err)
	}
	path := s.toolLogPath(id)
	f, err := s.openAppend(path)
	if err != nil {
		return fmt.Errorf("append tool use %s: %w", path, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append tool use %s: %w", path, err)
	}
	return f.Close()
}

// ToolUses returns the tool calls a loop's tool log holds from l.ToolsOffset on, and the
// offset after the last complete line. Lines of other loops and broken lines are skipped.
func (s *Store) ToolUses(l *Loop) ([]ToolUse, int64, error) {
	path := s.toolLogPath(l.SessionID)
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, l.ToolsOffset, nil
	}
	if errors.Is(err, ErrNotRegular) {
		return nil, l.ToolsOffset, fmt.Errorf("read tool log: %w", err) // the error names the file
	}
	if err != nil {
		return nil, l.ToolsOffset, fmt.Errorf("read tool log %s: %w", path, err)
	}
	defer f.Close()
	off := l.ToolsOffset
	if fi, err := f.Stat(); err != nil {
		return nil, off, fmt.Errorf("read tool log %s: %w", path, err)
	} else if fi.Size() < off {
		off = 0 // replaced: start over (ids already counted are not counted again)
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, l.ToolsOffset, fmt.Errorf("read tool log %s: %w", path, err)
	}
	var uses []ToolUse
	r := bufio.NewReaderSize(f, 16<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			// A line without its newline is being written: leave it for next time. A line
			// longer than the buffer is not one this package wrote: skip it.
			if errors.Is(err, bufio.ErrBufferFull) {
				off += int64(len(line))
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = r.ReadSlice('\n')
					off += int64(len(line))
				}
				continue
			}
			return uses, off, nil
		}
		off += int64(len(line))
		var u ToolUse
		if unmarshal(bytes.TrimSpace(line), &u) == nil && u.LoopID == l.LoopID {
			uses = append(uses, u)
		}
	}
}

// PendingToolCalls counts the tool calls in the log that the loop has not merged yet, for
// status to show an up-to-date count.
func (s *Store) PendingToolCalls(l *Loop) int {
	uses, _, _ := s.ToolUses(l)
	c := *l
	c.ToolIDs = append([]string(nil), l.ToolIDs...)
	before := c.ToolCalls
	c.CountToolCalls(uses)
	return c.ToolCalls - before
}

// ResetToolLog starts the tool log afresh for the loop the transaction saves: a new loop,
// which no earlier loop's calls count for. Nothing is changed until that loop is saved, so
// that a failed save leaves the loop that stays with its log; then the log is emptied (or,
// if that fails, the new loop reads it from where it ended).
func (tx *Tx) ResetToolLog() error {
	tx.newToolLog = true
	return nil
}

// emptyToolLog replaces the session's tool log, which held size bytes when a new loop was
// saved, with an empty file, unless a line was appended since (the new loop's first call:
// the log is then left as it is, the new loop reading past the older lines, which name
// other loops).
func (s *Store) emptyToolLog(id string, size int64) {
	path := s.toolLogPath(id)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return
	}
	_ = writeFileAtomic(path, nil)
}
