package state

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// errForeign means a lock is held by a process that is not a live ralph-loop.
var errForeign = ErrLockForeign

// DefaultLockWait bounds how long a hook waits for a session lock before it gives up (and
// lets the agent stop rather than hang until the host's hook timeout).
const DefaultLockWait = 3 * time.Second

// maxStateFile bounds what is read of one state file.
const maxStateFile = 64 << 20

// Store is the state directory.
type Store struct {
	dir string
	// keepDir is the keep (see keep.go): ralph-loop's own copy of every loop, and the key
	// its loop files are signed with.
	keepDir string
	// keyRead, ring: the two copies of the key, as read once (see keys).
	keyRead bool
	ring    keyring
	// memo: what this process read of the state files already (see memo).
	memo memo
	// LockWait bounds the wait for a session lock.
	LockWait time.Duration
	// Warn, if set, is told in one line of what the store repaired on its own: a file planted
	// in place of a log, moved aside.
	Warn func(msg string)
	// Holder, if set, says who holds the lock file at path (see LockHolder). A hold by
	// anything but a live ralph-loop is not waited for: the lock moves to a fresh file and
	// the holder keeps the old one.
	Holder func(path string) LockHolder
}

// LockHolder is what can be told of who holds a session's lock.
type LockHolder struct {
	// Who names the holder for people ("" when it cannot be named).
	Who string
	// Foreign: the holder is not a live ralph-loop (a process stopped, or another program).
	Foreign bool
	// Gone: the process the kernel names as the holder is gone, yet the lock is held: it
	// handed its open lock file on to another process. ralph-loop never does (its lock
	// files are opened close-on-exec and held by the process that took them).
	Gone bool
}

// heldBy names a lock's holder for an error, "" when it cannot be named.
func heldBy(h LockHolder) string {
	if h.Who == "" {
		return ""
	}
	return " (held by " + h.Who + ")"
}

// NewStore returns the store rooted at dir. Nothing is created until a loop is saved.
func NewStore(dir string) *Store {
	return &Store{dir: dir, LockWait: DefaultLockWait}
}

// Dir returns the state directory.
func (s *Store) Dir() string { return s.dir }

// ValidSessionID checks that id can name a session's files: 1 to 128 of [A-Za-z0-9._-],
// and not "." or "..".
func ValidSessionID(id string) error {
	if id == "" || len(id) > 128 || id == "." || id == ".." {
		return fmt.Errorf("%w %q: want 1 to 128 letters, digits, '.', '_' or '-'", ErrBadSessionID, shorten(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%w %q: want 1 to 128 letters, digits, '.', '_' or '-'", ErrBadSessionID, shorten(id))
		}
	}
	return nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// SessionDir returns the directory of a session's files.
func (s *Store) SessionDir(id string) string { return filepath.Join(s.dir, "sessions", id) }

func (s *Store) loopPath(id string) string { return filepath.Join(s.SessionDir(id), "loop.json") }

// Peek reads a session's loop without locking: the cheap check every hook makes first. It
// returns nil and no error when the session has no loop. A loop file that is not as
// ralph-loop left it gives the loop as ralph-loop last wrote it (see keep.go); the next
// Update puts that back on disk and tells the session.
func (s *Store) Peek(id string) (*Loop, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	l, _, err := s.readChecked(id)
	return l, err
}

// readLoop reads one loop file; nil, nil when it does not exist.
func readLoop(path string) (*Loop, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ErrNotRegular) {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	defer f.Close()
	data, err := readAll(f, maxStateFile)
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	return decodeLoop(path, data)
}

// decodeLoop reads a loop file: ErrVersion when its version is not this ralph-loop's (told
// first, whatever else is wrong with it), ErrCorrupt when it cannot be read as a loop.
func decodeLoop(path string, data []byte) (*Loop, error) {
	if len(data) > maxStateFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrCorrupt, path, maxStateFile)
	}
	var l Loop
	var version versionField
	fs := listOf(&l)
	fs[0].v = &version // "version", told apart: a null, or none, is no version
	d := &decoder{data: data}
	d.space()
	err := objectOf(listed(fs)).decode(d)
	if d.space(); err == nil && d.pos < len(d.data) {
		err = d.syntax("after the top-level value")
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	case version.err != nil:
		return nil, fmt.Errorf("%w: %s: version: %v", ErrCorrupt, path, version.err)
	case !version.set:
		return nil, fmt.Errorf("%w: %s has no version", ErrCorrupt, path)
	case version.n != Version:
		return nil, fmt.Errorf("%w: %s has version %d, this ralph-loop reads version %d", ErrVersion, path, version.n, Version)
	case d.typeErr != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, d.typeErr)
	}
	l.Version = version.n
	if l.SessionID == "" || l.LoopID == "" || l.Status == "" {
		return nil, fmt.Errorf("%w: %s lacks session_id, loop_id or status", ErrCorrupt, path)
	}
	return &l, nil
}

