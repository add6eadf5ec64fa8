package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// sparse makes path a transcript of lines, then a hole of n bytes (the file extended
// without writing, as "truncate -s +1T" does), then more lines. It skips the test where the
// file system keeps no holes.
func sparse(t *testing.T, path string, before string, n int64, after string) {
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
	f.Close()
}

// A hole in the transcript (the agent ran "truncate -s +1T" on it) is never read: the scan
// skips it, reads the lines the host appended after it, and ends at the file's end. It used
// to read every zero byte of the hole (10–20 s for 4 GB; a terabyte, hours).
func TestScanSkipsHoles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	before := assistant(ts1, text("working"))
	after := assistant(ts1, text("done <promise>DONE</promise>"))
	const hole = 1 << 40
	sparse(t, path, before, hole, after)
	res, err := ScanFile(path, 0, Options{Token: "DONE", Last: "done <promise>DONE</promise>"})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(before)) + hole + int64(len(after))
	if !res.Found || !res.SawLast || res.Offset != size {
		t.Errorf("found %v, saw the last message %v, offset %d; want the line after the hole read, offset %d", res.Found, res.SawLast, res.Offset, size)
	}
}
