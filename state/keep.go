package state

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The keep is ralph-loop's own record of every loop it wrote, out of the way of what
// happens to the state directory (normally $XDG_DATA_HOME/ralph-loop, beside the state
// directory's $XDG_STATE_HOME, so that removing one leaves the other):
//
//	key                            a random key; every loop file carries a MAC made with it
//	loops/<store>/<session>.json   a copy of the last loop file written for the session, by
//	                               state directory (<store> names it: a hash of its path)
//	loops/<store>/<session>.active the witness of the session's active loop (see below)
//
// Every loop file ralph-loop writes ends with "mac", an HMAC-SHA256 of the file's bytes
// before it, and carries a write counter (seq). A loop file that is missing, unreadable,
// unsigned, signed with another key, signed for another session or older than the copy
// was not left as ralph-loop wrote it: the copy is put back, the loop goes on from there,
// and the session is told once.
//
// What ralph-loop knows of an active loop is kept twice, in the state directory and in the
// keep, so that removing or garbling one place is not enough to end it: the loop file and
// its copy; the key, also kept in the state directory (a file verifies with the key both
// copies agree on, or with the one left, which the next write puts back; two keys that
// differ verify nothing); and, while the loop is active, a witness in each (the state
// directory's active/<session>, and the keep's <session>.active): a small signed file
// naming the active loop and its host. When no file of the loop can be verified while a
// witness says it is active (or an unverified file says so), the loop is neither taken as
// ended nor moved aside: every reader gets an *UnverifiedError, a stop is blocked, and only
// the user's cancel ends it (Store.Seize). Anyone who can read the key can still forge a
// loop file, and anyone who removes every one of these records removes the loop: the keep
// is out of the way of an accident or a quick way out, not a vault.

// macField is how the MAC is written at the end of a loop file.
const macField = `,
  "mac": "`

// SetKeepDir sets the keep's directory ("" keeps nothing: loop files are neither signed
// nor checked).
func (s *Store) SetKeepDir(dir string) { s.keepDir = dir }

// KeepDir returns the keep's directory ("" when there is none).
func (s *Store) KeepDir() string { return s.keepDir }

func (s *Store) copyPath(id string) string { return filepath.Join(s.copiesDir(), id+".json") }

// keepWitnessPath is the keep's witness of a session's active loop.
func (s *Store) keepWitnessPath(id string) string { return filepath.Join(s.copiesDir(), id+".active") }

// CopiesDir is the keep's directory of this state directory's copies ("" with no keep). Only
// tests call it: the scripts (cmd/ralph-loop) and hook's tear and plant files there, before
// it exists too, so it cannot move into a test file of this package.
func (s *Store) CopiesDir() string {
	if s.keepDir == "" {
		return ""
	}
	return s.copiesDir()
}

// copiesDir holds the copies of this state directory's loops: another state directory (a
// test's, a second XDG_STATE_HOME) has its own, and never gets this one's loops back.
func (s *Store) copiesDir() string {
	abs, err := filepath.Abs(s.dir)
	if err != nil {
		abs = s.dir
	}
	h := sha256.Sum256([]byte(filepath.Clean(abs)))
	return filepath.Join(s.keepDir, "loops", hex.EncodeToString(h[:8]))
}

// keyPaths are where the key is kept: the keep, then the state directory.
func (s *Store) keyPaths() [2]string {
	return [2]string{filepath.Join(s.keepDir, "key"), filepath.Join(s.dir, "key")}
}

// keyring is what the two copies of the key say.
type keyring struct {
	key []byte // the key to verify with (nil: none can be trusted)
	// missing are the places the key is not, where a write puts it back.
	missing []string
	// problem says why no key can be trusted: "" when there is one, or none was ever made
	// (both gone).
	problem string
	keep    []byte // the keep's key, when the two differ
}

