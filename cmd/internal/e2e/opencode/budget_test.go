package opencode

import "testing"

// TestBudget: the family's budget scenarios (see Family.Budget) on the real opencode.
func TestBudget(t *testing.T) { family.Budget(t) }
