// Package release tests what a release ships, as a user gets it: make dist's archives and
// checksums, and the npm packages installed with the real npm from a registry on 127.0.0.1
// into a fresh prefix with no Go on PATH, then the demo's loop through the real Claude Code
// with only what npm installed, and a session after npm rm -g. It is the release suite
// (make release-test; on its own, RALPH_E2E=1 go test ./cmd/internal/e2e/release/).
//
// make dist builds one target here (linux/amd64, GoReleaser with .goreleaser.yaml narrowed
// to it) unless RALPH_DIST_FULL=1, which builds all six as a release does.
package release

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

var (
	repo, version, claudeBin string
	distArgs                 []string // make's arguments for make dist
	distSums                 []byte   // checksums.txt as make dist first wrote it
	oneConfig                string   // the narrowed GoReleaser configuration, removed at the end
	full                     bool
	setupErr                 error
	skipWhy                  string
)

func TestMain(m *testing.M) {
	if os.Getenv("RALPH_E2E") == "1" {
		setup()
	}
	code := m.Run()
	if oneConfig != "" {
		os.Remove(oneConfig)
	}
	os.Exit(code)
}

func setup() {
	ctx := context.Background()
	for _, tool := range []string{"node", "npm", "git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipWhy = tool + " is not installed"
			fmt.Fprintln(os.Stderr, "ralph-loop e2e (release): SKIPPED: "+skipWhy)
			return
		}
	}
	if os.Getenv("CLAUDE_BIN") == "" {
		if skipWhy = e2e.Unavailable(ctx, e2e.Claude); skipWhy != "" {
			fmt.Fprintln(os.Stderr, "ralph-loop e2e (release): SKIPPED: "+skipWhy)
			return
		}
	}
	if claudeBin, setupErr = e2e.InstallClaude(ctx, os.Stderr); setupErr != nil {
		return
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		setupErr = err
		return
	}
	repo = filepath.Dir(strings.TrimSpace(string(out)))
	full = os.Getenv("RALPH_DIST_FULL") == "1"
	args := []string{"dist"}
	if !full {
		cfg, err := oneTarget()
		if err != nil {
			setupErr = err
			return
		}
		oneConfig = cfg
		args = append(args, "GORELEASER_FLAGS=-f "+cfg)
	}
	start := time.Now()
	cmd := exec.Command("make", args...)
	cmd.Dir = repo
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		setupErr = fmt.Errorf("make %s: %v\n%s", strings.Join(args, " "), err, log.String())
		return
	}
	fmt.Fprintf(os.Stderr, "ralph-loop e2e (release): make %s took %s\n", strings.Join(args, " "), time.Since(start).Round(time.Second))
	for _, line := range strings.Split(log.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "make dist: version "); ok {
			version = strings.TrimSpace(v)
		}
	}
	if version == "" {
		setupErr = fmt.Errorf("make dist did not say its version:\n%s", log.String())
	}
	distArgs = args
	distSums, setupErr = os.ReadFile(filepath.Join(repo, "dist", "checksums.txt"))
}

// oneTarget writes .goreleaser.yaml narrowed to linux/amd64 (without the Scoop manifest,
// which needs the Windows archive) into a temporary file.
func oneTarget() (string, error) {
	b, err := os.ReadFile(filepath.Join(repo, ".goreleaser.yaml"))
	if err != nil {
		return "", err
	}
	s := string(b)
	for old, repl := range map[string]string{"goos: [linux, darwin, windows]": "goos: [linux]", "goarch: [amd64, arm64]": "goarch: [amd64]"} {
		if !strings.Contains(s, old) {
			return "", fmt.Errorf(".goreleaser.yaml has no %q to narrow", old)
		}
		s = strings.ReplaceAll(s, old, repl) // every build's
	}
	// No Windows archive, so no Scoop manifest.
	if i, j := strings.Index(s, "\nscoops:"), strings.Index(s, "\nbrews:"); i >= 0 && j > i {
		s = s[:i] + s[j:]
	}
	f, err := os.CreateTemp("", "ralph-loop-goreleaser-*.yaml")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(s)
	return f.Name(), err
}

