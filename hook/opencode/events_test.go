package opencode

import (
	"regexp"
	"slices"
	"testing"
)

// TestEvents: the events "ralph-loop hook --help" lists for opencode are exactly those the
// plugin passes on.
func TestEvents(t *testing.T) {
	var passed []string
	for _, m := range regexp.MustCompile(`hook: "([^"]+)"`).FindAllStringSubmatch(pluginSource, -1) {
		if !slices.Contains(passed, m[1]) {
			passed = append(passed, m[1])
		}
	}
	listed := Host{}.Events()
	slices.Sort(passed)
	slices.Sort(listed)
	if !slices.Equal(passed, listed) {
		t.Errorf("the plugin passes on %q; Events lists %q", passed, listed)
	}
}