// versionField reads a file's version as a *int would be read: a null (the last one given)
// means none.
type versionField struct {
	n   int
	set bool
	err error
}

func (v *versionField) encode(e *encoder) error { return (*jsonInt)(&v.n).encode(e) }
func (v *versionField) empty() bool             { return false }
func (v *versionField) zero() bool              { return false }
func (v *versionField) copyTo(dst jsonValue)    { *dst.(*versionField) = *v }
func (v *versionField) decode(d *decoder) error {
	if null, err := d.null(); null || err != nil {
		v.set = false
		return err
	}
	if c := d.next(); c != '-' && (c < '0' || c > '9') {
		start := d.pos
		if err := d.skip(); err != nil {
			return err
		}
		v.err = fmt.Errorf("cannot read %.40s as a number", d.data[start:d.pos])
		return nil
	}
	s, err := d.number()
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		v.err = err
		return nil
	}
	v.n, v.set = n, true
	return nil
}

// Tx is one locked read-modify-write of a session.
type Tx struct {
	store  *Store
	id     string
	events []Event
	// unverified: the session's active loop could not be verified (Seize).
	unverified *UnverifiedError
	// newToolLog: the loop saved starts its tool log afresh (see ResetToolLog).
	newToolLog bool
}

// Update locks the session, reads its loop (nil if none) and calls fn. If fn returns a
// loop, that loop is saved; if its LoopID differs from the one read, the old loop moves to
// the session's history first. Events recorded with Tx.Record are appended after the save.
// A loop file that is not as ralph-loop left it is put back from the keep first (see
// keep.go), with an event and a notice for the session. A corrupt loop file with no copy
// is reported as an error wrapping ErrCorrupt before fn is called.
func (s *Store) Update(ctx context.Context, id string, fn func(tx *Tx, cur *Loop) (*Loop, error)) error {
	return s.update(ctx, id, false, fn)
}

// Seize is Update for the user's own cancel: a session lock not let go within LockWait is
// taken over (moved aside, as one held by a process that is not ralph-loop), so that no
// stuck process keeps the user from ending a loop. The process that held it cannot save
// what it decided afterwards (see Update).
func (s *Store) Seize(ctx context.Context, id string, fn func(tx *Tx, cur *Loop) (*Loop, error)) error {
	return s.update(ctx, id, true, fn)
}

