//go:build !linux && !darwin

package state

import (
	"os"
	"time"
)

func changeTime(fi os.FileInfo) time.Time { return fi.ModTime() }
