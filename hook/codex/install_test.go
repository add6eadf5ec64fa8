package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
)

// TestInstallTrustSymlink: Codex resolves a $CODEX_HOME that goes through a symbolic link
// and keys trust by the resolved path (seen on 0.169.0), so install trusts the hooks under
// both names.
func TestInstallTrustSymlink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "home")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	env := map[string]string{"HOME": link, "CODEX_HOME": filepath.Join(link, ".codex")}
	p, err := Installer.Install(install.Options{Scope: install.ScopeUser, Getenv: func(k string) string { return env[k] },
		Binary: "/opt/bin/ralph-loop", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var config string
	for _, c := range p.Changes {
		if filepath.Base(c.Path) == "config.toml" {
			config = string(c.Content)
		}
	}
	h := TrustedHashes(config)
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(link, ".codex"), filepath.Join(resolved, ".codex")} {
		key := TrustKey(filepath.Join(dir, "hooks.json"), "Stop", 0, 0)
		want := TrustHash(Handler{Event: "Stop", Command: install.BinaryCommand(Installer, Installer.Events[4], "/opt/bin/ralph-loop", ""), Timeout: StopTimeoutSeconds})
		if h[key] != want {
			t.Errorf("%s: trusted %q, want %q\n%s", key, h[key], want, config)
		}
	}
	if n := strings.Count(config, "trusted_hash"); n != 14 {
		t.Errorf("%d trust entries, want 7 hooks under 2 names", n)
	}
}
