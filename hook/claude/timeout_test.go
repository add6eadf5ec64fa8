package claude

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// The Stop hook's timeout is read back from the settings ralph-loop's install wrote (the
// longest over every scope), and is Claude Code's default of 600 s when none sets one.
func TestStopTimeout(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	getenv := homeOnly(home)
	if d := stopTimeout(getenv, project); d != 600*time.Second {
		t.Errorf("no settings: %s, want 600s", d)
	}
	hosttest.WriteFile(t, filepath.Join(home, ".claude", "settings.json"),
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/ralph-loop hook --host claude","timeout":120}]}]}}`)
	if d := stopTimeout(getenv, project); d != 120*time.Second {
		t.Errorf("user settings with 120: %s", d)
	}
	hosttest.WriteFile(t, filepath.Join(project, ".claude", "settings.local.json"),
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"other-hook","timeout":5000},{"type":"command","command":"ralph-loop hook --host claude","timeout":1500}]}]}}`)
	if d := stopTimeout(getenv, project); d != 1500*time.Second {
		t.Errorf("local settings with 1500 (and another hook's 5000): %s", d)
	}
}
