//go:build !unix

package state

// Elsewhere symbolic links are refused by the regular-file check after opening.
const (
	oNoFollow = 0
	oNonBlock = 0
)
