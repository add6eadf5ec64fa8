package hosttest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
)

// Binaries is the world of a test of install.Target.Binaries for a host whose installed
// file names the program it runs (a plugin, an extension): a home with ralph-loop at
// opt/real, a link to it at bin/<link>, and another ralph-loop on PATH (path/); a project.
type Binaries struct {
	Home, Project string
	Real, Link    string
	OnPath        string // the ralph-loop on PATH
}

// NewBinaries makes that world, the link named link.
func NewBinaries(t testing.TB, link string) Binaries {
	t.Helper()
	home := t.TempDir()
	b := Binaries{Home: home, Project: t.TempDir(), Real: filepath.Join(home, "opt", "real", "ralph-loop"),
		Link: filepath.Join(home, "bin", link), OnPath: filepath.Join(home, "path", "ralph-loop")}
	for _, d := range []string{"opt/real", "bin", "path"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{b.Real, b.OnPath} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(b.Real, b.Link); err != nil {
		t.Fatal(err)
	}
	return b
}

// Getenv is the environment of the world: its HOME, and its path/ as PATH.
func (b Binaries) Getenv(k string) string {
	return map[string]string{"HOME": b.Home, "PATH": filepath.Join(b.Home, "path")}[k]
}

// InstallBoth checks that inst keeps no binary before an install, installs it at the user's
// scope (with the link as its binary) and at the project's, and checks that it then keeps
// the path the user's file holds, as written (the link, not what it points to), and for the
// project's the ralph-loop found on PATH.
func (b Binaries) InstallBoth(t testing.TB, inst *install.Target) {
	t.Helper()
	if got := inst.Binaries(b.Getenv, b.Project); len(got) != 0 {
		t.Errorf("%s, nothing installed: %q", inst.Name, got)
	}
	for _, scope := range []string{"user", "project"} {
		p, err := inst.Install(install.Options{Scope: scope, Dir: b.Project, Getenv: b.Getenv, Binary: b.Link, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := inst.Binaries(b.Getenv, b.Project), []string{b.Link, b.OnPath}; !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", inst.Name, got, want)
	}
}