func (s *Store) update(ctx context.Context, id string, seize bool, fn func(tx *Tx, cur *Loop) (*Loop, error)) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	held, err := s.lock(ctx, id, seize)
	if err != nil {
		return err
	}
	defer held.unlock()
	s.removeStaleTemps(id)
	s.sweep(id)
	tx := &Tx{store: s, id: id}
	c, err := s.check(id)
	var u *UnverifiedError
	if errors.As(err, &u) && seize {
		// The user ends a loop that cannot be verified: fn gets no loop, and what it
		// saves takes the place of the files that could not be verified.
		tx.unverified, err = u, nil
	}
	if err != nil {
		return err
	}
	cur, repair := c.loop, c.repair
	if repair != nil {
		s.restore(tx, cur, repair)
	}
	if c.stale {
		s.removeWitnesses(id)
	}
	was := witnessesOf(cur, c.rewitness || repair != nil)
	next, err := fn(tx, cur)
	if err != nil {
		return err
	}
	if next == nil && repair != nil {
		next = cur // the repair is saved even when fn changes nothing
	}
	if next != nil && !held.still() {
		// Taken over while fn ran (this process was taken for stuck): what it decided is
		// not saved over what the user did meanwhile.
		return fmt.Errorf("%w: the session lock %s was taken over while this process held it; nothing was saved", ErrWrite, held.path)
	}
	if next != nil {
		if err := s.commit(tx, cur, next, was); err != nil {
			return err
		}
	}
	if len(tx.events) > 0 {
		if err := s.appendEvents(id, tx.events); err != nil {
			if next != nil {
				// The decision is saved: the log is a record of it, and losing a line
				// must not undo what the hook answers.
				s.warn(err.Error())
				return nil
			}
			return err
		}
	}
	return nil
}

// witnessRecord is what the witnesses of an active loop record (before the transaction's fn,
// which may change the loop in place): ok is false when there are none to keep (no active
// loop, or ones to write again).
type witnessRecord struct {
	ok    bool
	id    string
	owner Owner
}

func witnessesOf(cur *Loop, rewrite bool) witnessRecord {
	if cur == nil || cur.Status != Active || rewrite {
		return witnessRecord{}
	}
	w := witnessRecord{ok: true, id: cur.LoopID}
	if cur.Owner != nil {
		w.owner = *cur.Owner
	}
	return w
}

// commit saves next in the session's place of cur: cur archived when next is another loop,
// the tool log started again for a new loop (once next is saved), the witnesses written
// where they no longer say what next is (was: what they said), or removed when it ended.
func (s *Store) commit(tx *Tx, cur, next *Loop, was witnessRecord) error {
	id := tx.id
	var toolLogSize int64 = -1
	if tx.newToolLog {
		// The new loop reads the tool log from its start: the earlier loops' lines there
		// are not its own (each line names its loop). The log is not emptied before the
		// new loop is saved: if the save fails, the loop that stays keeps its calls.
		next.ToolsOffset = 0
		if fi, err := os.Lstat(s.toolLogPath(id)); err == nil && fi.Mode().IsRegular() {
			toolLogSize = fi.Size()
		}
	}
	archived := ""
	if cur != nil && cur.LoopID != next.LoopID {
		var err error
		if archived, err = s.archive(cur); err != nil {
			return err
		}
	}
	if tx.unverified != nil {
		if _, err := os.Lstat(s.loopPath(id)); err == nil {
			s.moveAside(s.loopPath(id), fmt.Errorf("session %s's loop file could not be verified", id))
		}
	}
	if err := s.save(next); err != nil {
		if archived != "" {
			os.Remove(archived) // cur stays the session's loop
		}
		return err
	}
	switch {
	case next.Status != Active:
		s.removeWitnesses(id)
	case !was.ok || was.id != next.LoopID || next.Owner == nil && was.owner != (Owner{}) || next.Owner != nil && *next.Owner != was.owner:
		s.writeWitnesses(next)
	}
	if toolLogSize > 0 {
		s.emptyToolLog(id, toolLogSize)
	}
	return nil
}

