// Package sparsefile makes transcripts with holes for the tests of the scanners that must
// skip them (the agent ran "truncate -s +1T" on its transcript).
package sparsefile

import (
	"os"
	"testing"
)

// Write makes path a transcript of lines, then a hole of n bytes (the file extended without
// writing, as "truncate -s +1T" does), then more lines. It skips the test where the file
// system keeps no holes.
func Write(t testing.TB, path string, before string, n int64, after string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(before))+n); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(after); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
