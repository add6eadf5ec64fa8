package claude

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// A settings file written with a byte order mark, a comment or a trailing comma: Claude Code
// runs its hooks or not, and install takes such a file exactly when Claude Code reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SyntaxBySession(t, "Claude Code", "claude", func(t *testing.T, s e2e.Syntax, prompt string) (e2e.Logged, string, []string) {
		env := newEnv(t)
		e2e.ApplySyntax(t, filepath.Join(env.Project, ".claude", "settings.json"), s)
		res := run(t, env, e2e.Session{Script: e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")}, Prompts: []string{prompt}})
		return env, res.SessionID, []string{"install", "--host", "claude", "--scope", "project", "--dir", env.Project}
	})
}
