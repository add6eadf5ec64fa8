package claude

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// A settings file written with a byte order mark, a comment or a trailing comma: Claude Code
// runs its hooks or not, and install takes such a file exactly when Claude Code reads it.
func TestSettingsSyntax(t *testing.T) {
	for _, s := range e2e.Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			env := newEnv(t)
			settings := filepath.Join(env.Project, ".claude", "settings.json")
			e2e.ApplySyntax(t, settings, s)
			res := run(t, env, e2e.Session{
				Script:  e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")},
				Prompts: []string{`/ralph-loop "Think it through" --max-iterations 2 --min-tool-calls 0`},
			})
			loops, err := env.Status(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			read := false
			for _, l := range loops {
				if l.SessionID == res.SessionID {
					read = true
					expectLoop(t, l, "MAX_ITERATIONS_REACHED", 2, 0)
				}
			}
			_, err = env.RalphLoopCmd(context.Background(), "install", "--host", "claude", "--scope", "project", "--dir", env.Project)
			e2e.CheckSyntaxClaim(t, "Claude Code", s, read, err)
		})
	}
}
