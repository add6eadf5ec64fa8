package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

var errorsIs = errors.Is

// NotRegularError is the error for a path that holds something other than a regular file
// with one name: a symbolic link, a FIFO, a directory, a device, a socket, or a file with
// other hard links. It matches ErrNotRegular.
type NotRegularError struct {
	Path string
	What string // "a symbolic link", "a FIFO", ...
}

func (e *NotRegularError) Error() string {
	if e.What == "a symbolic link" {
		return e.Path + " is a symbolic link"
	}
	return e.Path + " is " + e.What + ", not a regular file"
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// describe names what kind of file fi is, for NotRegularError.
func describe(fi os.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsRegular() && hardLinks(fi) > 1:
		return fmt.Sprintf("a file with %d hard links", hardLinks(fi))
	}
	return "not a regular file"
}

// openState opens a file of the state directory: never through a symbolic link, never
// waiting (on a FIFO), and only if it is a regular file; one opened for writing must also
// have no other name (a hard link to a file elsewhere). Anything else is a
// *NotRegularError. The returned file does ordinary blocking I/O.
func openState(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNoFollow|oNonBlock, perm)
	if err != nil {
		switch {
		case isSymlinkErr(err):
			return nil, &NotRegularError{path, "a symbolic link"}
		case isNoReader(err):
			what := "a FIFO"
			if fi, lerr := os.Lstat(path); lerr == nil {
				what = describe(fi)
			}
			return nil, &NotRegularError{path, what}
		case isDirErr(err):
			return nil, &NotRegularError{path, "a directory"}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	writing := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if !fi.Mode().IsRegular() || writing && hardLinks(fi) > 1 {
		f.Close()
		return nil, &NotRegularError{path, describe(fi)}
	}
	if err := clearNonBlock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openNoFollow opens a state file for reading (see openState).
func openNoFollow(path string) (*os.File, error) {
	return openState(path, os.O_RDONLY, 0)
}

// readAll reads f to its end, keeping at most limit+1 bytes (more than limit tells the
// caller the file is too large), into a buffer of the file's size. io.ReadAll's buffer
// grows from 512 bytes, and each size it passes through costs a hook process a fresh page
// of memory or two: a hook reads a few small files, and its start is mostly such costs.
func readAll(f *os.File, limit int64) ([]byte, error) {
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = min(fi.Size(), limit) + 1 // +1: the end is seen without growing
	}
	b := make([]byte, 0, size)
	r := io.LimitReader(f, limit+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: let append pick the next size
		}
	}
}

// OpenRegular opens a file that must be a regular file (it may be reached through a
// symbolic link) for reading, without waiting on a FIFO: for a host's transcript read in
// pieces.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{path, describe(fi)}
	}
	if err == nil {
		err = clearNonBlock(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads a file that must be a regular file (it may be reached through a
// symbolic link) of at most limit bytes, without waiting on a FIFO: for files a repository
// or a person provides, such as settings. A missing file gives an error matching
// fs.ErrNotExist.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{path, describe(fi)}
	}
	if err := clearNonBlock(f); err != nil {
		return nil, err
	}
	data, err := readAll(f, limit)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %s", path, sizeString(limit))
	}
	return data, nil
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// moveAside renames a planted file (why says what it is) out of the way, so that a fresh
// one can take its place, and warns. Renaming never touches what a link points to.
func (s *Store) moveAside(path string, why error) {
	to, err := moveAside(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // another process moved it first
			s.warn(fmt.Sprintf("%v; moving it aside failed: %v", why, err))
		}
		return
	}
	s.warn(fmt.Sprintf("%v; moved it to %s", why, to))
}

func moveAside(path string) (string, error) {
	to := fmt.Sprintf("%s.refused-%s", path, time.Now().UTC().Format("20060102T150405.000000000Z"))
	return to, os.Rename(path, to)
}

// ensureDir makes dir a private directory of its own: something planted at its path (a
// link to a directory elsewhere, a file) is moved aside first, so that nothing is written
// through it.
func (s *Store) ensureDir(dir string) error {
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		s.moveAside(dir, fmt.Errorf("%w: %s is %s, not a directory", ErrNotRegular, dir, describe(fi)))
	}
	return mkdirPrivate(dir)
}

