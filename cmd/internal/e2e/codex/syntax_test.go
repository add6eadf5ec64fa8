package codex

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// hooks.json, with ralph-loop's hooks installed and trusted, written with a byte order
// mark, a comment or a trailing comma: Codex runs the hooks or not, and install takes such
// a file exactly when Codex reads it.
func TestSettingsSyntax(t *testing.T) {
	for _, s := range e2e.Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			env := newEnv(t, Script{WhenDone: Text("Still thinking, not done.")})
			e2e.ApplySyntax(t, filepath.Join(env.CodexHome, "hooks.json"), s)
			r := run(t, env, "", `$ralph-loop "Think it through" --max-iterations 2 --min-tool-calls 0`)
			loops, err := env.Status(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			read := false
			for _, l := range loops {
				if l.SessionID == r.SessionID {
					read = true
					expectLoop(t, l, "MAX_ITERATIONS_REACHED", 2, 0)
				}
			}
			_, err = env.InstallHooks(context.Background())
			e2e.CheckSyntaxClaim(t, "Codex", s, read, err)
		})
	}
}
