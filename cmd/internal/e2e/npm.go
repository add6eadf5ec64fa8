package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// CacheDir is where the host CLIs are installed once: $RALPH_LOOP_E2E_CACHE, or
// ralph-loop-e2e under the user's cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("RALPH_LOOP_E2E_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ralph-loop-e2e"), nil
}

// Package is a host CLI published on the npm registry, pinned to one version.
type Package struct {
	Name    string // e.g. "@openai/codex"
	Version string // exact, e.g. "0.169.0"
	// Bins are candidate paths of the executable inside the npm prefix, tried in order.
	Bins []string
	// VersionArgs run the executable to check it (default "--version"); its output must
	// contain Version.
	VersionArgs []string
	// Env is extra environment for the version check (some CLIs unpack themselves on
	// first run).
	Env []string
}

// Spec is the package@version npm installs.
func (p Package) Spec() string { return p.Name + "@" + p.Version }

// dirName is the cache directory of the package: its name without scope, and the version.
// A CLI's platform package (@kilocode/cli-linux-x64, @factory/cli-linux-x64), whose name
// alone says no CLI, keeps its scope: kilocode-cli-linux-x64-7.7.9.
func (p Package) dirName() string {
	n := p.Name
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
		if strings.HasPrefix(n, "cli-") {
			n = strings.TrimPrefix(p.Name[:i], "@") + "-" + n
		}
	}
	return n + "-" + p.Version
}

func (p Package) find(prefix string) (string, bool) {
	args := p.VersionArgs
	if len(args) == 0 {
		args = []string{"--version"}
	}
	for _, c := range p.Bins {
		path := filepath.Join(prefix, c)
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			continue
		}
		out, err := p.version(path, args)
		if err == nil && strings.Contains(string(out), p.Version) {
			return path, true
		}
	}
	return "", false
}

// version runs the CLI to print its version, with a home and a temporary directory of its
// own (removed after): a CLI that writes files as it starts (opencode makes $TMPDIR/opencode)
// leaves nothing in the user's home or the tests' temporary directory.
func (p Package) version(path string, args []string) ([]byte, error) {
	scratch, err := os.MkdirTemp("", "version-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "HOME="+scratch, "TMPDIR="+scratch,
		"XDG_CONFIG_HOME="+filepath.Join(scratch, "config"), "XDG_DATA_HOME="+filepath.Join(scratch, "data"),
		"XDG_STATE_HOME="+filepath.Join(scratch, "state"))
	// A CLI that unpacks itself into its cache (Copilot CLI, 235 MB) does it once, into the
	// directory its tests share, when that exists.
	if cache, err := CacheDir(); err == nil {
		short := p.Name[strings.LastIndexByte(p.Name, '/')+1:]
		if d := filepath.Join(cache, short+"-xdg-cache"); isDir(d) {
			cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+d)
		}
	}
	cmd.Env = append(cmd.Env, p.Env...) // the package's own settings win
	return cmd.CombinedOutput()
}

// InstallNPM returns the path of the package's executable, installing the pinned version
// from the npm registry into the cache the first time. One installer runs at a time; the
// others wait and then find it installed. npm's output goes to log.
func InstallNPM(ctx context.Context, p Package, log io.Writer) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	prefix := filepath.Join(cache, p.dirName())
	if bin, ok := p.find(prefix); ok {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	lock := flock.New(filepath.Join(cache, ".install.lock"))
	lctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	if _, err := lock.TryLockContext(lctx, 100*time.Millisecond); err != nil {
		return "", fmt.Errorf("lock %s: %w", cache, err)
	}
	defer lock.Unlock()
	if bin, ok := p.find(prefix); ok {
		return bin, nil
	}
	tmp, err := os.MkdirTemp(cache, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"ralph-loop-e2e","private":true}`+"\n"), 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "installing %s into %s (npm registry, once)\n", p.Spec(), prefix)
	// Install scripts may run the CLI, which can write into $TMPDIR (opencode's and Kilo
	// Code's make $TMPDIR/opencode, $TMPDIR/kilo): they get a temporary directory of their
	// own, removed after, so that nothing is left in the tests'.
	scratch, err := os.MkdirTemp(cache, ".install-tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", p.Spec())
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+scratch)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s: %w", p.Spec(), err)
	}
	if _, ok := p.find(tmp); !ok {
		return "", fmt.Errorf("npm installed %s but no runnable executable of that version was found in %s", p.Spec(), tmp)
	}
	os.RemoveAll(prefix)
	if err := os.Rename(tmp, prefix); err != nil {
		return "", err
	}
	bin, ok := p.find(prefix)
	if !ok {
		return "", fmt.Errorf("%s not runnable after moving it to %s", p.Spec(), prefix)
	}
	return bin, nil
}

// RegistryReachable reports whether npm can reach the registry for the package: one try,
// no retries, so that an offline machine answers in seconds.
func RegistryReachable(ctx context.Context, p Package) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "npm", "view", p.Spec(), "version", "--fetch-retries=0", "--fetch-timeout=15000").Run() == nil
}

// Installed reports whether the package's executable is in the cache already (so that no
// registry is needed).
func (p Package) Installed() bool {
	cache, err := CacheDir()
	if err != nil {
		return false
	}
	for _, c := range p.Bins {
		if fi, err := os.Stat(filepath.Join(cache, p.dirName(), c)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// Unavailable says why the package's suite cannot run here, or "" when it can: npm is
// missing, or the package is not in the cache and npm cannot reach the registry. The suites
// skip, saying so in one line, rather than fail.
func Unavailable(ctx context.Context, p Package) string {
	switch {
	case p.Installed():
		return ""
	case exec.Command("npm", "--version").Run() != nil:
		return "npm is not installed, so " + p.Spec() + " cannot be installed"
	case !RegistryReachable(ctx, p):
		return p.Spec() + " is not in the cache and npm cannot reach the registry to install it"
	}
	return ""
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