// keys reads the two copies of the key (once per store).
func (s *Store) keys() keyring {
	if s.keyRead {
		return s.ring
	}
	s.keyRead = true
	paths := s.keyPaths()
	a, b := readKey(paths[0]), readKey(paths[1])
	switch {
	case a != nil && b != nil && !hmac.Equal(a, b):
		s.ring = keyring{problem: fmt.Sprintf("the two copies of ralph-loop's key (%s and %s) differ", paths[0], paths[1]), keep: a}
	case a != nil && b != nil:
		s.ring = keyring{key: a}
	case a != nil:
		s.ring = keyring{key: a, missing: []string{paths[1]}}
	case b != nil:
		s.ring = keyring{key: b, missing: []string{paths[0]}}
	default:
		s.ring = keyring{missing: paths[:], problem: fmt.Sprintf("ralph-loop's key was removed (%s and %s)", paths[0], paths[1])}
	}
	return s.ring
}

// key returns the key to verify with (nil when there is no keep, or no key can be
// trusted). With create, it is the key to sign with: a copy that is missing is put back, a
// key is made when there is none, and when the two copies differ the keep's stands (the
// state directory's is replaced): signing happens only for a loop ralph-loop took as it
// stands, or one the user armed or ended.
func (s *Store) key(create bool) []byte {
	if s.keepDir == "" {
		return nil
	}
	r := s.keys()
	if !create || r.key != nil && len(r.missing) == 0 {
		return r.key
	}
	paths := s.keyPaths()
	switch {
	case r.keep != nil:
		s.warn(r.problem + "; the one in " + paths[0] + " stands")
		if err := s.putKey(paths[1], r.keep, true); err != nil {
			s.warn(err.Error())
			return nil
		}
		s.ring = keyring{key: r.keep}
	case r.key != nil:
		for _, p := range r.missing {
			if err := s.putKey(p, r.key, false); err != nil {
				s.warn(err.Error())
			}
		}
		s.ring.missing = nil
	default:
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return nil
		}
		// Made in the keep first: processes making it at once agree on the one that got
		// there first, then copy it.
		if err := s.putKey(paths[0], raw[:], false); err != nil {
			s.warn(err.Error())
			return nil
		}
		k := readKey(paths[0])
		if k == nil {
			return nil
		}
		if err := s.putKey(paths[1], k, false); err != nil {
			s.warn(err.Error())
		}
		s.ring = keyring{key: k}
	}
	return s.ring.key
}

// putKey writes key k at path: linked into place (a key already there is left as it is),
// or, with replace, renamed over what is there.
func (s *Store) putKey(path string, k []byte, replace bool) error {
	if fi, err := os.Lstat(path); err == nil && (!fi.Mode().IsRegular() || hardLinks(fi) > 1) {
		s.moveAside(path, &NotRegularError{path, describe(fi)})
	}
	dir := filepath.Dir(path)
	if err := mkdirPrivate(dir); err != nil {
		return err
	}
	if replace {
		return writeFileAtomic(path, []byte(hex.EncodeToString(k)+"\n"))
	}
	tmp, err := WriteTemp(path, 0o600, true, func(w io.Writer) error {
		_, err := io.WriteString(w, hex.EncodeToString(k)+"\n")
		return err
	})
	if err != nil {
		return fmt.Errorf("make the integrity key: %w", err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make the integrity key %s: %w", path, err)
	}
	return nil
}

func readKey(path string) []byte {
	f, err := openNoFollow(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return nil
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 16 {
		return nil
	}
	return k
}

func sum(key, data []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil))
}

// sign encodes l as a loop file: its JSON, then the MAC of those bytes.
func (s *Store) sign(l *Loop) ([]byte, error) {
	l.Version = Version
	data, err := marshalIndent(l)
	if err != nil {
		return nil, fmt.Errorf("encode state of session %s: %w", l.SessionID, err)
	}
	return s.seal(data), nil
}

// seal appends the MAC of an indented JSON object to it (nothing without a key).
func (s *Store) seal(data []byte) []byte {
	key := s.key(true)
	if key == nil {
		return append(data, '\n')
	}
	body := data[:len(data)-2] // without the closing "\n}"
	mac := sum(key, body)
	out := make([]byte, 0, len(data)+len(macField)+len(mac)+4)
	out = append(out, body...)
	out = append(out, macField...)
	out = append(out, mac...)
	out = append(out, "\"\n}\n"...)
	return out
}

