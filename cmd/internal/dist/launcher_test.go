package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
)

// launcherWorld is what npm install -g leaves of the packages under a prefix: the main
// package with the launcher, lib.js and package.json, this platform's package with the
// native binary (a ralph-loop built at version), and the link on PATH.
type launcherWorld struct {
	prefix, pkg, onPath, native string
}

// buildRalphLoop builds the ralph-loop command at version into dir.
func buildRalphLoop(t *testing.T, dir, version string) string {
	t.Helper()
	bin := filepath.Join(dir, "ralph-loop")
	cmd := exec.Command("go", "build", "-o", bin, "-ldflags", "-X main.version="+version, "github.com/ralph-loop/ralph-loop/cmd/ralph-loop")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func newLauncherWorld(t *testing.T, native []byte, version string) *launcherWorld {
	t.Helper()
	var plat *Platform
	for i, p := range Platforms {
		if p.GOOS == runtime.GOOS && p.GOARC == runtime.GOARCH {
			plat = &Platforms[i]
		}
	}
	if plat == nil {
		t.Skipf("SKIPPED: no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	root := t.TempDir()
	w := &launcherWorld{prefix: root}
	w.pkg = filepath.Join(root, "lib", "node_modules", inject.NPMPackage)
	w.native = filepath.Join(w.pkg, "node_modules", plat.Name(), "bin", plat.Exe("ralph-loop"))
	w.onPath = filepath.Join(root, "bin", "ralph-loop")
	for path, f := range map[string]struct {
		data []byte
		mode os.FileMode
	}{
		filepath.Join(w.pkg, "package.json"):      {[]byte(`{"name":"` + inject.NPMPackage + `","version":"` + version + `"}`), 0o644},
		filepath.Join(w.pkg, "lib.js"):            {[]byte(libJS()), 0o644},
		filepath.Join(w.pkg, "bin", "ralph-loop"): {[]byte(launcherJS), 0o755},
		w.native: {native, 0o755},
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Dir(w.onPath), 0o755)
	if err := os.Symlink(filepath.Join("..", "lib", "node_modules", inject.NPMPackage, "bin", "ralph-loop"), w.onPath); err != nil {
		t.Fatal(err)
	}
	return w
}

// upgrade puts the launcher back, as npm install -g of a new release does: a new file at
// the package's bin path.
func (w *launcherWorld) upgrade(t *testing.T) {
	t.Helper()
	tmp := filepath.Join(w.pkg, "bin", ".ralph-loop.new")
	if err := os.WriteFile(tmp, []byte(launcherJS), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(w.pkg, "bin", "ralph-loop")); err != nil {
		t.Fatal(err)
	}
}

// together starts n processes of the command on PATH at once and returns what each
// printed, with its error.
func (w *launcherWorld) together(n int, args ...string) []string {
	var wg sync.WaitGroup
	start := make(chan struct{})
	out := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(w.onPath, args...)
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(w.onPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			<-start
			err := cmd.Run()
			out[i] = strings.TrimSpace(b.String())
			if err != nil {
				out[i] += fmt.Sprintf(" (%v)", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// Twenty ralph-loops started together right after npm install -g, and again right after an
// upgrade (the launcher back in the package), all answer as the native binary does: none
// is read by node after the launcher put something else in its place (issue 36: a node
// SyntaxError, 5 of 5 at a 20 ms gap, a Stop hook of an active loop among them). The
// command on PATH then runs the native binary without node.
func TestLauncherRace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIPPED: on Windows the launcher stays (npm's shims run node on it)")
	}
	if os.Getenv("RALPH_JS") != "1" {
		t.Skip("the JavaScript tests run with RALPH_JS=1 (make e2e): make test starts no node")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIPPED: node is not installed")
	}
	const version = "1.2.3"
	native, err := os.ReadFile(buildRalphLoop(t, t.TempDir(), version))
	if err != nil {
		t.Fatal(err)
	}
	w := newLauncherWorld(t, native, version)
	for round, name := range []string{"after npm install -g", "after an upgrade"} {
		if round == 1 {
			w.upgrade(t)
		}
		failed := 0
		for i, got := range w.together(20, "version", "--short") {
			if got != version {
				if failed++; failed <= 3 {
					t.Errorf("%s: process %d of 20 printed %q, want %q", name, i, got[:min(len(got), 300)], version)
				}
			}
		}
		if failed > 0 {
			t.Errorf("%s: %d of 20 processes did not answer as the native binary", name, failed)
		}
		// The command on PATH is now run by the system with the native binary, and each run
		// is the binary's, its output and exit code passed on.
		real, _ := filepath.EvalSymlinks(w.native)
		if b, _ := os.ReadFile(w.onPath); !strings.HasPrefix(string(b), "#!"+real+" "+inject.NPMShebang+"\n") {
			t.Errorf("%s: the command on PATH starts %q", name, b[:min(len(b), 200)])
		}
		out, err := exec.Command(w.onPath, "nosuchcommand").CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), `unknown command "nosuchcommand"`) {
			t.Errorf("%s: the exit code and output are not the binary's: %v\n%s", name, err, out)
		}
	}
}
