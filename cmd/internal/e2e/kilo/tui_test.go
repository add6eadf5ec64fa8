package kilo

import "testing"

// 8. Kilo's interactive TUI, in tmux, as a user runs it (see opencode.Family.TUI).
func TestTUI(t *testing.T) { family.TUI(t) }

// A message typed while a command of the loop runs: Kilo goes idle for a moment between
// the tool step and the message, which is no stop; the loop stays in step (see
// opencode.MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) { family.TUIMessageMidLoop(t) }
