package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attack is the shell script of the sandbox tests' agent: after its first lines (head:
// variables naming the files to reach), it tries each write of tries (a command line each,
// quoted for the shell as one word) in turn and says, one line each in its output (the
// tests send it to attack.log), whether it went through; the errors go to errors.txt.
func Attack(head string, tries ...string) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(`try() { if sh -c "$1" 2>>errors.txt; then echo "WROTE: $1"; else echo "refused: $1"; fi; }` + "\n")
	for _, w := range tries {
		b.WriteString("try " + w + "\n")
	}
	return b.String()
}

// Refused checks that the Attack run in project was refused each of its n writes by the
// operating system (a read-only file system).
func Refused(t testing.TB, project string, n int) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(project, "attack.log"))
	if err != nil {
		t.Fatalf("the agent's script did not run: %v", err)
	}
	errs, _ := os.ReadFile(filepath.Join(project, "errors.txt"))
	if got := strings.Count(string(log), "refused: "); got != n || strings.Contains(string(log), "WROTE") {
		t.Errorf("%d of %d writes refused:\n%s\nerrors:\n%s", got, n, log, errs)
	}
	if !strings.Contains(string(errs), "Read-only file system") {
		t.Errorf("the writes did not fail at the OS level:\n%s", errs)
	}
}

// NeedSandbox skips t unless the suite s can run and this machine can run a host's sandbox
// (see Sandbox); t fails if the sandbox's packages are missing and cannot be installed
// as root (not root, it skips saying how to install them).
func NeedSandbox(t *testing.T, s *Suite) {
	t.Helper()
	s.Need(t)
	skip, err := Sandbox(context.Background(), os.Stderr)
	if nr := (errNotRoot{}); errors.As(err, &nr) {
		t.Skip("SKIPPED: " + nr.how)
	}
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip("SKIPPED: " + skip)
	}
}
