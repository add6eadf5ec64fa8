package copilot

import (
	"path/filepath"
	"testing"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma: Copilot CLI runs the hooks or not, and install takes such a
// file exactly when Copilot CLI reads it.
func TestSettingsSyntax(t *testing.T) {
	headless.SettingsSyntax(t, func(e *Env) string { return filepath.Join(e.UserDir(), "settings.json") })
}
