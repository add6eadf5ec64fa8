//go:build !linux

package e2e

// dropCached does nothing here (see settle_linux.go): the binaries stay as they are cached.
func dropCached(string) error { return nil }
