package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
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
// platform package carries os, cpu and the executable binaries, ralph-loop and its
// dashboard; a platform without the dashboard is an error; the launcher copies the
// dashboard beside itself.
func TestPackages(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("readme"), 0o644)
	os.MkdirAll(filepath.Join(dir, "cmd", "internal", "dist"), 0o755)
	os.WriteFile(filepath.Join(dir, "cmd", "internal", "dist", "npm-readme.md"), []byte("npm readme"), 0o644)
	os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("license"), 0o644)
	os.WriteFile(filepath.Join(dir, "bin"), []byte("\x7fELF"), 0o755)
	os.WriteFile(filepath.Join(dir, "dash"), []byte("\x7fELF dashboard"), 0o755)
	files, err := Packages("1.2.3", map[string]map[string]string{"linux_amd64": {"ralph-loop": "bin", "ralph-loop-watch": "dash"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "ralph-loop-cli-linux-x64-1.2.3.tgz" || files[1].Name != "ralph-loop-cli-1.2.3.tgz" {
		t.Fatalf("files: %v", names(files))
	}
	platform := untar(t, files[0].Data)
	for name, want := range map[string]string{"package/bin/ralph-loop": "\x7fELF", "package/bin/ralph-loop-watch": "\x7fELF dashboard"} {
		if got, ok := platform[name]; !ok || got.data != want || got.mode != 0o755 {
			t.Errorf("%s in the platform package: %+v (present %v), want %q, mode 0755", name, got, ok, want)
		}
	}
	// The launcher runs the binary where it is, beside the dashboard (see TestLauncherRace).
	if _, err := Packages("1.2.3", nil, dir); err == nil {
		t.Error("no binaries: no error")
	}
	if _, err := Packages("1.2.3", map[string]map[string]string{"linux_amd64": {"ralph-loop": "bin"}}, dir); err == nil ||
		!strings.Contains(err.Error(), "no ralph-loop-watch for linux_amd64") {
		t.Errorf("no dashboard: %v", err)
	}
}

type tarEntry struct {
	data string
	mode int64
}

// untar reads a gzipped tarball.
func untar(t *testing.T, tgz []byte) map[string]tarEntry {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string]tarEntry{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = tarEntry{string(b), h.Mode}
	}
}

func names(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// repoRoot is the repository, from this package's directory.
const repoRoot = "../../.."

// TestArchiveReadme: the release archive holds a README written for it
// (cmd/internal/dist/archive-readme.md, as README.md) and the docs (docs/*.md); the README runs
// nothing that needs a clone (make), and every relative link in it and in the docs names a
// file the archive holds.
func TestArchiveReadme(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- src: cmd/internal/dist/archive-readme.md\n        dst: README.md\n", "- src: docs/*.md\n", "- src: LICENSE\n"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf(".goreleaser.yaml does not ship %q", want)
		}
	}
	holds := map[string]bool{"README.md": true, "LICENSE": true}
	docs, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	md := map[string]string{"README.md": filepath.Join("cmd", "internal", "dist", "archive-readme.md")}
	for _, d := range docs {
		name := "docs/" + filepath.Base(d)
		holds[name] = true
		md[name] = filepath.Join("docs", filepath.Base(d))
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for name, file := range md {
		data, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") {
				continue
			}
			if p := path.Clean(path.Join(path.Dir(name), target)); !holds[p] {
				t.Errorf("%s (%s in the archive) links to %s, which the archive does not hold", file, name, m[1])
			}
		}
		if name == "README.md" && regexp.MustCompile(`(?m)^\s+make `).Match(data) {
			t.Errorf("%s runs make, which needs a clone, not the archive", file)
		}
	}
}

// TestInstallOffersEveryArtefact: README.md and docs/install.md offer every way a release
// ships the binary: the Linux packages, the Homebrew formula and the Scoop manifest of
// .goreleaser.yaml, by the commands that install them.
func TestInstallOffersEveryArtefact(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repoOf := func(section string) (owner, name string) {
		i := strings.Index(string(cfg), "\n"+section+":")
		m := regexp.MustCompile(`repository: \{ owner: ([\w-]+), name: ([\w-]+) \}`).FindStringSubmatch(string(cfg[max(i, 0):]))
		if i < 0 || m == nil {
			t.Fatalf(".goreleaser.yaml has no %s with a repository", section)
		}
		return m[1], m[2]
	}
	owner, tap := repoOf("brews")
	bucketOwner, bucket := repoOf("scoops")
	if !strings.Contains(string(cfg), "formats: [deb, rpm]") {
		t.Fatal(".goreleaser.yaml: nfpms no longer makes deb and rpm: say what it makes in docs/install.md")
	}
	install, _ := os.ReadFile(filepath.Join(repoRoot, "docs", "install.md"))
	for _, want := range []string{
		"brew install " + owner + "/" + strings.TrimPrefix(tap, "homebrew-") + "/ralph-loop",
		"scoop bucket add ralph-loop https://github.com/" + bucketOwner + "/" + bucket,
		"scoop install ralph-loop",
		"ralph-loop_VERSION_linux_amd64.deb", "ralph-loop_VERSION_linux_amd64.rpm",
	} {
		if !strings.Contains(string(install), want) {
			t.Errorf("docs/install.md does not offer %q", want)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	for _, want := range []string{"`.deb`", "`.rpm`", "brew install " + owner + "/" + strings.TrimPrefix(tap, "homebrew-") + "/ralph-loop", "Scoop"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not offer %q", want)
		}
	}
}

// TestNPMReadme: the npm package's README is written for npm's users: it says how to
// install and use ralph-loop, and names no command a developer of ralph-loop runs (make).
func TestNPMReadme(t *testing.T) {
	data, err := os.ReadFile("npm-readme.md")
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?m)^\s+make `).Match(data) || !strings.Contains(string(data), "npx @ralph-loop/cli install") {
		t.Errorf("npm-readme.md is not a README for npm's users:\n%s", data)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"README.md": "developer readme", "LICENSE": "license", "cmd/internal/dist/npm-readme.md": string(data)} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "bin"), []byte("\x7fELF"), 0o755)
	os.WriteFile(filepath.Join(dir, "dash"), []byte("\x7fELF"), 0o755)
	files, err := Packages("1.2.3", map[string]map[string]string{"linux_amd64": {"ralph-loop": "bin", "ralph-loop-watch": "dash"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := untar(t, files[len(files)-1].Data)["package/README.md"].data; got != string(data) {
		t.Errorf("the package's README.md is %.80q, want npm-readme.md", got)
	}
}
