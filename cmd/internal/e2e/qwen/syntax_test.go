package qwen

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma (the suite's settings have the first two already): Qwen Code
// runs the hooks or not, and install takes such a file exactly when Qwen Code reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SettingsSyntax(t, "Qwen Code", "qwen", func(t *testing.T, s e2e.Syntax, prompt string) e2e.Installer {
		e := newEnv(t, "user")
		e2e.ApplySyntax(t, e.UserSettings(), s)
		run(t, e, Run{
			Script: Script{WhenDone: Text("Still thinking, not done.")},
			Prompt: prompt,
		})
		return e
	})
}
