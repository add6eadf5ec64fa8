//go:build linux || darwin || freebsd

package transcript

import (
	"os"

	"golang.org/x/sys/unix"
)

// errNoData is what seekData returns when no data follows the offset.
var errNoData = unix.ENXIO

// seekHole returns the start of the first hole at or after off (the file's end counts as
// one); seekData the first offset at or after off that holds data.
func seekHole(f *os.File, off int64) (int64, error) { return f.Seek(off, unix.SEEK_HOLE) }
func seekData(f *os.File, off int64) (int64, error) { return f.Seek(off, unix.SEEK_DATA) }
