package state

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadAll: readAll reads the whole file into a buffer of its size, and at most limit+1
// bytes of a larger one, as io.ReadAll over a LimitReader did.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		size, limit int64
		want        int64
	}{
		{0, 100, 0},
		{1, 100, 1},
		{100, 100, 100},
		{101, 100, 101},
		{5000, 100, 101},
		{70000, 1 << 20, 70000},
	} {
		path := filepath.Join(dir, "f")
		data := bytes.Repeat([]byte("abcdefg"), int(tc.size)/7+1)[:tc.size]
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(f, tc.limit)
		f.Close()
		if err != nil || got == nil || !bytes.Equal(got, data[:tc.want]) {
			t.Errorf("size %d, limit %d: got %d bytes (nil %v), %v; want the first %d", tc.size, tc.limit, len(got), got == nil, err, tc.want)
		}
		if tc.size > 0 && tc.size <= tc.limit && int64(cap(got)) != tc.size+1 {
			t.Errorf("size %d: buffer of %d bytes, want %d (the file's size and one)", tc.size, cap(got), tc.size+1)
		}
	}
}

// TestReadAllPipe: a file whose size is not known (a pipe) is read to its end all the same.
func TestReadAllPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 3000)
	go func() { w.Write(data); w.Close() }()
	got, err := readAll(r, 1<<20)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("got %d bytes, %v; want %d", len(got), err, len(data))
	}
}
