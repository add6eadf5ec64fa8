package state

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What the hooks' script leaves in a session's directory while ralph-loop cannot run and
// the session's loop is active (see hook/install's hook.sh): the user's
// /cancel-ralph, as the empty file cancel-typed, and one empty file fallback-stop.N for each
// stop it blocked. They are written in POSIX sh without ralph-loop, so nothing proves who
// wrote them: the hook judges them (see hook's fallback).

// ScriptLines are the lines of a loop file (loop.json, and the keep's copy) that the hooks'
// script reads with grep and sed while ralph-loop cannot run (hook/install's hook.sh):
// whether the loop is active, and how many of its iterations it has used. They are how the
// loop file's encoding (json.MarshalIndent, two spaces) writes those fields of Loop, one a
// line at the top level; a change to the encoding that changes them must change the script
// too, and the tests fail until it has (TestScriptLines here, TestScriptReadsLoopLines in
// hook/install). %d is a number.
var ScriptLines = struct{ Active, MaxIterations, Iteration string }{
	Active:        `  "status": "ACTIVE",`,
	MaxIterations: `  "max_iterations": %d,`,
	Iteration:     `  "iteration": %d,`,
}

const (
	cancelTypedFile  = "cancel-typed"
	fallbackStopFile = "fallback-stop."
)

// Fallback is what the hooks' command line left for a session.
type Fallback struct {
	// Cancel: the user's /cancel-ralph was recorded, at CancelAt (the file's change time,
	// which no program can set back).
	Cancel   bool
	CancelAt time.Time
	// Stops is how many stops it blocked.
	Stops int
}

// Empty reports whether it left nothing.
func (f Fallback) Empty() bool { return !f.Cancel && f.Stops == 0 }

// Fallback reads what the hooks' command line left for the session (only regular files
// count).
func (s *Store) Fallback(id string) Fallback {
	var f Fallback
	if ValidSessionID(id) != nil {
		return f
	}
	dir := s.SessionDir(id)
	if fi, err := os.Lstat(filepath.Join(dir, cancelTypedFile)); err == nil && fi.Mode().IsRegular() {
		f.Cancel, f.CancelAt = true, changeTime(fi)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, fallbackStopFile+"*")); len(m) > 0 {
		f.Stops = len(m)
	}
	return f
}

// ClearFallback removes what the hooks' command line left for the session.
func (s *Store) ClearFallback(id string) {
	if ValidSessionID(id) != nil {
		return
	}
	dir := s.SessionDir(id)
	os.Remove(filepath.Join(dir, cancelTypedFile))
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), fallbackStopFile) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ChangeTime is when a file's inode last changed (its status change time, which utimes
// cannot set; the modification time where the system has none).
func ChangeTime(path string) (time.Time, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, err
	}
	return changeTime(fi), nil
}
