package guard

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHomeOf(t *testing.T) {
	passwd := filepath.Join(t.TempDir(), "passwd")
	data := "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/zsh\nbad line\n"
	if err := os.WriteFile(passwd, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"root": "/root", "alice": "/home/alice", "bob": "", "bad line": "", "": ""} {
		if got := homeOf(name, passwd); got != want {
			t.Errorf("homeOf(%q) = %q, want %q", name, got, want)
		}
	}
	if got := homeOf("root", filepath.Join(t.TempDir(), "none")); got != "" {
		t.Errorf("no passwd file: %q", got)
	}
}