// removeStaleTemps deletes temp files a killed writer left in the session's directory.
// Every write there happens under the session lock, so while it is held, none is live.
func (s *Store) removeStaleTemps(id string) {
	dir := s.SessionDir(id)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp") {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// Unverified is the session's active loop that could not be verified, when the transaction
// is the user's (Seize) and was given no loop for it; nil otherwise.
func (tx *Tx) Unverified() *UnverifiedError { return tx.unverified }

// Record queues an event for the session's log.
func (tx *Tx) Record(e Event) {
	e.Version = Version
	tx.events = append(tx.events, e)
}

// WriteTaskFile stores the full task of a loop beside its state and returns its path.
func (tx *Tx) WriteTaskFile(loopID, task string) (string, error) {
	dir := tx.store.SessionDir(tx.id)
	if err := mkdirPrivate(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "task-"+loopID+".md")
	return path, writeFileAtomic(path, []byte(task))
}

// heldLock is a session lock this process holds.
type heldLock struct {
	path   string
	unlock func()
	// still reports whether the lock file held is still the session's (not moved aside by
	// a process that took this one for stuck).
	still func() bool
}

// lock takes the session's lock, waiting at most LockWait. With seize, a lock not let go
// in that time is taken over.
func (s *Store) lock(ctx context.Context, id string, seize bool) (heldLock, error) {
	dir := s.SessionDir(id)
	wait := s.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	deadline := time.Now().Add(wait)
	path := filepath.Join(dir, "loop.lock")
	for attempt := 0; ; attempt++ {
		held, h, retry, err := s.tryLock(ctx, dir, path, time.Until(deadline))
		if errors.Is(err, ErrLockTimeout) && seize && attempt < 4 {
			s.moveAside(path, fmt.Errorf("the session lock %s%s was not let go within %s; taken over for the user's cancel", path, heldBy(h), wait))
			deadline = time.Now().Add(wait)
			continue
		}
		// gc removes a session's directory, lock file included, while it holds the lock: a
		// process that waited for that lock, or made the directory just before, has a lock
		// nobody else sees. It takes the lock again, on the file now there.
		if !retry || attempt == 4 {
			if errors.Is(err, ErrLockTimeout) {
				return heldLock{}, fmt.Errorf("lock %s: %w after %s%s", path, ErrLockTimeout, wait, heldBy(h))
			}
			if errors.Is(err, ErrLockForeign) {
				return heldLock{}, fmt.Errorf("lock %s: %w%s", path, err, heldBy(h))
			}
			return held, err
		}
	}
}

// tryLock takes the lock file at path once. retry reports a lock file removed or replaced
// meanwhile (a concurrent gc), or moved aside from a holder that is not ralph-loop; h is
// what could be told of the holder when the lock was not had.
func (s *Store) tryLock(ctx context.Context, dir, path string, wait time.Duration) (held heldLock, h LockHolder, retry bool, err error) {
	if err := s.ensureDir(filepath.Dir(dir)); err != nil {
		return held, h, false, err
	}
	if err := s.ensureDir(dir); err != nil {
		return held, h, false, err
	}
	// The state directory holds tasks and transcripts' positions: keep it private even if
	// something else created it more open.
	if fi, err := os.Stat(s.dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(s.dir, 0o700); err != nil {
			return held, h, false, fmt.Errorf("make %s private: %w", s.dir, err)
		}
	}
	// Something planted in place of the lock file (a link, a FIFO, a directory) is moved
	// aside: the lock is only ever taken on a regular file of the session's directory.
	if fi, err := os.Lstat(path); err == nil && (!fi.Mode().IsRegular() || hardLinks(fi) > 1) {
		s.moveAside(path, &NotRegularError{path, describe(fi)})
	}
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR|oNoFollow|oNonBlock), flock.SetPermissions(0o600))
	if wait <= 0 {
		wait = time.Millisecond
	}
	holder := func() LockHolder {
		if s.Holder == nil {
			return LockHolder{}
		}
		return s.Holder(path)
	}
	if h, err = acquire(ctx, fl, wait, holder); err != nil {
		if errors.Is(err, errForeign) {
			s.moveAside(path, fmt.Errorf("the session lock %s is held by %s, not a live ralph-loop", path, orUnnamed(h.Who)))
			return held, h, true, err
		}
		if errors.Is(err, ErrLockTimeout) {
			if now := holder(); now.Who != "" {
				h = now
			}
			return held, h, false, err
		}
		fl.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return held, h, true, err // the directory was removed after it was made
		}
		if isSymlinkErr(err) {
			return held, h, true, fmt.Errorf("lock %s: %w: the lock file is a symbolic link", path, ErrCorrupt)
		}
		return held, h, false, fmt.Errorf("lock %s: %w", path, err)
	}
	unlock := func() { fl.Unlock(); fl.Close() }
	still := func() bool {
		mine, err1 := fl.Stat()
		there, err2 := os.Lstat(path)
		return err1 == nil && err2 == nil && os.SameFile(mine, there)
	}
	if !still() {
		unlock()
		return held, h, true, fmt.Errorf("lock %s: the lock file was removed or replaced while waiting for it", path)
	}
	return heldLock{path: path, unlock: unlock, still: still}, h, false, nil
}

