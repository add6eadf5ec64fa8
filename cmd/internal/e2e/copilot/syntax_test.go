package copilot

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma: Copilot CLI runs the hooks or not, and install takes such a
// file exactly when Copilot CLI reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SettingsSyntax(t, "GitHub Copilot CLI", "copilot", func(t *testing.T, s e2e.Syntax, prompt string) e2e.Installer {
		e := newEnv(t, "user")
		e2e.ApplySyntax(t, filepath.Join(e.UserDir(), "settings.json"), s)
		run(t, e, Run{
			Script: Script{WhenDone: Text("Still thinking, not done.")},
			Prompt: prompt,
		})
		return e
	})
}
