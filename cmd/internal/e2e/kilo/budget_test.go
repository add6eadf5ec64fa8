package kilo

import "testing"

// TestBudget: Kilo's usage reaches ralph-loop as opencode's does (Kilo records a turn's
// tokens and its own cost as opencode does): the family's budget scenarios (see
// opencode.Family.Budget).
func TestBudget(t *testing.T) { family.Budget(t) }