func need(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_E2E") != "1" {
		t.Skip("end-to-end test of the release (make dist, npm, the real Claude Code): run with RALPH_E2E=1 (make release-test)")
	}
	if skipWhy != "" {
		t.Skip("SKIPPED: " + skipWhy)
	}
	if setupErr != nil {
		t.Fatal(setupErr)
	}
}

// targets are the archives make dist writes: all six, or linux/amd64 alone.
func targets() []string {
	if !full {
		return []string{"linux_amd64"}
	}
	return []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"}
}

// make dist: an archive per target with the binary, LICENSE, the README written for the
// archive and the docs it links to (every link in them resolves inside the archive), and a
// .deb (in section utils) and an .rpm for linux, each in checksums.txt with the right
// checksum; a Homebrew formula (and with the Windows archives a Scoop manifest) whose URLs
// name the release of this version (not v0.0.0 at a commit without a tag); the linux amd64
// binary is static, stripped and prints the version.
func TestDist(t *testing.T) {
	need(t)
	dist := filepath.Join(repo, "dist")
	sums := map[string]string{}
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt: bad line %q", sc.Text())
		}
		sums[name] = sum
	}
	for _, tg := range targets() {
		ext := ".tar.gz"
		if strings.HasPrefix(tg, "windows") {
			ext = ".zip"
		}
		if strings.HasPrefix(tg, "linux") {
			for _, pkg := range []string{".deb", ".rpm"} {
				data := checkSum(t, dist, "ralph-loop_"+version+"_"+tg+pkg, sums)
				if pkg == ".deb" && data != nil {
					checkDebControl(t, data)
				}
			}
		}
		name := "ralph-loop_" + version + "_" + tg + ext
		data := checkSum(t, dist, name, sums)
		if data == nil || ext == ".zip" {
			continue
		}
		files := untar(t, data)
		for _, want := range []string{"ralph-loop", "ralph-loop-watch", "LICENSE", "README.md", "docs/usage.md", "docs/install.md"} {
			if _, ok := files[want]; !ok {
				t.Errorf("%s lacks %s (has %v)", name, want, keys(files))
			}
		}
		if readme, err := os.ReadFile(filepath.Join(repo, "cmd", "internal", "dist", "archive-readme.md")); err != nil || !bytes.Equal(files["README.md"], readme) {
			t.Errorf("%s: README.md is not the archive's README (cmd/internal/dist/archive-readme.md): %v", name, err)
		}
		checkLinks(t, name, files)
		if tg == "linux_amd64" && runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			checkBinary(t, files["ralph-loop"])
		}
	}
	if len(sums) != 0 {
		t.Errorf("checksums.txt lists files make dist did not make: %v", sums)
	}
	manifests := []string{"homebrew/ralph-loop.rb"}
	if full {
		manifests = append(manifests, "scoop/ralph-loop.json")
	}
	url := "https://github.com/ralph-loop/ralph-loop/releases/download/v" + version + "/ralph-loop_" + version + "_"
	for _, m := range manifests {
		b, err := os.ReadFile(filepath.Join(dist, m))
		if err != nil || !strings.Contains(string(b), url) {
			t.Errorf("%s: %v (or it does not point at the release of version %s: %s…)", m, err, version, url)
		}
		if strings.Contains(string(b), "/download/v0.0.0/") && version != "0.0.0" {
			t.Errorf("%s points at v0.0.0 for version %s", m, version)
		}
	}
}

