package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/state"
)

// MaxFileSize is the largest settings or command file install reads (4 MiB): a file that is
// larger, or not a regular file (a FIFO, a device), is refused rather than read.
const MaxFileSize = 4 << 20

var errNoHome = errors.New("no home directory (set HOME)")

// resolve follows a symbolic link at path to the file it names (which may not exist yet),
// so that a settings file kept by a dotfile manager is written through and stays a link.
func resolve(path string) (string, error) {
	for i := 0; i < 40; i++ {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", path, err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("resolve %s: too many links", path)
}

// readFile reads a settings or command file: nil if it does not exist. It follows links,
// never blocks on a FIFO and refuses anything but a regular file of at most MaxFileSize.
func readFile(path string) ([]byte, fs.FileMode, error) {
	real, err := resolve(path)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|oNonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("read %s: not a regular file", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, 0, fmt.Errorf("read %s: larger than %d MiB", path, MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, 0, fmt.Errorf("read %s: larger than %d MiB", path, MaxFileSize>>20)
	}
	if data == nil {
		data = []byte{}
	}
	return data, fi.Mode().Perm(), nil
}

// errChanged means a file changed between the plan and its write.
var errChanged = errors.New("another program changed it while install ran; run install again")

// replaceFile writes data to path (through a link) if path still holds old (nil: does not
// exist): a temp file in the same directory is written and synced (state.WriteTemp: the
// user's settings are not rebuilt from anywhere), the file is compared once more, then the
// temp file is swapped in and the directory synced.
func replaceFile(path string, old, data []byte, perm fs.FileMode) error {
	real, err := resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(real)
	dirPerm := fs.FileMode(0o755)
	if perm&0o077 == 0 {
		dirPerm = 0o700 // a private file's directories (the hook script's, in ralph-loop's keep) are private too
	}
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := state.WriteTemp(real, perm, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := swapIn(path, tmp, real, old); err != nil {
		if !errors.As(err, new(keptError)) {
			os.Remove(tmp)
		}
		return err
	}
	state.SyncDir(dir) // the file is in place: a directory that cannot be synced fails no install
	return nil
}

// keptError is swapIn's error when the temp file holds another program's change that could
// not be put back: the file stays, for the user to find (the error names it).
type keptError struct{ err error }

func (e keptError) Error() string { return e.err.Error() }
func (e keptError) Unwrap() error { return e.err }

// compareAndRename renames tmp over real if path still holds old.
func compareAndRename(path, tmp, real string, old []byte) error {
	if err := unchanged(path, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, real); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

// unchanged checks that path still holds old (nil: does not exist).
func unchanged(path string, old []byte) error {
	cur, _, err := readFile(path)
	if err != nil {
		return err
	}
	if (cur == nil) != (old == nil) || !bytes.Equal(cur, old) {
		return fmt.Errorf("write %s: %w", path, errChanged)
	}
	return nil
}

// createExclusive writes a new file that must not exist yet (a backup).
func createExclusive(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