func (s *Store) warn(msg string) {
	if s.Warn != nil {
		s.Warn(msg)
	}
}

// openAppend opens a log of the state directory for appending, creating it. A planted
// file in its place is moved aside first.
func (s *Store) openAppend(path string) (*os.File, error) {
	if err := s.ensureDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := openState(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, ErrNotRegular) {
		s.moveAside(path, err)
		f, err = openState(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	return f, err
}

// sweep moves aside, under the session lock, anything planted in place of the session's
// logs, so that the decision taken under the lock can write them.
func (s *Store) sweep(id string) {
	for _, name := range []string{"events.jsonl", "tools.jsonl", "said.jsonl"} {
		path := filepath.Join(s.SessionDir(id), name)
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() || hardLinks(fi) > 1 {
			s.moveAside(path, &NotRegularError{path, describe(fi)})
		}
	}
}

// CreateLog creates a fresh private log file at path, in a directory of the state
// directory, for reading and writing: whatever was at path before (a planted link, a
// FIFO) is removed first, never followed, and a link planted as the directory is moved
// aside.
func CreateLog(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		moveAside(dir) // planted: a link to a directory elsewhere
	}
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &NotRegularError{dir, describe(fi)}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("replace %s: %w", path, err)
	}
	return openState(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// isSymlinkErr reports whether err is what opening a symbolic link with O_NOFOLLOW gives.
func isSymlinkErr(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// mkdirPrivate creates dir and its missing parents with mode 0700.
func mkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state directory %s: %w", dir, err)
	}
	return nil
}

// writeFileAtomic writes a private state file.
func writeFileAtomic(path string, data []byte) error {
	return WriteFileAtomic(path, data, 0o600)
}

// WriteFileAtomic replaces path with data: a temp file in the same directory is written,
// synced and renamed over path, then the directory is synced. On any error the temp file is
// removed and path is left as it was.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// failWrite, set by tests, makes the atomic write of a path fail as a full disk would.
var failWrite func(path string) error

// writeAtomic writes data to a temp file in path's directory and renames it over path:
// whatever happens to the process, path is the old file or the new one, never a part of
// one. With sync, the new file (and the rename) is on the disk when it returns; without,
// a crash of the machine (a power cut, not a process's) may leave the old file, or on some
// file systems an empty one: for files with a copy elsewhere (see Store.save).
func writeAtomic(path string, data []byte, perm os.FileMode, sync bool) error {
	if !sync {
		return writeAtomicFunc(path, perm, sync, preallocating(data))
	}
	return writeAtomicFunc(path, perm, sync, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicFunc is writeAtomic with the content written by write.
func writeAtomicFunc(path string, perm os.FileMode, sync bool, write func(io.Writer) error) error {
	tmp, err := WriteTemp(path, perm, sync, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	if !sync {
		return nil
	}
	return SyncDir(filepath.Dir(path))
}

// WriteTemp is the first half of every atomic write of ralph-loop's: it writes a new file
// beside path (".<name>.*.tmp" in its directory, which must exist), its content made by
// write, with mode perm, and with sync on the disk when it returns. On any error it leaves
// nothing. The caller puts it in place of path (os.Rename, then SyncDir for a durable
// rename; install swaps it in only over the content it planned from) and removes it if
// that fails.
func WriteTemp(path string, perm os.FileMode, sync bool, write func(io.Writer) error) (tmp string, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	name := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if err = write(f); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if failWrite != nil {
		if err = failWrite(path); err != nil {
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
	if perm != 0o600 {
		if err = f.Chmod(perm); err != nil {
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
	if sync {
		if err = f.Sync(); err != nil {
			return "", fmt.Errorf("sync %s: %w", name, err)
		}
	}
	if err = f.Close(); err != nil {
		return "", fmt.Errorf("close %s: %w", name, err)
	}
	return name, nil
}

// writeAtomicNoSync replaces path with data like WriteFileAtomic, without waiting for the
// disk: for copies that a later write supersedes.
func writeAtomicNoSync(path string, data []byte) error {
	return writeAtomic(path, data, 0o600, false)
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
