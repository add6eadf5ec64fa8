package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage keeps docs/architecture.md a map of the whole module:
// every directory with a Go file (a package, its tests' alone too) has its row in the
// packages' table, and every row names a package that exists.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9/._-]+)` \\|").FindAllStringSubmatch(string(data), -1) {
		rows[m[1]] = true
	}
	pkgs := map[string]bool{}
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		top := filepath.Dir(path) == "../.."
		if d.IsDir() && path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || top && (name == "bin" || name == "dist")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			dir, _ := filepath.Rel("../..", filepath.Dir(path))
			pkgs[filepath.ToSlash(dir)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("found %d packages, want the module's (40 or more): is the walk wrong?", len(pkgs))
	}
	for p := range pkgs {
		if !rows[p] {
			t.Errorf("docs/architecture.md has no row for package %s", p)
		}
	}
	for r := range rows {
		if !pkgs[r] {
			t.Errorf("docs/architecture.md has a row for %s, which is no package", r)
		}
	}
}
