package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One version everywhere: in a clean clone, a plain go build, make build, and a build from
// the source archive git archive makes (export-subst fills cmd/ralph-loop/archive.txt) all
// say the same version, the commit and its date; make dist's binary and the npm packages say
// it too (TestDist, TestNPMInstall).
func TestVersionEverywhere(t *testing.T) {
	if os.Getenv("RALPH_E2E") != "1" {
		t.Skip("builds ralph-loop three ways from a clone: run with RALPH_E2E=1 (make release-test)")
	}
	if repo == "" {
		t.Skip("no repository: " + skipWhy)
	}
	root := t.TempDir()
	clone := filepath.Join(root, "clone")
	sh(t, root, "git", "clone", "-q", repo, clone)
	head := strings.TrimSpace(sh(t, clone, "git", "rev-parse", "HEAD"))

	goBuild := sh(t, clone, "sh", "-c", "go build -o "+filepath.Join(root, "a")+" ./cmd/ralph-loop && "+filepath.Join(root, "a")+" version")
	if !strings.Contains(goBuild, "\ncommit "+head+"\nbuilt ") {
		t.Errorf("go build in a clone: ralph-loop version says\n%s\nwant commit %s", goBuild, head)
	}
	makeBuild := sh(t, clone, "sh", "-c", "make -s build >/dev/null && bin/ralph-loop version")
	if makeBuild != goBuild {
		t.Errorf("make build says\n%s\ngo build\n%s", makeBuild, goBuild)
	}

	src := filepath.Join(root, "src")
	os.MkdirAll(src, 0o755)
	sh(t, clone, "sh", "-c", "git archive HEAD | tar -x -C "+src)
	archive := sh(t, src, "sh", "-c", "go build -o "+filepath.Join(root, "b")+" ./cmd/ralph-loop && "+filepath.Join(root, "b")+" version")
	if archive != goBuild {
		t.Errorf("a build from the source archive says\n%s\ngo build in the clone\n%s", archive, goBuild)
	}
}

// sh runs a command in dir with the environment and GOFLAGS=-buildvcs=true (as Go's default
// is, which this machine's go env may turn off).
func sh(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// make dist of a release version the plugin manifests do not carry is refused before
// anything is built: in seconds, not after GoReleaser's minutes (here GoReleaser is a
// program that fails, so a dist that reached it says something else).
func TestDistRefusesVersionFirst(t *testing.T) {
	need(t)
	cmd := exec.Command("make", "dist", "VERSION=99.99.99", "GORELEASER_BIN=/bin/false", "BIN="+filepath.Join(t.TempDir(), "ralph-loop"))
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("make dist VERSION=99.99.99 went through:\n%s", out)
	}
	if !strings.Contains(string(out), `the release is 99.99.99: a release carries the plugin's version`) ||
		!strings.Contains(string(out), "go run ./cmd/internal/generate -plugin-version 99.99.99") {
		t.Errorf("make dist VERSION=99.99.99 did not refuse on the plugin's version first:\n%s", out)
	}
}
