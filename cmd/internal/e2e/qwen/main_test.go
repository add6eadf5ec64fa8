package qwen

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The suite runs the real Qwen Code CLI (see e2e.Suite). It is on when RALPH_E2E=1
// (make e2e); otherwise every test skips and says why. It also skips, saying so in one line,
// when the CLI is not in the cache and npm cannot reach the registry to install it.
var suite = e2e.Suite{Title: "Qwen Code", Package: e2e.Qwen, BinEnv: "QWEN_BIN"}

func TestMain(m *testing.M) { suite.Main(m) }

// headless is the suite Qwen Code shares with the other hosts run headless (see
// e2e.ChatSuite): "qwen -p".
var headless = e2e.ChatSuite[*Env]{Suite: &suite, Host: "qwen", Title: "Qwen Code", NewEnv: NewEnv, Shell: Shell}

// typing is what the shared TUI scenarios need to know of its TUI (see e2e.Typed). The slow
// command does not start with "sleep": Qwen Code refuses one that does ("sleep 2 followed
// by: …") at once, and the command would not run at all.
var typing = e2e.Typing{Host: "qwen", Shell: Shell, Box: inputBox, Slow: "echo step >> log.txt; sleep 6"}

// run runs qwen headless; t fails if it could not be run to its end.
var run = e2e.Must("qwen", (*Env).Headless)
