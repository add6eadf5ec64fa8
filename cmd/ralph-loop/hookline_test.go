package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The command line install writes for a hook is answered without the command-line parser;
// every other one goes through it, and its errors are the parser's.
func TestHookLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		fast bool
	}{
		{[]string{"ralph-loop", "hook", "--host", "claude"}, true},
		{[]string{"ralph-loop", "hook", "--host", "codex"}, true},
		{[]string{"ralph-loop", "hook", "--host", "nope"}, false},
		{[]string{"ralph-loop", "hook", "--host=claude"}, false},
		{[]string{"ralph-loop", "hook", "--host", "claude", "--active-dir"}, false},
		{[]string{"ralph-loop", "hook", "--host", "claude", "extra"}, false},
		{[]string{"ralph-loop", "hook", "--help", "claude"}, false},
		{[]string{"ralph-loop", "status", "--host", "claude"}, false},
		{[]string{"ralph-loop", "hook"}, false},
	} {
		if _, fast := hookLine(tc.argv); fast != tc.fast {
			t.Errorf("hookLine(%q) = %v, want %v", tc.argv, fast, tc.fast)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ralph-loop", "hook", "--host", "nope"}, strings.NewReader("{}"), &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `unknown host "nope"`) {
		t.Errorf("an unknown host: exit %d, stderr %q", code, stderr.String())
	}
}
