//go:build !linux

package state

import "io"

// preallocating writes data (elsewhere than Linux, with nothing allocated first; see
// prealloc_linux.go).
func preallocating(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
