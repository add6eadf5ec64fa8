package claude

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
)

// The Stop hook's timeout that install writes is the one the hook reads back, at every
// scope, and Claude Code's default without an install.
func TestStopTimeoutReadBack(t *testing.T) {
	for _, scope := range []string{install.ScopeUser, install.ScopeProject, install.ScopeLocal} {
		home, project := t.TempDir(), t.TempDir()
		getenv := homeOnly(home)
		if d := stopTimeout(getenv, project); d != 600*time.Second {
			t.Errorf("%s: no install: %v, want 600s", scope, d)
		}
		o := install.Options{Scope: scope, Dir: project, Getenv: getenv, Binary: "/opt/ralph-loop", StateDir: filepath.Join(home, "state")}
		if _, err := Installer.Do(t.Context(), o, true, false); err != nil {
			t.Fatal(err)
		}
		if d := stopTimeout(getenv, project); d != StopTimeoutSeconds*time.Second {
			t.Errorf("%s: %v, want %ds", scope, d, StopTimeoutSeconds)
		}
	}
}
