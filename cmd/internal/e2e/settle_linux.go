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
	// Dirty pages are not dropped: written out first (a file system that cannot, a
	// read-only one, has none).
	_ = f.Sync()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
