package codex

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// hooks.json, with ralph-loop's hooks installed and trusted, written with a byte order
// mark, a comment or a trailing comma: Codex runs the hooks or not, and install takes such
// a file exactly when Codex reads it.
func TestSettingsSyntax(t *testing.T) {
	e2e.SyntaxBySession(t, "Codex", "codex", func(t *testing.T, s e2e.Syntax, prompt string) ([]e2e.Loop, error) {
		env := newEnv(t, Script{WhenDone: Text("Still thinking, not done.")})
		e2e.ApplySyntax(t, filepath.Join(env.CodexHome, "hooks.json"), s)
		// Codex's skills are invoked with "$".
		r := run(t, env, "", "$"+strings.TrimPrefix(prompt, "/"))
		out, err := env.RalphLoopCmd(context.Background(), "status", "--json", "--session", r.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		loops, err := e2e.DecodeStatus(out)
		if err != nil {
			t.Fatal(err)
		}
		_, err = env.InstallHooks(context.Background())
		return loops, err
	})
}
