package droid

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real Factory Droid CLI (see e2e.Suite). It is on when RALPH_E2E=1
// (make e2e); otherwise every test skips and says why. It also skips, saying so in one line,
// when the CLI is not in the cache and npm cannot reach the registry to install it.
var suite = e2e.Suite{Title: "Factory Droid", Package: e2e.Droid, BinEnv: "DROID_BIN"}

func TestMain(m *testing.M) { suite.Main(m) }

// headless is the suite Factory Droid shares with the other hosts run headless (see
// e2e.ChatSuite and Env.Headless).
var headless = e2e.ChatSuite[*Env]{Suite: &suite, Host: "droid", Title: "Factory Droid", NewEnv: NewEnv, Shell: Execute}
