package droid

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// hooks.json, with ralph-loop's hooks installed, written with a byte order mark, a comment
// or a trailing comma: Factory Droid runs the hooks or not, and install takes such a file
// exactly when Factory Droid reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SettingsSyntax(t, "Factory Droid", "droid", func(t *testing.T, s e2e.Syntax, prompt string) e2e.Installer {
		e := newEnv(t, "user")
		e2e.ApplySyntax(t, filepath.Join(e.Home, ".factory", "hooks.json"), s)
		run(t, e, Run{RPC: true,
			Script:  Script{WhenDone: Text("Thinking, turn {n}.")},
			Prompts: []string{prompt},
		})
		return e
	})
}
