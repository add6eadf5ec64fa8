package kilo

import "testing"

// 8. Kilo's interactive TUI, in tmux, as a user runs it (see opencode.Family.TUI).
func TestTUI(t *testing.T) { family.TUI(t) }

// A message typed while a command of the loop runs: Kilo goes idle for a moment between
// the tool step and the message, which is no stop; the loop stays in step (see
// opencode.MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) { family.TUIMessageMidLoop(t) }

// Esc while a command of the loop runs: a toast says the loop waits; the stopped call is not
// counted (see opencode.Family.TUIEscThenMessage).
func TestTUIEscThenMessage(t *testing.T) { family.TUIEscThenMessage(t) }

// /cancel-ralph costs no model turn and is not shown as the user's words (see
// opencode.Family.TUICancel).
func TestTUICancel(t *testing.T) { family.TUICancel(t) }
