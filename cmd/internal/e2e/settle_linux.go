package e2e

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropCached writes path's pages out and drops them from the page cache, so that the next
// process to run it reads it from the disk.
func dropCached(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
