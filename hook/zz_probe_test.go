package hook

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	w := newGuardWorld(t, true)
	judge := testJudge(w.state, w.home, w.stateHome)
	b, _ := os.ReadFile("/tmp/probe.txt")
	for _, c := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		r := judge(w.bash(c))
		v := "allow"
		if r != "" {
			v = "DENY "
		}
		fmt.Printf("%s %s\n", v, c)
	}
}
