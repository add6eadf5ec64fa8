package gemini

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma: Gemini CLI runs the hooks or not, and install takes such a
// file exactly when Gemini CLI reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SyntaxBySession(t, "Gemini CLI", "gemini", func(t *testing.T, s e2e.Syntax, _ string) (e2e.Logged, string, []string) {
		env := newEnv(t)
		e2e.ApplySyntax(t, filepath.Join(env.Home, ".gemini", "settings.json"), s)
		res := run(t, env, Run{
			Prompt: `/ralph-loop "Think it over" --max-iterations 2`,
			Script: Script{After: &Turn{Text: "Pass {n}: I looked at part {n} of the problem."}},
		})
		return env, res.SessionID, []string{"install", "--host", "gemini"}
	})
}
