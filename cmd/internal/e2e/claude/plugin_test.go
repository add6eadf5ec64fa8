package claude

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The Claude Code plugin, installed as a user would: this repository added as a marketplace
// (a local directory, offline) and the plugin installed with Claude Code's own commands.

// pluginEnv is an Env with the repository's plugin installed at user scope, and no
// ralph-loop hooks of any other kind.
func pluginEnv(t *testing.T) *e2e.Env {
	t.Helper()
	env := bareEnv(t)
	// The marketplace is the repository's committed files, copied as a clone would hold them.
	mk := filepath.Join(env.Root, "marketplace")
	for _, d := range []string{".claude-plugin", "plugins"} {
		if err := os.MkdirAll(mk, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-R", filepath.Join("..", "..", "..", "..", d), filepath.Join(mk, d)).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", d, err, out)
		}
	}
	claudeCLI(t, env, "plugin", "marketplace", "add", mk)
	claudeCLI(t, env, "plugin", "install", "ralph-loop@ralph-loop")
	return env
}

func claudeCLI(t *testing.T, env *e2e.Env, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), env.Claude, args...)
	cmd.Dir, cmd.Env = env.Project, env.Environ("", nil)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude %s: %v: %s", strings.Join(args, " "), err, out.String())
	}
}

func TestPlugin(t *testing.T) {
	env := pluginEnv(t) // the plugin's setup takes a while: both cases share it
	t.Run("with ralph-loop", func(t *testing.T) { pluginLoop(t, env) })
	t.Run("doctor", func(t *testing.T) { pluginDoctor(t, env) })
	t.Run("without ralph-loop", func(t *testing.T) { pluginWithoutBinary(t, env) })
}

// With the plugin and ralph-loop on PATH, a loop runs as with "ralph-loop install": blocked
// without the promise, accepted after work; the plugin's namespaced command works too.
func pluginLoop(t *testing.T, env *e2e.Env) {
	if _, err := os.Stat(filepath.Join(env.Project, ".claude")); err == nil {
		t.Error("the plugin test's project has a .claude directory: hooks would not come from the plugin alone")
	}
	script := e2e.Script{Turns: []e2e.Turn{
		e2e.Text("I'm done."),
		e2e.Bash("Let me actually do it.", "echo hi > x.txt"),
		e2e.Text("x.txt is written. <promise>DONE</promise>"),
	}}
	for _, cmd := range []string{"/ralph-loop", "/ralph-loop:ralph-loop"} {
		res := run(t, env, e2e.Session{Script: script, Prompts: []string{cmd + ` "Create x.txt containing hi" --max-iterations 5`}})
		expectLoop(t, loopOf(t, env, res.SessionID), "PROMISE_ACCEPTED", 2, 1)
		if f := res.Feedback(); len(f) != 1 || !strings.Contains(f[0], "iteration 2/5") {
			t.Errorf("%s: blocks %q, want one at iteration 2/5", cmd, f)
		}
	}
}

// With the plugin but no ralph-loop on the machine, nothing is blocked and no hook fails:
// the session's start tells the user, once, how to install it, and /ralph-loop starts
// nothing.
func pluginWithoutBinary(t *testing.T, env *e2e.Env) {
	res := run(t, env, e2e.Session{
		Script:  e2e.Script{Turns: []e2e.Turn{e2e.Bash("Working.", "echo hi > x.txt"), e2e.Text("Nothing was started, so I stopped.")}},
		Prompts: []string{`/ralph-loop "Create x.txt" --max-iterations 5`},
		Env:     []string{"PATH=/usr/bin:/bin"},
	})
	if res.ExitCode != 0 {
		t.Errorf("claude exit %d", res.ExitCode)
	}
	if f := res.Feedback(); len(f) != 0 {
		t.Errorf("blocked without ralph-loop: %q", f)
	}
	told := 0
	for _, n := range res.Notices() {
		if strings.Contains(n, "not on this machine") {
			told++
		}
	}
	if told == 0 {
		t.Errorf("the user was not told ralph-loop is missing; notices: %q", res.Notices())
	}
	for _, m := range res.Lines {
		if s, _ := m["subtype"].(string); strings.Contains(s, "hook") {
			if o, _ := m["outcome"].(string); o != "" && o != "success" {
				t.Errorf("hook did not succeed: %v", m)
			}
		}
	}
	if loops, err := env.Status(context.Background(), res.SessionID); err == nil && len(loops) != 0 {
		t.Errorf("a loop was armed without ralph-loop: %+v", loops[0])
	}
}

// The plugin turned off in the project's local settings while its loop runs: Claude Code
// would drop the plugin's hooks, so the change is refused, the next stop is blocked, and the
// user's /cancel-ralph ends the loop. Before, ralph-loop counted the plugin enabled in the
// user's settings and took the change.
func TestPluginDisableRefused(t *testing.T) {
	env := pluginEnv(t)
	_, l := attackThenUserCancel(t, env, settingsEdit(".claude/settings.local.json", `{"enabledPlugins": {"ralph-loop@ralph-loop": false}}`+"\n"))
	refusedChange(t, l, ".claude/settings.local.json")
}
