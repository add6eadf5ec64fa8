//go:build linux

package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// swapIn puts the written temp file tmp in place of real, only if real still holds old
// (nil: does not exist). On Linux the check is part of the swap: the files are exchanged
// atomically, and if what came out is not old (another program wrote it in the meantime)
// they are exchanged back and the write is refused, so no change of another writer's is
// lost between a comparison and a rename.
func swapIn(path, tmp, real string, old []byte) error {
	if old == nil {
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, real, unix.RENAME_NOREPLACE)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EEXIST):
			return fmt.Errorf("write %s: %w", path, errChanged)
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			return compareAndRename(path, tmp, real, old)
		}
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, real, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("write %s: %w", path, errChanged)
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return compareAndRename(path, tmp, real, old)
	default:
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	out, _, rerr := readFile(tmp)
	if rerr == nil && bytes.Equal(out, old) {
		os.Remove(tmp)
		return nil
	}
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, real, unix.RENAME_EXCHANGE); err != nil {
		return fmt.Errorf("write %s: restore another program's change (kept in %s): %w", path, tmp, keptError{err})
	}
	os.Remove(tmp)
	return fmt.Errorf("write %s: %w", path, errChanged)
}
