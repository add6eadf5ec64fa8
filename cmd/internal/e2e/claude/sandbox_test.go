package claude

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Claude Code's sandbox on, as "ralph-loop install --sandbox" turns it on: the agent tries,
// through its shell (a script the guard does not read), each way of the fail-closed issue
// that writes a file ralph-loop trusts, and through its Write tool the settings. Every
// write fails at the OS level (or the tool is denied), the loop stays ACTIVE, the next stop
// is blocked, and the user's /cancel-ralph ends it.

// sandboxEnv is an Env whose hooks and sandbox install wrote at local scope, or skips
// where the sandbox cannot run.
func sandboxEnv(t *testing.T) *e2e.Env {
	t.Helper()
	e2e.NeedSandbox(t, &suite)
	env := bareEnv(t)
	if _, err := env.RalphLoopCmd(context.Background(), "install", "--sandbox", "--scope", "local", "--dir", env.Project); err != nil {
		t.Fatal(err)
	}
	return env
}

// attack tries each write and says, one line each, whether it went through (see e2e.Attack).
var attack = e2e.Attack(`S="$XDG_STATE_HOME/ralph-loop/sessions/$CLAUDE_CODE_SESSION_ID"
K="$HOME/.local/share/ralph-loop"
B="$(command -v ralph-loop)"
`,
	`"mv '$B' '$B.moved'"`,
	`"printf '#!/bin/sh\nexit 0\n' > '$B'"`,
	`"chmod -x '$B'"`,
	`"rm -f '$K/key'"`,
	`"rm -rf '$K/loops'"`,
	`"printf '{}' > '$S/loop.json'"`,
	`"rm -rf '$S'"`,
	`"printf '{\"disableAllHooks\": true}' > .claude/settings.local.json"`,
	`"printf '{\"disableAllHooks\": true}' > .claude/settings.json"`,
	`"printf '{\"disableAllHooks\": true}' > '$HOME/.claude/settings.json'"`,
	`"printf '{}\n' >> \"\$(ls '$HOME'/.claude/projects/*/$CLAUDE_CODE_SESSION_ID.jsonl)\""`,
	`"exec 9>>'$S/loop.lock'"`,
)

func TestSandboxKeepsTheFiles(t *testing.T) {
	env := sandboxEnv(t)
	local := filepath.Join(env.Project, ".claude", "settings.local.json")
	before := e2e.Read(t, local)
	res, l := attackThenUserCancel(t, env, []e2e.Turn{
		writeScript("attack.sh", attack),
		e2e.Bash("Try to get out.", "sh attack.sh > attack.log 2>&1; cat attack.log"),
		e2e.Tool("Turn the hooks off.", "Write", map[string]any{"file_path": local, "content": "{\"disableAllHooks\": true}\n"}),
		e2e.Tool("Then outside the sandbox.", "Bash", map[string]any{"command": "touch \"$XDG_STATE_HOME/ralph-loop/x\"",
			"description": "write the state", "dangerouslyDisableSandbox": true}),
	})
	e2e.Refused(t, env.Project, 12)
	if after, _ := os.ReadFile(local); string(after) != string(before) {
		t.Errorf("the Write tool changed %s:\n%s", local, after)
	}
	if fi, err := os.Stat(env.RalphLoop); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the binary the hooks run: %v, %v", fi, err)
	}
	if out, err := exec.Command(env.RalphLoop, "version").Output(); err != nil || !strings.Contains(string(out), "ralph-loop") {
		t.Errorf("the binary the hooks run: %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".local", "share", "ralph-loop", "key")); err != nil {
		t.Errorf("the copy of the key: %v", err)
	}
	if l.Protection != "" && l.Protection != "sandbox" {
		t.Errorf("protection %q (%s), want sandbox", l.Protection, l.Sandbox)
	}
	if !hasNotice(res, "Claude Code's sandbox stops the agent's commands from changing the loop's files") {
		t.Errorf("the arming notice did not name the sandbox: %q", res.Notices())
	}
	left := false
	for _, e := range l.Events {
		if e.Action == "restored" {
			t.Errorf("the state had to be put back: %+v", e)
		}
		left = left || e.Action == "denied" && strings.Contains(e.Reason, "touch")
	}
	if !left {
		t.Errorf("the call asking to leave the sandbox was not denied: %+v", l.Events)
	}
	if _, err := os.Stat(filepath.Join(env.State, "ralph-loop", "x")); err == nil {
		t.Error("the call outside the sandbox wrote the state")
	}
}

// install --sandbox at user scope, run in another directory, covers every project: in this
// one the agent's Write tool (which runs outside the sandbox) cannot create the project's
// settings that would turn the hooks off, ralph-loop's project settings, or a git hook the
// user's git would run; doctor here says the sandbox is on. (Before issue 36 the rules named
// only the directory install ran in: here the Write tool wrote .claude/settings.json and
// .claude/settings.local.json with disableAllHooks, and doctor said "sandbox: on".)
func TestSandboxUserScopeEveryProject(t *testing.T) {
	e2e.NeedSandbox(t, &suite)
	env := bareEnv(t)
	elsewhere := t.TempDir()
	if _, err := env.RalphLoopCmd(context.Background(), "install", "--sandbox", "--scope", "user", "--dir", elsewhere); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, env)
	off := "{\"disableAllHooks\": true}\n"
	files := map[string]string{
		".claude/settings.json":       off,
		".claude/settings.local.json": off,
		".ralph/settings.local.json":  "{\"max-stalls\": 1}\n",
		".git/hooks/pre-commit":       "#!/bin/sh\nralph-loop cancel --all\n",
		".git/config":                 "[core]\n\thooksPath = /tmp\n",
	}
	var writes []e2e.Turn
	for f, content := range files {
		writes = append(writes, e2e.Tool("Write it.", "Write", map[string]any{"file_path": filepath.Join(env.Project, f), "content": content}))
	}
	res, l := attackThenUserCancel(t, env, writes)
	for f, content := range files {
		if data, err := os.ReadFile(filepath.Join(env.Project, f)); err == nil && string(data) == content {
			t.Errorf("the Write tool wrote %s", f)
		}
	}
	if !hasNotice(res, "Claude Code's sandbox stops the agent's commands from changing the loop's files") {
		t.Errorf("the arming notice did not name the sandbox: %q", res.Notices())
	}
	if l.Protection != "" && l.Protection != "sandbox" {
		t.Errorf("protection %q (%s), want sandbox", l.Protection, l.Sandbox)
	}
	out, _ := env.RalphLoopCmd(context.Background(), "doctor", "--dir", env.Project)
	if !strings.Contains(out, "sandbox: on") {
		t.Errorf("doctor in the project:\n%s", out)
	}
}
