package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A release version must be the plugin manifests' (one version everywhere); a snapshot is
// not checked.
func TestCheckManifests(t *testing.T) {
	repo := t.TempDir()
	for _, m := range Manifests {
		os.MkdirAll(filepath.Join(repo, filepath.Dir(m)), 0o755)
	}
	os.WriteFile(filepath.Join(repo, Manifests[0]), []byte(`{"name":"m","plugins":[{"name":"p","version":"1.2.3"}]}`), 0o644)
	os.WriteFile(filepath.Join(repo, Manifests[1]), []byte(`{"name":"p","version":"1.2.3"}`), 0o644)
	if err := checkManifests(repo, "1.2.3"); err != nil {
		t.Errorf("matching release: %v", err)
	}
	if err := checkManifests(repo, "1.2.4"); err == nil || !strings.Contains(err.Error(), `says version "1.2.3", the release is 1.2.4`) {
		t.Errorf("mismatched release: %v", err)
	}
	for _, v := range []string{"0.0.0-20261126192639-a9bab0810763", "1.2.4+dirty"} {
		if err := checkManifests(repo, v); err != nil {
			t.Errorf("snapshot %s: %v", v, err)
		}
	}
	// The repository's own manifests agree with each other.
	var seen []string
	for _, m := range Manifests {
		vs, err := manifestVersions(filepath.Join("..", "..", "..", m))
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, vs...)
	}
	for _, v := range seen {
		if v != seen[0] {
			t.Errorf("the plugin manifests disagree: %v", seen)
		}
	}
}

// The npm packages: the main one names every platform package at the same version; a
// platform package carries os, cpu and the executable binary.
func TestPackages(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("readme"), 0o644)
	os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("license"), 0o644)
	os.WriteFile(filepath.Join(dir, "bin"), []byte("\x7fELF"), 0o755)
	files, err := Packages("1.2.3", map[string]string{"linux_amd64": "bin"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "ralph-loop-cli-linux-x64-1.2.3.tgz" || files[1].Name != "ralph-loop-cli-1.2.3.tgz" {
		t.Fatalf("files: %v", names(files))
	}
	if _, err := Packages("1.2.3", nil, dir); err == nil {
		t.Error("no binaries: no error")
	}
}

func names(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}
