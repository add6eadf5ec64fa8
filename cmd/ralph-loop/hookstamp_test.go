package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The fingerprint of what the hook binaries are read from holds while the settings files
// and $PATH do, and changes with a file replaced (as install writes them), created or
// removed, or $PATH. (A write in place changes the file's times, which a test cannot tell
// apart from the clock's granularity.)
func TestHookStamp(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	project := t.TempDir()
	user := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte(`{"hooks": {}}`), 0o644)
	s := hookStamp("claude", project)
	if s == "" || hookStamp("claude", project) != s {
		t.Fatal("the stamp is empty or changes by itself")
	}
	seen := map[string]string{s: "at first"}
	step := func(what string, f func()) {
		t.Helper()
		f()
		n := hookStamp("claude", project)
		if prev, ok := seen[n]; ok {
			t.Errorf("%s: the stamp is the one %s", what, prev)
		}
		seen[n] = what
	}
	step("replaced by a file of the same size", func() {
		tmp := user + ".tmp"
		os.WriteFile(tmp, []byte(`{"hooks": []}`), 0o644)
		os.Rename(tmp, user)
	})
	local := filepath.Join(project, ".claude", "settings.local.json")
	step("a project file created", func() {
		os.MkdirAll(filepath.Dir(local), 0o755)
		os.WriteFile(local, []byte(`{}`), 0o644)
	})
	step("a file removed", func() { os.Remove(user) })
	step("$PATH changed", func() { t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+home) })
}