// orUnnamed names a lock holder, or says it cannot be named.
func orUnnamed(who string) string {
	if who == "" {
		return "a process that cannot be named"
	}
	return who
}

// acquire takes fl, waiting at most wait. A busy lock is waited for with a blocking flock
// rather than by polling (TryLockContext): the kernel hands it over the moment it is free,
// which matters when many hooks of one session queue up. A lock held by anything but a live
// ralph-loop (holder) is not waited for: errForeign. A holder the kernel names that is gone
// is asked about again, a few times: it may have let go just now, and the lock be free or
// held by another hook. If the wait times out, fl is released and closed as soon as the
// abandoned flock returns (the caller must not touch it). h is the holder as last seen.
func acquire(ctx context.Context, fl *flock.Flock, wait time.Duration, holder func() LockHolder) (h LockHolder, err error) {
	for tries := 0; ; tries++ {
		if ok, err := fl.TryLock(); ok || err != nil {
			return h, err
		}
		h = holder()
		if h.Foreign || h.Gone && tries == 2 {
			fl.Close()
			return h, errForeign
		}
		if !h.Gone {
			break
		}
		time.Sleep(time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- fl.Lock() }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		return h, err
	case <-timer.C:
	case <-ctx.Done():
	}
	go func() {
		if <-done == nil {
			fl.Unlock()
		}
		fl.Close()
	}()
	return h, ErrLockTimeout
}

// save writes a loop file, signed, and the keep's copy of it. A failure to write the loop
// file wraps ErrWrite.
func (s *Store) save(l *Loop) error {
	l.Seq++
	data, err := s.sign(l)
	if err != nil {
		return err
	}
	dir := s.SessionDir(l.SessionID)
	if err := mkdirPrivate(dir); err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	path := s.loopPath(l.SessionID)
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		s.moveAside(path, &NotRegularError{path, describe(fi)}) // a rename cannot replace it
	}
	// Not synced: a crash of the process leaves the old file or the new one (the rename is
	// atomic), and one of the machine the file as it was some writes ago, or torn, with the
	// keep's copy (equally unsynced) beside it. See "What a crash can lose" in
	// docs/how-it-works.md.
	if err := writeAtomicNoSync(path, data); err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	s.keepCopy(l.SessionID, data)
	return nil
}

// restore makes the loop put back from the keep the session's loop again (saved by the
// Update that found it), records what happened and leaves the session a notice.
func (s *Store) restore(tx *Tx, l *Loop, r *Repair) {
	now := time.Now().UTC()
	tx.Record(Event{At: now, LoopID: l.LoopID, Iteration: l.Iteration, Action: ActRestored, Reason: r.Why + "; put back ralph-loop's copy"})
	l.Pending = append(l.Pending, Pending{At: now, What: ActRestored, Why: r.Why})
	s.warn(fmt.Sprintf("session %s: %s; put back ralph-loop's copy of loop %s", l.SessionID, r.Why, l.LoopID))
}

// archive writes l into the session's history and returns the file's path.
func (s *Store) archive(l *Loop) (string, error) {
	dir := filepath.Join(s.SessionDir(l.SessionID), "history")
	if err := s.ensureDir(dir); err != nil {
		return "", err
	}
	data, err := marshalIndent(l)
	if err != nil {
		return "", fmt.Errorf("encode state of session %s: %w", l.SessionID, err)
	}
	path := filepath.Join(dir, l.LoopID+".json")
	return path, writeFileAtomic(path, append(data, '\n'))
}

