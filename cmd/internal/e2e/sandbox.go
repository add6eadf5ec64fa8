package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// SandboxPackages are the distribution's packages a host's sandbox needs on Linux: Claude
// Code runs the agent's shell under bubblewrap, with socat for its network proxy.
var SandboxPackages = []string{"bubblewrap", "socat"}

var sandboxOnce struct {
	sync.Once
	skip string
	err  error
}

// Sandbox makes this machine able to run a host's sandbox for the tests that need it:
// on Linux, bubblewrap and socat, installed with apt-get when missing (as root; otherwise the
// error says how, errNotRoot); then it checks that the kernel lets bubblewrap make its
// namespaces. skip says why the sandbox cannot run here (another system, a kernel that
// refuses it); err, that the packages are missing and could not be installed. Once per
// process; log gets apt-get's output.
func Sandbox(ctx context.Context, log io.Writer) (skip string, err error) {
	sandboxOnce.Do(func() { sandboxOnce.skip, sandboxOnce.err = sandbox(ctx, log) })
	return sandboxOnce.skip, sandboxOnce.err
}

func sandbox(ctx context.Context, log io.Writer) (string, error) {
	if runtime.GOOS != "linux" {
		return "the sandbox tests run on Linux (bubblewrap); this is " + runtime.GOOS, nil
	}
	if missing := missingPackages(); len(missing) > 0 {
		if err := aptInstall(ctx, log, missing); err != nil {
			return "", err
		}
	}
	// What Claude Code's sandbox asks of the kernel: new user, mount, pid and network
	// namespaces, with the root bound read-only.
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "--die-with-parent", "true")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("the kernel does not let bubblewrap run here (%v: %s)", err, strings.TrimSpace(stderr.String())), nil
	}
	return "", nil
}

// errNotRoot: the sandbox's packages are missing, and the tests do not run as root to
// install them; how says what the user runs.
type errNotRoot struct{ how string }

func (e errNotRoot) Error() string { return e.how }

// missingPackages are the sandbox's packages whose programs are not on PATH.
func missingPackages() []string {
	var missing []string
	for pkg, prog := range map[string]string{"bubblewrap": "bwrap", "socat": "socat"} {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, pkg)
		}
	}
	return missing
}

// aptInstall installs the distribution's packages, one installer at a time across test
// processes (the hosts' suites run in parallel).
func aptInstall(ctx context.Context, log io.Writer, pkgs []string) error {
	how := "apt-get install " + strings.Join(pkgs, " ")
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("the sandbox tests need %s, which are not installed, and there is no apt-get here: install them with the system's package manager", strings.Join(pkgs, " and "))
	}
	var prefix []string
	if os.Geteuid() != 0 {
		// Never sudo behind the user's back: as root (CI, a container) the packages are
		// installed; otherwise the tests that need them say how, and skip.
		return errNotRoot{fmt.Sprintf("the sandbox tests need %s, which are not installed: run sudo %s, then the tests again", strings.Join(pkgs, " and "), how)}
	}
	cache, err := CacheDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	lock := flock.New(filepath.Join(cache, ".apt.lock"))
	lctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	if _, err := lock.TryLockContext(lctx, 100*time.Millisecond); err != nil {
		return fmt.Errorf("lock %s: %w", cache, err)
	}
	defer lock.Unlock()
	if len(missingPackages()) == 0 {
		return nil
	}
	fmt.Fprintf(log, "installing %s for the sandbox tests (%s)\n", strings.Join(pkgs, " and "), how)
	apt := func(args ...string) error {
		argv := append(append(append([]string{}, prefix...), "apt-get"), args...)
		c := exec.CommandContext(ctx, argv[0], argv[1:]...)
		c.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		c.Stdout, c.Stderr = log, log
		return c.Run()
	}
	install := append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)
	if err := apt(install...); err != nil {
		// The package lists may be missing or stale on a fresh machine.
		if err := apt("update"); err != nil {
			return fmt.Errorf("apt-get update: %w", err)
		}
		if err := apt(install...); err != nil {
			return fmt.Errorf("%s: %w", how, err)
		}
	}
	if missing := missingPackages(); len(missing) > 0 {
		return fmt.Errorf("%s ran, but %s still missing", how, strings.Join(missing, " and "))
	}
	return nil
}
