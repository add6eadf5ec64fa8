package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEFiveMinutes keeps the README a five-minute read (what it is, the two commands,
// install, a first loop, cancel and status, the hosts, links into docs/): at most 900 words,
// no line wider than 110 characters, "make demo" and "make test" its first two commands, and
// every link into the repository pointing at a file that exists.
func TestREADMEFiveMinutes(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if n := len(strings.Fields(s)); n > 900 {
		t.Errorf("README.md has %d words, want at most 900 (five minutes): move detail into docs/", n)
	}
	for i, line := range strings.Split(s, "\n") {
		if len([]rune(line)) > 110 {
			t.Errorf("README.md:%d is %d characters wide, want at most 110", i+1, len([]rune(line)))
		}
	}
	cmds := regexp.MustCompile(`(?m)^    (make \w+)`).FindAllStringSubmatch(s, 2)
	if len(cmds) < 2 || cmds[0][1] != "make demo" || cmds[1][1] != "make test" {
		t.Errorf("README.md's first two commands are %v, want make demo, make test", cmds)
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(s, -1) {
		if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
			t.Errorf("README.md links to %s: %v", m[1], err)
		}
	}
}