// signedBy reports how data stands to key: "ok" (signed with it), "unsigned" (no MAC) or
// "bad" (a MAC that does not match).
func signedBy(key, data []byte) string {
	i := bytes.LastIndex(data, []byte(macField))
	if i < 0 {
		return "unsigned"
	}
	rest := bytes.TrimRight(data[i+len(macField):], "\n")
	mac, ok := bytes.CutSuffix(rest, []byte("\"\n}"))
	if !ok || key == nil {
		return "bad"
	}
	if hmac.Equal([]byte(sum(key, data[:i])), mac) {
		return "ok"
	}
	return "bad"
}

// A hook reads its session's loop at its first look (Peek) and again under the lock
// (Update), and the loop file and the keep's copy are the same bytes: what was verified and
// read once is not again, in the same process. memo keeps it by the files' bytes (a file
// that changed meanwhile is read anew).
type memo struct {
	mu    sync.Mutex        // a store may be used by goroutines at once
	loops map[string]*Loop  // decodeLoop's loops (never handed out: callers get a copy)
	key   string            // the key macs were checked with
	macs  map[string]string // signedBy's answers
}

// signedBy is signedBy(key, data), each answer given once.
func (s *Store) signedBy(key, data []byte) string {
	m := &s.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.macs == nil || m.key != string(key) {
		m.macs, m.key = map[string]string{}, string(key)
	}
	if v, ok := m.macs[string(data)]; ok {
		return v
	}
	v := signedBy(key, data)
	m.macs[string(data)] = v
	return v
}

// decodeLoop is decodeLoop(path, data), each file's bytes read once: the loop returned is
// the caller's own.
func (s *Store) decodeLoop(path string, data []byte) (*Loop, error) {
	m := &s.memo
	m.mu.Lock()
	l, ok := m.loops[string(data)]
	m.mu.Unlock()
	if ok {
		return l.clone(), nil
	}
	l, err := decodeLoop(path, data)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.loops == nil {
		m.loops = map[string]*Loop{}
	}
	m.loops[string(data)] = l
	m.mu.Unlock()
	return l.clone(), nil
}

// clone is a deep copy of l: nothing the two hold is shared.
func (l *Loop) clone() *Loop {
	c := new(Loop)
	clone(c, l)
	return c
}

// Repair says what was wrong with a session's loop file and what stands in for it.
type Repair struct {
	// Why is what was found: the loop file removed, unreadable, or changed by something
	// other than ralph-loop.
	Why string
	// Copy is the keep's copy that is put back (its bytes as written).
	Copy []byte
}

// UnverifiedError is the error of a session whose loop is active (a witness, or a file
// that cannot be verified, says so) while none of its files can be verified: it is not
// taken as ended, nor as anything its files say. It matches ErrUnverified.
type UnverifiedError struct {
	SessionID string
	// LoopID and Owner are the active loop's and its host, as a verified witness names
	// them ("" and nil when none does).
	LoopID string
	Owner  *Owner
	// Why says what was changed.
	Why string
}

func (e *UnverifiedError) Error() string {
	return fmt.Sprintf("session %s's loop is active, but its state cannot be verified: %s", e.SessionID, e.Why)
}

// Is makes errors.Is(err, ErrUnverified) true.
func (e *UnverifiedError) Is(target error) bool { return target == ErrUnverified }

// Placeholder is what can be said of the loop: active, with the id and host its witness
// names, and what was changed.
func (e *UnverifiedError) Placeholder() *Loop {
	return &Loop{SessionID: e.SessionID, LoopID: e.LoopID, Status: Active, Owner: e.Owner, Unverified: e.Why}
}

// witness is the record of an active loop, kept in the state directory and in the keep.
type witness struct {
	Version   int    `json:"version"`
	SessionID string `json:"session_id"`
	LoopID    string `json:"loop_id"`
	Owner     *Owner `json:"owner,omitempty"`
}

// witnessed is what a session's witnesses say.
type witnessed struct {
	// n is how many there are (verified or not).
	n int
	// w is what a verified one says (nil: none verifies). Two that verify and disagree
	// leave it nil.
	w *witness
}

