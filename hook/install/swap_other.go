//go:build !linux

package install

// swapIn puts the written temp file tmp in place of real, only if real still holds old
// (nil: does not exist): compared, then renamed.
func swapIn(path, tmp, real string, old []byte) error {
	return compareAndRename(path, tmp, real, old)
}
