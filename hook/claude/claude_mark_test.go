package claude

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
)

// TestHookMarkIsInstalls: the transcript scanner knows ralph-loop's stop hooks, in what
// Claude Code records of a stop's hooks, by the mark install writes.
func TestHookMarkIsInstalls(t *testing.T) {
	if claudeshape.HookMark != install.Mark {
		t.Fatalf("claudeshape.HookMark %q, install.Mark %q", claudeshape.HookMark, install.Mark)
	}
}
