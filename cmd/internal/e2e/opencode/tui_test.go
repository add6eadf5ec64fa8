package opencode

import "testing"

// 10. The interactive TUI, in tmux, as a user runs it (see Family.TUI).
func TestTUI(t *testing.T) { family.TUI(t) }

// A message typed while a command of the loop runs: the loop stays in step (see
// MessageMidLoop).
func TestTUIMessageMidLoop(t *testing.T) { family.TUIMessageMidLoop(t) }

// Esc while a command of the loop runs: a toast says the loop waits; the stopped call is not
// counted (see Family.TUIEscThenMessage).
func TestTUIEscThenMessage(t *testing.T) { family.TUIEscThenMessage(t) }

// /cancel-ralph costs no model turn and is not shown as the user's words (see
// Family.TUICancel).
func TestTUICancel(t *testing.T) { family.TUICancel(t) }
