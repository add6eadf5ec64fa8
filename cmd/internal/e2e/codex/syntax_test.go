package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// hooks.json, with ralph-loop's hooks installed and trusted, written with a byte order
// mark, a comment or a trailing comma: Codex runs the hooks or not, and install takes such
// a file exactly when Codex reads it. Codex's skills are invoked with "$".
func TestSettingsSyntax(t *testing.T) {
	e2e.SyntaxBySession(t, "Codex", "codex", func(t *testing.T, s e2e.Syntax, prompt string) (e2e.Logged, string, []string) {
		env := newEnv(t, Script{WhenDone: Text("Still thinking, not done.")})
		e2e.ApplySyntax(t, filepath.Join(env.CodexHome, "hooks.json"), s)
		return env, run(t, env, "", "$"+strings.TrimPrefix(prompt, "/")).SessionID, []string{"install", "--host", "codex", "--scope", "user"}
	})
}
