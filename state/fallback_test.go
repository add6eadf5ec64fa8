package state

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The lines of a loop file that the hooks' script reads (ScriptLines) are in the loop file
// and in the keep's copy as the store writes them, each once, whole, for an active loop;
// and an ended loop's file has no ACTIVE line.
func TestScriptLines(t *testing.T) {
	s, _ := keptStore(t) // s1 active, at iteration 3
	l, err := s.Peek("s1")
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	check := func(path string, active bool) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		count := func(line string) int {
			n := 0
			for _, l := range lines {
				if l == line {
					n++
				}
			}
			return n
		}
		for _, c := range []struct {
			line string
			want int
		}{
			{ScriptLines.Active, map[bool]int{true: 1, false: 0}[active]},
			{fmt.Sprintf(ScriptLines.MaxIterations, l.MaxIterations), 1},
			{fmt.Sprintf(ScriptLines.Iteration, l.Iteration), 1},
		} {
			if got := count(c.line); got != c.want {
				t.Errorf("%s: %d lines %q, want %d:\n%s", path, got, c.line, c.want, data)
			}
		}
	}
	check(s.loopPath("s1"), true)
	check(s.copyPath("s1"), true)
	err = s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) {
		cur.Status = Cancelled
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check(s.loopPath("s1"), false)
}
