//go:build unix

package args

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state/planted"
)

// Settings are read only from regular files of at most 1 MiB: a link to /dev/zero (which
// grew to gigabytes), a FIFO (which hung) or a huge file is a clear error naming the file.
// A link to a regular file is fine: settings may be kept elsewhere.
func TestSettingsOnlyRegular(t *testing.T) {
	p, err := parse(t, `task`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		plant func(path string) error
		want  string
	}{
		"dev-zero":  {func(path string) error { return planted.Symlink.Make(path, "/dev/zero") }, "is a device, not a regular file"},
		"fifo":      {func(path string) error { return planted.FIFO.Make(path, "") }, "is a FIFO, not a regular file"},
		"directory": {func(path string) error { return planted.Dir.Make(path, "") }, "is a directory, not a regular file"},
		"huge": {func(path string) error {
			return os.WriteFile(path, []byte(`{"check-hint": "`+strings.Repeat("x", 2<<20)+`"}`), 0o600)
		}, "is larger than 1 MiB"},
	}
	for name, c := range cases {
		for _, file := range []string{ProjectSettings, LocalSettings} {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				dir := t.TempDir()
				os.Mkdir(filepath.Join(dir, ".ralph"), 0o755)
				path := filepath.Join(dir, file)
				if err := c.plant(path); err != nil {
					t.Fatal(err)
				}
				err := planted.Bounded(t, "reading settings", func() error { _, err := Resolve(p, dir); return err })
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("got %v, want one line naming %s that says it %s", err, path, c.want)
				}
			})
		}
	}
	// Through a link to a regular file: read.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".ralph"), 0o755)
	real := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(real, []byte(`{"max-iterations": 7}`), 0o600)
	os.Symlink(real, filepath.Join(dir, ProjectSettings))
	if c, err := Resolve(p, dir); err != nil || c.MaxIterations != 7 {
		t.Errorf("settings through a link: %v, %v", c.MaxIterations, err)
	}
}
