package opencode

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// TestEvents: the events "ralph-loop hook --help" lists for opencode are exactly those the
// plugin passes on.
func TestEvents(t *testing.T) {
	hosttest.SameEvents(t, pluginSource, `hook: "([^"]+)"`, Host{}.Events())
}
