package droid

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestHookTime is make bench's figure for Factory Droid: the loop of e2e.BenchIterations
// iterations (each one shell call, then a text turn), ralph-loop's hooks timed (see
// e2e.BenchHost).
func TestHookTime(t *testing.T) { headless.HookTime(t, "Stop", e2e.BenchIterations, nil) }
