package droid

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// hooks.json, with ralph-loop's hooks installed, written with a byte order mark, a comment
// or a trailing comma: Factory Droid runs the hooks or not, and install takes such a file
// exactly when Factory Droid reads it.
func TestSettingsSyntax(t *testing.T) {
	for _, s := range e2e.Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			e := newEnv(t, "user")
			e2e.ApplySyntax(t, filepath.Join(e.Home, ".factory", "hooks.json"), s)
			run(t, e, Run{RPC: true,
				Script:  Script{WhenDone: Text("Thinking, turn {n}.")},
				Prompts: []string{`/ralph-loop "Think it through" --max-iterations 2 --min-tool-calls 0`},
			})
			loops, err := e.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			read := len(loops) > 0
			if read {
				expectLoop(t, loops[0], "MAX_ITERATIONS_REACHED", 2, 0)
			}
			_, err = e.Install(context.Background(), "user")
			e2e.CheckSyntaxClaim(t, "Factory Droid", s, read, err)
		})
	}
}
