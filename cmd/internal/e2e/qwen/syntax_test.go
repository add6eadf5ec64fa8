package qwen

import (
	"context"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The user settings, with ralph-loop's hooks installed, written with a byte order mark, a
// comment or a trailing comma (the suite's settings have the first two already): Qwen Code
// runs the hooks or not, and install takes such a file exactly when Qwen Code reads it.
func TestSettingsSyntax(t *testing.T) {
	for _, s := range e2e.Syntaxes {
		t.Run(s.Name, func(t *testing.T) {
			e := newEnv(t, "user")
			e2e.ApplySyntax(t, e.UserSettings(), s)
			run(t, e, Run{
				Script: Script{WhenDone: Text("Still thinking, not done.")},
				Prompt: `/ralph-loop "Think it through" --max-iterations 2 --min-tool-calls 0`,
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
			e2e.CheckSyntaxClaim(t, "Qwen Code", s, read, err)
		})
	}
}
