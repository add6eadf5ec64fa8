package check

import (
	"strings"
	"testing"
)

// The Seatbelt profile writes only in the writable roots and the check's temporary
// directory, nothing in the read-only paths, and denies the network. (Its text only: the
// project's tests have not run it on macOS.)
func TestSeatbelt(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	p := seatbelt(Sandbox{Writable: []string{dir}, ReadOnly: []string{dir}}, tmp)
	for _, want := range []string{"(deny network*)", "(deny file-write*)", "(allow file-write*", "(subpath \"" + tmp} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %q:\n%s", want, p)
		}
	}
	if strings.LastIndex(p, "(deny file-write*") < strings.Index(p, "(allow file-write*") {
		t.Errorf("the read-only paths are not denied after the writable roots are allowed:\n%s", p)
	}
}
