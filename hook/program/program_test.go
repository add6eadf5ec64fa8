package program

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A PATH that names directories of the project first (bin/, node_modules/.bin, a relative
// entry, a link into the project), a temporary directory and a directory anyone may write:
// the program is the one past all of them.
func TestLookOutsideTheProject(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	tmp := filepath.Join(root, "tmp")
	open := filepath.Join(root, "open")
	system := filepath.Join(root, "usr", "bin")
	planted := func(dir, name string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, name := range []string{"git", "notify-send", "bwrap"} {
		planted(filepath.Join(project, "bin"), name)
		planted(filepath.Join(project, "node_modules", ".bin"), name)
		planted(tmp, name)
		planted(open, name)
	}
	os.Chmod(open, 0o777)
	// A directory outside the project that links into it, and a program that does.
	linkDir := filepath.Join(root, "linked")
	os.Symlink(filepath.Join(project, "bin"), linkDir)
	os.MkdirAll(filepath.Join(root, "links"), 0o755)
	os.Symlink(filepath.Join(project, "bin", "git"), filepath.Join(root, "links", "git"))
	want := planted(system, "git")
	planted(system, "notify-send")

	path := strings.Join([]string{"bin", "node_modules/.bin", "", ".", filepath.Join(project, "bin"), filepath.Join(project, "node_modules", ".bin"),
		linkDir, filepath.Join(root, "links"), tmp, open, system}, string(os.PathListSeparator))
	f := Finder{Path: path, Skip: []string{project, tmp}}
	t.Chdir(project)
	if got, err := f.Look("git"); err != nil || got != want {
		t.Errorf("git: got %q, %v; want %q", got, err, want)
	}
	if got, err := f.Look("notify-send"); err != nil || got != filepath.Join(system, "notify-send") {
		t.Errorf("notify-send: got %q, %v", got, err)
	}
	if got, err := f.Look("bwrap"); !errors.Is(err, ErrNotFound) {
		t.Errorf("bwrap, only in the project and the temporary directories: got %q, %v; want ErrNotFound", got, err)
	}
	if _, err := f.Look("./git"); err == nil {
		t.Error("a path was looked up")
	}
}
