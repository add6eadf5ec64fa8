package opencode

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stub is the stand-in ralph-loop of plugin.test.mjs: it logs its runs and inputs, answers
// --active-dir with $STUB_ACTIVE, marks a session active when asked to arm a loop, and
// replies $STUB_REPLY. A tool call's log (tool.execute.after) takes $STUB_SLOW_AFTER
// seconds, if set; its end and each stop's start are logged in order to $STUB_LOG.seq.
const stub = `#!/bin/sh
echo "$*" >> "$STUB_LOG"
if [ "$4" = --active-dir ]; then
	[ -n "$STUB_ACTIVE" ] && echo "$STUB_ACTIVE"
	exit 0
fi
in=$(cat)
printf '%s\n' "$in" >> "$STUB_LOG.in"
case "$in" in
*'"hook":"chat.message"'*ralph-loop*) id=${in#*'"sessionID":"'}; : > "$STUB_ACTIVE/${id%%'"'*}" ;;
*'"hook":"tool.execute.after"'*) [ -n "$STUB_SLOW_AFTER" ] && sleep "$STUB_SLOW_AFTER"; echo tool.execute.after >> "$STUB_LOG.seq" ;;
*'"hook":"session.idle"'*) echo session.idle >> "$STUB_LOG.seq" ;;
esac
printf '%s' "$STUB_REPLY"
`

// TestPluginNode runs plugin.js's own unit tests (plugin.test.mjs) under node --test, on the
// plugin as install writes it. It runs in make e2e's tier (RALPH_JS=1: make test starts no
// node), and skips where node is not installed.
func TestPluginNode(t *testing.T) {
	needJS(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: plugin.js's unit tests (plugin.test.mjs) not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ralph-loop")
	if err := os.WriteFile(bin, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []Host{{}, Kilo} {
		t.Run(h.Name(), func(t *testing.T) {
			src := plugin(h.flavor().words, bin, "user", false)
			plugin := filepath.Join(dir, h.Name()+".mjs")
			if err := os.WriteFile(plugin, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			test, err := os.ReadFile("plugin.test.mjs")
			if err != nil {
				t.Fatal(err)
			}
			tests := filepath.Join(dir, h.Name()+".test.mjs")
			if err := os.WriteFile(tests, []byte(strings.ReplaceAll(string(test), "__HOST__", h.Name())), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(node, "--test", tests)
			cmd.Env = append(os.Environ(), "PLUGIN="+plugin, "STUB="+bin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node --test plugin.test.mjs: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "# fail 0") || strings.Contains(string(out), "# pass 0\n") {
				t.Fatalf("node --test ran no test, or failed one:\n%s", out)
			}
		})
	}
}

// needJS skips t unless the JavaScript tests are asked for (RALPH_JS=1, as make e2e does):
// the hermetic tier (make test) starts no node process.
func needJS(t *testing.T) {
	t.Helper()
	if os.Getenv("RALPH_JS") != "1" {
		t.Skip("the JavaScript tests run with RALPH_JS=1 (make e2e)")
	}
}
