//go:build !(linux || darwin || freebsd)

package transcript

import (
	"errors"
	"os"
)

// Where the system cannot tell holes, a transcript is all data.

var errNoData = errors.New("no data")

var errNoHoles = errors.New("holes cannot be told here")

func seekHole(*os.File, int64) (int64, error) { return 0, errNoHoles }
func seekData(*os.File, int64) (int64, error) { return 0, errNoHoles }
