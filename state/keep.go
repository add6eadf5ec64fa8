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
)

// The keep is ralph-loop's own record of every loop it wrote, out of the way of what
// happens to the state directory (normally $XDG_DATA_HOME/ralph-loop, beside the state
// directory's $XDG_STATE_HOME, so that removing one leaves the other):
//
//	key                          a random key; every loop file carries a MAC made with it
//	loops/<store>/<session>.json a copy of the last loop file written for the session, by
//	                             state directory (<store> names it: a hash of its path)
//
// Every loop file ralph-loop writes ends with "mac", an HMAC-SHA256 of the file's bytes
// before it, and carries a write counter (seq). A loop file that is missing, unreadable,
// unsigned, signed with another key, signed for another session or older than the copy
// was not left as ralph-loop wrote it: the copy is put back, the loop goes on from there,
// and the session is told once. Anyone who can read the key can still forge a loop file,
// and anyone who removes both the state and the keep removes the loop: the keep is out of
// the way of an accident or a quick way out, not a vault.

// macField is how the MAC is written at the end of a loop file.
const macField = `,
  "mac": "`

// SetKeepDir sets the keep's directory ("" keeps nothing: loop files are neither signed
// nor checked).
func (s *Store) SetKeepDir(dir string) { s.keepDir = dir }

// KeepDir returns the keep's directory ("" when there is none).
func (s *Store) KeepDir() string { return s.keepDir }

func (s *Store) copyPath(id string) string { return filepath.Join(s.copiesDir(), id+".json") }

// CopiesDir is the keep's directory of this state directory's copies ("" with no keep).
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

// key returns the keep's key, making it the first time (nil when there is no keep, or it
// cannot be read and create is false).
func (s *Store) key(create bool) []byte {
	if s.keepDir == "" {
		return nil
	}
	if s.macKey != nil {
		return s.macKey
	}
	path := filepath.Join(s.keepDir, "key")
	if k := readKey(path); k != nil {
		s.macKey = k
		return k
	}
	if !create {
		return nil
	}
	if fi, err := os.Lstat(path); err == nil && (!fi.Mode().IsRegular() || hardLinks(fi) > 1) {
		s.moveAside(path, &NotRegularError{path, describe(fi)})
	}
	if err := mkdirPrivate(s.keepDir); err != nil {
		s.warn(err.Error())
		return nil
	}
	// Made under a temp name and linked into place: two processes making it at once agree
	// on the one that got there first.
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil
	}
	tmp, err := os.CreateTemp(s.keepDir, ".key.*.tmp")
	if err != nil {
		s.warn(fmt.Sprintf("make the integrity key: %v", err))
		return nil
	}
	_, werr := tmp.WriteString(hex.EncodeToString(raw[:]) + "\n")
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err == nil {
		if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
			s.warn(fmt.Sprintf("make the integrity key %s: %v", path, err))
		}
	}
	os.Remove(tmp.Name())
	s.macKey = readKey(path)
	return s.macKey
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
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode state of session %s: %w", l.SessionID, err)
	}
	key := s.key(true)
	if key == nil {
		return append(data, '\n'), nil
	}
	body := data[:len(data)-2] // without the closing "\n}"
	mac := sum(key, body)
	out := make([]byte, 0, len(data)+len(macField)+len(mac)+4)
	out = append(out, body...)
	out = append(out, macField...)
	out = append(out, mac...)
	out = append(out, "\"\n}\n"...)
	return out, nil
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

// Repair says what was wrong with a session's loop file and what stands in for it.
type Repair struct {
	// Why is what was found: the loop file removed, unreadable, or changed by something
	// other than ralph-loop.
	Why string
	// Copy is the keep's copy that is put back (its bytes as written).
	Copy []byte
}

// readChecked reads a session's loop file and checks it against the keep. It returns the
// loop as ralph-loop last wrote it (nil when the session has none) and, when the file is
// not that, the repair that puts it back. A loop file that cannot be read and has no copy
// in the keep is an error wrapping ErrCorrupt, as before there was a keep.
func (s *Store) readChecked(id string) (*Loop, *Repair, error) {
	path := s.loopPath(id)
	data, lerr := readFile(path)
	var l *Loop
	if lerr == nil && data != nil {
		l, lerr = decodeLoop(path, data)
		if lerr == nil && l.SessionID != id {
			lerr = fmt.Errorf("%w: %s names session %s", ErrCorrupt, path, l.SessionID)
		}
	}
	if s.keepDir == "" {
		return l, nil, lerr
	}
	cdata, cerr := readFile(s.copyPath(id))
	var c *Loop
	if cerr == nil && cdata != nil {
		if k := s.key(false); k != nil && signedBy(k, cdata) == "ok" {
			if cl, err := decodeLoop(s.copyPath(id), cdata); err == nil && cl.SessionID == id {
				c = cl
			}
		}
	}
	if errors.Is(lerr, ErrVersion) {
		return nil, nil, lerr // a newer ralph-loop's: not ours to judge
	}
	if data == nil && lerr == nil {
		// No loop file.
		if c == nil {
			return nil, nil, nil
		}
		return c, &Repair{Why: "its state file was removed", Copy: cdata}, nil
	}
	if lerr != nil {
		if c == nil {
			return nil, nil, lerr
		}
		return c, &Repair{Why: "its state file was " + damage(lerr), Copy: cdata}, nil
	}
	key := s.key(false)
	switch signedBy(key, data) {
	case "ok":
		if c != nil && c.Seq > l.Seq {
			return c, &Repair{Why: "its state file was replaced by an older one", Copy: cdata}, nil
		}
		return l, nil, nil
	case "unsigned":
		if c == nil {
			// Written before loop files were signed (or by a ralph-loop without a keep):
			// taken as it is, and signed at the next write.
			return l, nil, nil
		}
	}
	if c != nil {
		return c, &Repair{Why: "its state file was changed by something other than ralph-loop", Copy: cdata}, nil
	}
	if key == nil {
		return l, nil, nil // the key is gone: nothing to check against
	}
	return nil, nil, fmt.Errorf("%w: %s was changed by something other than ralph-loop, and ralph-loop has no copy of it", ErrCorrupt, path)
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
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// keepCopy writes the keep's copy of a loop file just written. It is not synced: after a
// power cut it may be a write behind the loop file, which is then the newer of the two.
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
		if ok && !have[id] && ValidSessionID(id) == nil {
			out = append(out, id)
		}
	}
	return out
}
