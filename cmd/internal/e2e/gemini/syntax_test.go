package gemini

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma: Gemini CLI runs the hooks or not, and install takes such a
// file exactly when Gemini CLI reads it.
func TestSettingsSyntax(t *testing.T) {
	for _, s := range e2e.Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			env := newEnv(t)
			e2e.ApplySyntax(t, filepath.Join(env.Home, ".gemini", "settings.json"), s)
			res := run(t, env, Run{
				Prompt: `/ralph-loop "Think it over" --max-iterations 2`,
				Script: Script{After: &Turn{Text: "Pass {n}: I looked at part {n} of the problem."}},
			})
			loops, err := env.Status(context.Background(), res.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			read := len(loops) > 0
			if read {
				expectLoop(t, loops[0], "MAX_ITERATIONS_REACHED", 2, 0)
			}
			_, err = env.RalphLoopCmd(context.Background(), "install", "--host", "gemini")
			e2e.CheckSyntaxClaim(t, "Gemini CLI", s, read, err)
		})
	}
}
