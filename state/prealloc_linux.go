package state

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// preallocating gives an unsynced temporary file its blocks before it is written (see
// writeAtomic). On ext4, whose default mount option auto_da_alloc starts writing out a file
// whose blocks are not allocated yet when it is renamed over another, that start is skipped:
// a stop's two saves cost about a third less. Where the file system cannot, nothing is done.
func preallocating(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if f, ok := w.(*os.File); ok && len(data) > 0 {
			_ = unix.Fallocate(int(f.Fd()), 0, 0, int64(len(data)))
		}
		_, err := w.Write(data)
		return err
	}
}