// readWitnesses reads a session's witnesses (with key, nil: none verifies).
func (s *Store) readWitnesses(id string, key []byte) witnessed {
	var out witnessed
	conflict := false
	for _, path := range []string{s.activePath(id), s.keepWitnessPath(id)} {
		data, err := readFile(path)
		if err == nil && len(data) == 0 {
			continue // none, or the empty marker of a ralph-loop without a keep (or before one)
		}
		out.n++
		if err != nil || key == nil || s.signedBy(key, data) != "ok" {
			continue
		}
		var w witness
		if unmarshal(data, &w) != nil || w.SessionID != id || w.LoopID == "" {
			continue
		}
		if out.w != nil && (out.w.LoopID != w.LoopID || !sameOwner(out.w.Owner, w.Owner)) {
			conflict = true
		}
		if out.w == nil {
			out.w = &w
		}
	}
	if conflict {
		out.w = nil
	}
	return out
}

// hasWitness reports whether a session has a witness of an active loop, of any content:
// the first look of a session with no loop file.
func (s *Store) hasWitness(id string) bool {
	for _, path := range [2]string{s.activePath(id), s.keepWitnessPath(id)} {
		if _, err := os.Lstat(path); err == nil {
			return true
		}
	}
	return false
}

// writeWitnesses records l, an active loop, in both witnesses (without a keep, nothing can
// be verified: the state directory's marker is made, empty).
func (s *Store) writeWitnesses(l *Loop) {
	if s.keepDir == "" {
		path := s.activePath(l.SessionID)
		if s.ensureDir(filepath.Dir(path)) != nil {
			return
		}
		if f, err := openState(path, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
			f.Close()
		} else if errors.Is(err, ErrNotRegular) {
			s.moveAside(path, err)
		}
		return
	}
	data, err := marshalIndent(&witness{Version: Version, SessionID: l.SessionID, LoopID: l.LoopID, Owner: l.Owner})
	if err != nil {
		return
	}
	data = s.seal(data)
	paths := []string{s.activePath(l.SessionID)}
	if s.keepDir != "" {
		paths = append(paths, s.keepWitnessPath(l.SessionID))
	}
	for _, path := range paths {
		if err := s.ensureDir(filepath.Dir(path)); err != nil {
			s.warn(err.Error())
			continue
		}
		if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			s.moveAside(path, &NotRegularError{path, describe(fi)})
		}
		if err := writeAtomicNoSync(path, data); err != nil {
			s.warn(fmt.Sprintf("record session %s's active loop: %v", l.SessionID, err))
		}
	}
}

// removeWitnesses removes a session's witnesses (its loop is no longer active).
func (s *Store) removeWitnesses(id string) {
	os.Remove(s.activePath(id))
	if s.keepDir != "" {
		os.Remove(s.keepWitnessPath(id))
	}
}

func sameOwner(a, b *Owner) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// checked is a session's loop as readChecked found it.
type checked struct {
	loop   *Loop
	repair *Repair
	// rewitness: the loop is active and its witnesses are not both there, verified and
	// naming it: the next save writes them. stale: the loop is over and witnesses are left
	// (a write cut short): the next update removes them.
	rewitness, stale bool
}

// readChecked reads a session's loop file and checks it against the keep. It returns the
// loop as ralph-loop last wrote it (nil when the session has none) and, when the file is
// not that, the repair that puts it back. A loop file that cannot be read and has no copy
// in the keep, with nothing saying its loop is active, is an error wrapping ErrCorrupt, as
// before there was a keep; with something saying so, an *UnverifiedError.
func (s *Store) readChecked(id string) (*Loop, *Repair, error) {
	c, err := s.check(id)
	return c.loop, c.repair, err
}

