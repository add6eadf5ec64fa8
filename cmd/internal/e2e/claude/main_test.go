package claude

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real Claude Code CLI (see e2e.Suite). It is on when RALPH_E2E=1
// (make e2e); otherwise every test skips and says why. It also skips, saying so in one
// line, when the CLI is not in the cache and npm cannot reach the registry to install it. CLAUDE_BIN may name an installed claude.
var suite = e2e.Suite{Title: "Claude Code", Package: e2e.Claude, BinEnv: "CLAUDE_BIN"}

func TestMain(m *testing.M) { suite.Main(m) }
