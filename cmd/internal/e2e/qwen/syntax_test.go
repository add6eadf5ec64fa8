package qwen

import "testing"

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma (the suite's settings have the first two already): Qwen Code
// runs the hooks or not, and install takes such a file exactly when Qwen Code reads it.
func TestSettingsSyntax(t *testing.T) { headless.SettingsSyntax(t, (*Env).UserSettings) }
