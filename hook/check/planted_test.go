//go:build unix

package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A link, a hard link or a FIFO planted where a check's log goes is never written through
// nor waited on: the log is a new file of its own.
func TestPlantedLog(t *testing.T) {
	plants := map[string]func(path, outside string) error{
		"symlink":  func(path, outside string) error { return os.Symlink(outside, path) },
		"hardlink": func(path, outside string) error { return os.Link(outside, path) },
		"fifo":     func(path, _ string) error { return syscall.Mkfifo(path, 0o600) },
	}
	for name, plant := range plants {
		t.Run(name, func(t *testing.T) {
			o := opts(t)
			outside := filepath.Join(t.TempDir(), "precious")
			os.WriteFile(outside, []byte("precious\n"), 0o600)
			os.MkdirAll(filepath.Dir(o.LogPrefix), 0o700)
			log := o.LogPrefix + "-check-1.log"
			if err := plant(log, outside); err != nil {
				t.Fatal(err)
			}
			done := make(chan []Result, 1)
			go func() { done <- Run(context.Background(), []string{"echo hello; exit 1"}, o) }()
			var rs []Result
			select {
			case rs = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the check hangs on a planted log")
			}
			if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
				t.Errorf("the planted link's target was overwritten: %q", data)
			}
			if rs[0].ExitCode != 1 || rs[0].Tail != "hello\n" {
				t.Errorf("%+v", rs[0])
			}
			if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("log %s: %v, %v", log, fi.Mode(), err)
			}
		})
	}
}

// A check whose directory is gone says so, naming it.
func TestDirGone(t *testing.T) {
	o := opts(t)
	o.Dir = filepath.Join(o.Dir, "removed")
	rs := Run(context.Background(), []string{"true"}, o)
	if rs[0].Passed() || !strings.Contains(rs[0].Describe(), o.Dir) || !strings.Contains(rs[0].Describe(), "no longer exists") {
		t.Errorf("got %q, want it to say that %s no longer exists", rs[0].Describe(), o.Dir)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	o.Dir = file
	rs = Run(context.Background(), []string{"true"}, o)
	if rs[0].Passed() || !strings.Contains(rs[0].Describe(), "not a directory") {
		t.Errorf("got %q", rs[0].Describe())
	}
}
