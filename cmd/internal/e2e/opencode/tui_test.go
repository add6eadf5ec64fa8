package opencode

import "testing"

// 10. The interactive TUI, in tmux, as a user runs it (see Family.TUI).
func TestTUI(t *testing.T) { family.TUI(t) }

// A message typed while a command of the loop runs: the loop stays in step (see
// MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) { family.TUIMessageMidLoop(t) }
