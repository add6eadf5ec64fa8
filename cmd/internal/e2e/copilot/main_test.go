package copilot

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real GitHub Copilot CLI (see e2e.Suite). It is on when RALPH_E2E=1
// (make e2e); otherwise every test skips and says why. It also skips, saying so in one line,
// when the CLI is not in the cache and npm cannot reach the registry to install it.
var suite = e2e.Suite{Title: "GitHub Copilot", Package: e2e.Copilot, BinEnv: "COPILOT_BIN"}

func TestMain(m *testing.M) { suite.Main(m) }

// headless is the suite GitHub Copilot CLI shares with the other hosts run headless (see
// e2e.ChatSuite): "copilot -p".
var headless = e2e.ChatSuite[*Env]{Suite: &suite, Host: "copilot", Title: "GitHub Copilot CLI", NewEnv: NewEnv, Shell: Shell}

// typing is what the shared TUI scenarios need to know of its TUI (see e2e.Typed).
var typing = e2e.Typing{Host: "copilot", Shell: Shell, Box: inputBox, Slow: "sleep 6; echo step >> log.txt"}

// run runs copilot headless; t fails if it could not be run to its end.
var run = e2e.Must("copilot", (*Env).Run)

// newEnv is a fresh world with ralph-loop installed by its own installer at scope.
var newEnv = headless.Installed

var contains = e2e.Contains
