//go:build unix

package state

import (
	"os"
	"syscall"
)

const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// hardLinks is how many names the file has.
func hardLinks(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// clearNonBlock makes reads and writes of a regular file opened with O_NONBLOCK ordinary
// again (the flag only served to open a FIFO without waiting).
func clearNonBlock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

// isNoReader reports the error of opening a FIFO for writing without blocking when nobody
// reads it (or a socket).
func isNoReader(err error) bool { return errorsIs(err, syscall.ENXIO) }

// isDirErr reports the error of opening a directory for writing.
func isDirErr(err error) bool { return errorsIs(err, syscall.EISDIR) }