// checkSum reads a file of dist/ and checks it against checksums.txt, taking it off sums.
func checkSum(t *testing.T, dist, name string, sums map[string]string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, name))
	if err != nil {
		t.Errorf("make dist: %v", err)
		return nil
	}
	got := sha256.Sum256(data)
	if sums[name] != hex.EncodeToString(got[:]) {
		t.Errorf("%s: checksum %s, checksums.txt says %q", name, hex.EncodeToString(got[:]), sums[name])
	}
	delete(sums, name)
	return data
}

// make dist again, with no network at all (a network namespace of its own, when this machine
// lets the test make one): it runs, and writes the same bytes (checksums.txt is the same).
func TestDistOfflineReproducible(t *testing.T) {
	need(t)
	if exec.Command("unshare", "-n", "true").Run() != nil {
		t.Skip("cannot make a network namespace here (unshare -n, as root)")
	}
	cmd := exec.Command("unshare", append([]string{"-n", "make"}, distArgs...)...)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist without a network: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(repo, "dist", "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sums, distSums) {
		t.Errorf("make dist is not reproducible: checksums.txt was\n%s\nand is now\n%s", distSums, sums)
	}
}

// checkBinary: static (no interpreter, no dynamic section), stripped (no symbol table), and
// it runs and says the version.
func checkBinary(t *testing.T, bin []byte) {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the linux amd64 binary is not static (it has %v)", p.Type)
		}
	}
	if ef.Section(".symtab") != nil {
		t.Error("the linux amd64 binary is not stripped (it has .symtab)")
	}
	path := filepath.Join(t.TempDir(), "ralph-loop")
	if err := e2e.WriteProgram(path, bin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "ralph-loop "+version+"\ncommit ") || !strings.Contains(string(out), "\nbuilt ") {
		t.Errorf("ralph-loop version printed:\n%s", out)
	}
}

// linkRE finds a Markdown link's target.
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkLinks: every relative link of the archive's Markdown files names a file the archive
// holds (the archive has no repository around it).
func checkLinks(t *testing.T, archive string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := path.Clean(path.Join(path.Dir(name), target))
			if _, ok := files[p]; !ok {
				t.Errorf("%s: %s links to %s, which the archive does not hold", archive, name, m[1])
			}
		}
	}
}

// checkDebControl: the .deb's control file names its section (dpkg and apt show an empty
// "Section:" otherwise).
func checkDebControl(t *testing.T, deb []byte) {
	t.Helper()
	control, err := debControl(deb)
	if err != nil {
		t.Errorf("the .deb: %v", err)
		return
	}
	if !regexp.MustCompile(`(?m)^Section: utils$`).MatchString(control) || !regexp.MustCompile(`(?m)^Priority: optional$`).MatchString(control) {
		t.Errorf("the .deb's control file has no section utils and priority optional:\n%s", control)
	}
}

// debControl reads the control file of a .deb: an ar archive whose control.tar.gz holds it.
func debControl(deb []byte) (string, error) {
	const magic = "!<arch>\n"
	if !bytes.HasPrefix(deb, []byte(magic)) {
		return "", fmt.Errorf("not an ar archive")
	}
	for b := deb[len(magic):]; len(b) >= 60; {
		name := strings.TrimRight(strings.TrimSpace(string(b[:16])), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(b[48:58])))
		if err != nil || 60+size > len(b) {
			return "", fmt.Errorf("a bad ar member header")
		}
		body := b[60 : 60+size]
		if name == "control.tar.gz" {
			for member, data := range untarBytes(body) {
				if path.Base(member) == "control" {
					return string(data), nil
				}
			}
			return "", fmt.Errorf("control.tar.gz has no control file")
		}
		b = b[60+size+size%2:]
	}
	return "", fmt.Errorf("no control.tar.gz")
}

// untarBytes reads a .tar.gz, nil if it cannot.
func untarBytes(tgz []byte) map[string][]byte {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil
	}
	tr := tar.NewReader(gz)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err != nil {
			return out
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = b
	}
}

func untar(t *testing.T, tgz []byte) map[string][]byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = b
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
