//go:build !unix

package state

import "os"

// Elsewhere symbolic links are refused by the regular-file check after opening.
const (
	oNoFollow = 0
	oNonBlock = 0
)

func hardLinks(os.FileInfo) uint64 { return 1 }

func clearNonBlock(*os.File) error { return nil }

func isNoReader(error) bool { return false }

func isDirErr(error) bool { return false }