// check is readChecked, with what the next save must write.
func (s *Store) check(id string) (checked, error) {
	path := s.loopPath(id)
	data, lerr := readFile(path)
	var l *Loop
	if lerr == nil && data != nil {
		l, lerr = s.decodeLoop(path, data)
		if lerr == nil && l.SessionID != id {
			lerr = fmt.Errorf("%w: %s names session %s", ErrCorrupt, path, l.SessionID)
		}
	}
	if s.keepDir == "" {
		return checked{loop: l}, lerr
	}
	cpath := s.copyPath(id)
	cdata, cerr := readFile(cpath)
	if data == nil && lerr == nil && cdata == nil && cerr == nil && !s.hasWitness(id) {
		return checked{}, nil // no loop: the first look of most sessions costs this much
	}
	key := s.key(false)
	if errors.Is(lerr, ErrVersion) && key != nil && s.signedBy(key, data) == "ok" {
		// A newer ralph-loop's: not ours to judge, but not taken as the end of an active
		// loop either.
		if wit := s.readWitnesses(id, key); wit.n > 0 {
			return checked{}, s.unverified(id, wit, lerr.Error())
		}
		return checked{}, lerr
	}
	lOK := l != nil && lerr == nil && key != nil && s.signedBy(key, data) == "ok"
	var c *Loop
	if cerr == nil && cdata != nil && key != nil && s.signedBy(key, cdata) == "ok" {
		if cl, err := s.decodeLoop(cpath, cdata); err == nil && cl.SessionID == id {
			c = cl
		}
	}
	wit := s.readWitnesses(id, key)
	if best, repair := bestOf(l, lOK, lerr, data, c, cdata); best != nil {
		return s.checkedBest(id, best, repair, wit)
	}
	return s.noneVerifies(id, l, lerr, data, cdata, cerr, key, wit)
}

// bestOf is the loop a session's files say, of its loop file l (lOK: it verifies; lerr,
// data: how it was read) and the keep's copy c (cdata: its bytes): the later of the two
// that verify, and when that is the copy, why the loop file must be put back from it. nil
// when neither verifies.
func bestOf(l *Loop, lOK bool, lerr error, data []byte, c *Loop, cdata []byte) (*Loop, *Repair) {
	switch {
	case lOK && (c == nil || c.Seq <= l.Seq):
		return l, nil
	case c != nil:
		why := "its state file was changed by something other than ralph-loop"
		switch {
		case data == nil && lerr == nil:
			why = "its state file was removed"
		case lerr != nil && !errors.Is(lerr, ErrVersion):
			why = "its state file was " + damage(lerr)
		case lOK:
			why = "its state file was replaced by an older one"
		}
		return c, &Repair{Why: why, Copy: cdata}
	}
	return nil, nil
}

// checkedBest judges the loop that verifies (best) against the session's witnesses (wit).
func (s *Store) checkedBest(id string, best *Loop, repair *Repair, wit witnessed) (checked, error) {
	// A loop ralph-loop wrote, but older than the active one its witness names (loop ids
	// are ordered by time): an earlier loop's files put back. A newer one is a loop whose
	// witness was not written yet (a write cut short): it is written next. An ended loop
	// whose witness cannot be read cannot be told from one put back.
	older := wit.w != nil && best.LoopID < wit.w.LoopID
	if older || wit.n > 0 && wit.w == nil && best.Status != Active {
		return checked{}, s.unverified(id, wit, "its state file and ralph-loop's copy were replaced by those of an earlier loop, or its witness was changed")
	}
	rewitness := best.Status == Active && (wit.n < 2 || wit.w == nil || wit.w.LoopID != best.LoopID)
	stale := best.Status != Active && wit.n > 0
	return checked{loop: best, repair: repair, rewitness: rewitness, stale: stale}, nil
}

