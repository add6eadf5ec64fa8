//go:build unix

package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state/planted"
)

// A link, a hard link or a FIFO planted where a check's log goes is never written through
// nor waited on: the log is a new file of its own.
func TestPlantedLog(t *testing.T) {
	for _, plant := range []planted.Plant{planted.Symlink, planted.Hardlink, planted.FIFO} {
		t.Run(plant.Name, func(t *testing.T) {
			o := opts(t)
			outside := filepath.Join(t.TempDir(), "precious")
			os.WriteFile(outside, []byte("precious\n"), 0o600)
			os.MkdirAll(filepath.Dir(o.LogPrefix), 0o700)
			log := o.LogPrefix + "-check-1.log"
			if err := plant.Make(log, outside); err != nil {
				t.Fatal(err)
			}
			rs := planted.Bounded(t, "the check", func() []Result { return Run(context.Background(), []string{"echo hello; exit 1"}, o) })
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
