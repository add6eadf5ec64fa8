package droid

import (
	"path/filepath"
	"testing"
)

// hooks.json, with ralph-loop's hooks installed, written with a byte order mark, a comment
// or a trailing comma: Factory Droid runs the hooks or not, and install takes such a file
// exactly when Factory Droid reads it.
func TestSettingsSyntax(t *testing.T) {
	headless.SettingsSyntax(t, func(e *Env) string { return filepath.Join(e.Home, ".factory", "hooks.json") })
}