// noneVerifies judges a session none of whose loop files verifies: as before there was a
// keep when nothing else records it; an ended loop as it stands; an active one (its
// witness, its file or its copy says so) cannot be verified.
func (s *Store) noneVerifies(id string, l *Loop, lerr error, data, cdata []byte, cerr error, key []byte, wit witnessed) (checked, error) {
	kept := wit.n > 0 || cdata != nil || cerr != nil
	if !kept {
		// No record of this session besides its loop file: as before there was a keep.
		switch {
		case lerr != nil:
			return checked{}, lerr
		case data == nil:
			return checked{}, nil
		case s.signedBy(key, data) == "unsigned" || key == nil:
			// Written before loop files were signed (or by a ralph-loop without a keep, or
			// all keys are gone): taken as it is, and signed at the next write.
			return checked{loop: l}, nil
		}
		return checked{}, fmt.Errorf("%w: %s was changed by something other than ralph-loop, and ralph-loop has no copy of it", ErrCorrupt, s.loopPath(id))
	}
	active := wit.n > 0 || l != nil && l.Status == Active || parsesActive(cdata)
	if !active {
		// An ended loop whose files cannot be verified: nothing to keep going.
		if lerr != nil {
			return checked{}, lerr
		}
		return checked{loop: l}, nil
	}
	return checked{}, s.unverified(id, wit, describeUnverified(data, lerr, cdata, cerr, key, s.keys().problem))
}

// unverified is the error of a session whose active loop cannot be verified.
func (s *Store) unverified(id string, wit witnessed, why string) *UnverifiedError {
	u := &UnverifiedError{SessionID: id, Why: why}
	if wit.w != nil {
		u.LoopID, u.Owner = wit.w.LoopID, wit.w.Owner
	}
	return u
}

// parsesActive reports whether a loop file that cannot be verified says its loop is active.
func parsesActive(data []byte) bool {
	var l struct {
		Status Status `json:"status"`
	}
	return data != nil && json.Unmarshal(data, &l) == nil && l.Status == Active
}

// describeUnverified says what was changed of a session's loop files and key.
func describeUnverified(data []byte, lerr error, cdata []byte, cerr error, key []byte, keyProblem string) string {
	state := func(what string, data []byte, err error) string {
		if err == nil && data != nil {
			_, err = decodeLoop(what, data)
		}
		switch {
		case data == nil && err == nil:
			return what + " was removed"
		case err != nil && !errors.Is(err, ErrVersion):
			return what + " was " + damage(err)
		case signedBy(key, data) == "unsigned":
			return what + " was rewritten without ralph-loop's signature"
		case key == nil:
			return what + " cannot be checked"
		}
		return what + " was changed by something other than ralph-loop"
	}
	var parts []string
	if keyProblem != "" {
		parts = append(parts, keyProblem)
	}
	parts = append(parts, state("its state file", data, lerr), state("ralph-loop's copy of it", cdata, cerr))
	return strings.Join(parts, "; ")
}

func damage(err error) string {
	if errors.Is(err, ErrNotRegular) {
		return "replaced by something that is not a file"
	}
	return "made unreadable"
}

// readFile reads a state file; nil, nil when it does not exist.
func readFile(path string) ([]byte, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ErrNotRegular) {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	defer f.Close()
	data, err := readAll(f, maxStateFile)
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// keepCopy writes the keep's copy of a loop file just written. It is not synced, nor is the
// loop file (see save): after a crash of the machine either may be some writes behind the
// other, and the newer that verifies stands.
func (s *Store) keepCopy(id string, data []byte) {
	if s.keepDir == "" {
		return
	}
	dir := s.copiesDir()
	if err := mkdirPrivate(dir); err != nil {
		s.warn(err.Error())
		return
	}
	if err := writeAtomicNoSync(s.copyPath(id), data); err != nil {
		s.warn(fmt.Sprintf("keep a copy of session %s's loop: %v", id, err))
	}
}

// dropCopy removes the keep's copy of a session's loop (the session is gone).
func (s *Store) dropCopy(id string) {
	if s.keepDir != "" {
		os.Remove(s.copyPath(id))
	}
}

// keptOnly returns the sessions the keep has a copy for that are not among ids (their
// state directory is gone).
func (s *Store) keptOnly(ids []string) []string {
	if s.keepDir == "" {
		return nil
	}
	entries, err := os.ReadDir(s.copiesDir())
	if err != nil {
		return nil
	}
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
	}
	var out []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			id, ok = strings.CutSuffix(e.Name(), ".active")
		}
		if ok && !have[id] && ValidSessionID(id) == nil {
			have[id] = true
			out = append(out, id)
		}
	}
	return out
}