func (s *Store) appendEvents(id string, events []Event) error {
	var buf []byte
	for _, e := range events {
		line, err := marshal(&e)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	path := filepath.Join(s.SessionDir(id), "events.jsonl")
	f, err := s.openAppend(path)
	if err != nil {
		return fmt.Errorf("append events %s: %w", path, err)
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return fmt.Errorf("append events %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append events %s: %w", path, err)
	}
	return nil
}

// AppendEvent adds one event to a session's log without the lock: one short line, in
// one O_APPEND write.
func (s *Store) AppendEvent(id string, e Event) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	e.Version = Version
	return s.appendEvents(id, []Event{e})
}

// Events returns a session's event log, oldest first. Lines that cannot be read (a write cut
// short by a crash) are skipped.
func (s *Store) Events(id string) ([]Event, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	path := filepath.Join(s.SessionDir(id), "events.jsonl")
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ErrNotRegular) {
		return nil, fmt.Errorf("read events: %w", err) // the error names the file
	}
	if err != nil {
		return nil, fmt.Errorf("read events %s: %w", path, err)
	}
	defer f.Close()
	var events []Event
	err = eachLine(f, func(line []byte, long, _ bool) error {
		var e Event
		if !long && json.Unmarshal(line, &e) == nil && e.Action != "" {
			events = append(events, e)
		}
		return nil
	})
	if err != nil {
		return events, fmt.Errorf("read events %s: %w", path, err)
	}
	return events, nil
}

// maxLine bounds the lines of a log that are read as JSON: longer ones were not written by
// this package (its lines are short), and are passed over in pieces.
const maxLine = 1 << 20

// eachLine calls fn with each line of r, without its newline. A line longer than maxLine is
// given in pieces, each with long set and end set on its last, never held whole in memory.
func eachLine(r io.Reader, fn func(line []byte, long, end bool) error) error {
	br := bufio.NewReaderSize(r, maxLine)
	long := false
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if ferr := fn(line, true, false); ferr != nil {
				return ferr
			}
			long = true
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return err
		}
		if len(line) > 0 || long {
			trimmed := bytes.TrimSuffix(line, []byte("\n"))
			if ferr := fn(trimmed, long, true); ferr != nil {
				return ferr
			}
		}
		long = false
		if err != nil {
			return nil
		}
	}
}

// Quarantine moves a session's unreadable loop file aside, so the next hook starts clean,
// and returns where it went.
func (s *Store) Quarantine(id string, now time.Time) (string, error) {
	if err := ValidSessionID(id); err != nil {
		return "", err
	}
	from := s.loopPath(id)
	to := fmt.Sprintf("%s.corrupt-%s", from, now.UTC().Format("20060102T150405.000000000Z"))
	if err := os.Rename(from, to); err != nil {
		return "", fmt.Errorf("move aside %s: %w", from, err)
	}
	s.dropCopy(id) // the user is told of the corrupt file already
	return to, SyncDir(filepath.Dir(from))
}

// Sessions lists the ids of all sessions that have a state directory, a copy or a witness
// in the keep (a session whose state directory was removed), or an active marker.
func (s *Store) Sessions() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "sessions"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidSessionID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	ids = append(ids, s.keptOnly(ids)...)
	marked, _ := s.Active()
	for _, id := range marked {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Loops returns a session's current loop followed by its earlier ones, newest first.
// Unreadable files are reported in the error but do not hide the others.
func (s *Store) Loops(id string) ([]Loop, error) {
	var loops []Loop
	var errs []error
	cur, err := s.Peek(id)
	var u *UnverifiedError
	if errors.As(err, &u) {
		cur, err = u.Placeholder(), nil // active, though what else it is cannot be told
	}
	if err != nil {
		errs = append(errs, err)
	} else if cur != nil {
		loops = append(loops, *cur)
	}
	dir := filepath.Join(s.SessionDir(id), "history")
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("list history %s: %w", dir, err))
	}
	var old []Loop
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		l, err := readLoop(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if l != nil {
			old = append(old, *l)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].StartedAt.After(old[j].StartedAt) })
	return append(loops, old...), errors.Join(errs...)
}

// NewLoopID returns a new, time-ordered loop id.
func NewLoopID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}
