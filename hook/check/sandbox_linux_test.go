package check

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testSandbox is a sandbox whose writable root is the check's directory, with a read-only
// directory inside it, or the test skips (saying why) where bubblewrap cannot run.
func testSandbox(t *testing.T, o Options) *Sandbox {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("SKIPPED: bubblewrap is not installed (the e2e suites install it: apt-get install bubblewrap)")
	}
	w := &Sandbox{Writable: []string{o.Dir}, ReadOnly: []string{filepath.Join(o.Dir, "kept")}, Runner: bwrap}
	os.MkdirAll(filepath.Join(o.Dir, "kept"), 0o755)
	if why := w.Unavailable(context.Background()); why != "" {
		t.Skip("SKIPPED: " + why)
	}
	return w
}

// A check in the sandbox writes its directory and its own temporary directory, and nothing
// else: not a read-only path inside its directory, not a file beside it (ralph-loop's
// state), not /tmp; it reaches no server on this machine, over TCP or a Unix socket; a
// check that passes passes.
func TestSandbox(t *testing.T) {
	o := opts(t)
	o.Sandbox = testSandbox(t, o)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "state"), []byte("kept\n"), 0o600)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	sock := filepath.Join(outside, "bus")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	script := strings.Join([]string{
		`try() { if sh -c "$1" 2>>errors.txt; then echo "DID: $1"; else echo "refused: $1"; fi; }`,
		`echo ok > in-dir.txt || exit 10`,
		`echo ok > "$TMPDIR/t" || exit 11`,
		`try 'echo x > kept/x'`,
		`try 'echo x > ` + filepath.Join(outside, "state") + `'`,
		`try 'echo x > /tmp/check-sandbox-test-$$'`,
		`try 'python3 -c "import socket; socket.create_connection((\"127.0.0.1\", ` + tcp.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):] + `), 2)"'`,
		`try 'python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"` + sock + `\")"'`,
		`try 'exec 3<>` + sock + `'`,
	}, "\n")
	os.WriteFile(filepath.Join(o.Dir, "attack.sh"), []byte(script), 0o644)
	rs := Run(context.Background(), []string{"sh attack.sh > attack.log"}, o)
	if !rs[0].Passed() {
		log, _ := os.ReadFile(rs[0].LogPath)
		t.Fatalf("the check failed: %s\n%s", rs[0].Describe(), log)
	}
	out, _ := os.ReadFile(filepath.Join(o.Dir, "attack.log"))
	errs, _ := os.ReadFile(filepath.Join(o.Dir, "errors.txt"))
	if strings.Contains(string(out), "DID") || strings.Count(string(out), "refused") != 6 {
		t.Errorf("the check did what its sandbox must refuse:\n%s\nerrors:\n%s", out, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "state")); string(data) != "kept\n" {
		t.Errorf("the state beside the check: %q", data)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "in-dir.txt")); err != nil {
		t.Errorf("the check's own write: %v", err)
	}
}

// The seccomp filter is what bubblewrap reads: whole sock_filter records.
func TestUnixSocketFilter(t *testing.T) {
	f, err := unixSocketFilter()
	if err != nil {
		t.Skip("SKIPPED: " + err.Error())
	}
	if len(f) == 0 || len(f)%8 != 0 {
		t.Errorf("filter of %d bytes", len(f))
	}
}
