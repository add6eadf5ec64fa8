package codex

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Codex's own sandbox (sandbox_mode = "workspace-write", what its TUI runs a trusted
// project with; "codex exec" runs read-only by default): it lets the agent's shell write
// the workspace, /tmp and $TMPDIR (seen on 0.171.0, in the rollout's permission profile and
// bubblewrap's mounts). Seen on 0.169.0: the sandbox needs its helper, which Codex makes
// only when CODEX_HOME is outside the temporary directory. So the world of these tests, the
// binary the hooks run among it, lives outside /tmp and $TMPDIR wherever HOME is (a HOME
// under /tmp put it there before, and the test failed: the sandbox let the agent write it).

// sandboxRoot is a directory for a sandbox test's world outside every root Codex's
// workspace-write lets the agent write (/tmp, $TMPDIR): in the e2e cache when that is
// outside them, else in /var/tmp; removed when t ends. t skips, saying why, where there is
// none.
func sandboxRoot(t *testing.T) string {
	t.Helper()
	var candidates []string
	if cache, err := e2e.CacheDir(); err == nil {
		candidates = append(candidates, cache)
	}
	candidates = append(candidates, "/var/tmp")
	outside := func(dir string) bool {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return false
		}
		for _, tmp := range []string{"/tmp", os.TempDir()} {
			if r, err := filepath.EvalSymlinks(tmp); err == nil {
				tmp = r
			}
			if rel, err := filepath.Rel(tmp, real); err == nil && !strings.HasPrefix(rel, "..") {
				return false
			}
		}
		return true
	}
	for _, c := range candidates {
		os.MkdirAll(c, 0o755)
		if !outside(c) {
			continue
		}
		root, err := os.MkdirTemp(c, "sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(root) })
		return root
	}
	t.Skipf("SKIPPED: no directory outside /tmp and $TMPDIR for the sandbox's world (tried %s)", strings.Join(candidates, ", "))
	return ""
}

// sandboxEnv is a world under sandboxRoot with Codex's workspace-write sandbox on and the
// hooks installed, running a copy of ralph-loop in the world's bin/ (in /tmp it would not
// be kept); it returns the env and that binary.
func sandboxEnv(t *testing.T, script Script) (*Env, string) {
	t.Helper()
	e2e.NeedSandbox(t, &suite)
	root := sandboxRoot(t)
	bin := filepath.Join(root, "bin", "ralph-loop")
	data, err := os.ReadFile(suite.RalphLoop)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(bin), 0o755)
	}
	if err == nil {
		err = e2e.WriteProgram(bin, data)
	}
	if err != nil {
		t.Fatal(err)
	}
	env := bareEnv(t, root, bin, script)
	config := filepath.Join(env.CodexHome, "config.toml")
	c, err := os.ReadFile(config)
	if err == nil {
		err = os.WriteFile(config, []byte(strings.Replace(string(c), `sandbox_mode = "danger-full-access"`, `sandbox_mode = "workspace-write"`, 1)), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.InstallHooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	return env, bin
}

// armedSandbox is the loop's own record of Codex's sandbox at arming (status names what
// protects a loop only while it is active).
func armedSandbox(t *testing.T, env *Env, session string) string {
	t.Helper()
	var rec struct {
		Sandbox string `json:"sandbox"`
	}
	data, err := os.ReadFile(filepath.Join(env.State, "ralph-loop", "sessions", session, "loop.json"))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		t.Errorf("the loop's record: %v", err)
	}
	return rec.Sandbox
}

// The agent tries, through its shell, each way of the fail-closed issue that writes a file
// ralph-loop trusts. Every write fails at the OS level, the loop stays ACTIVE with its stop
// blocked, the sandbox is its wall, and the session's end ends it.
func TestSandboxKeepsTheFiles(t *testing.T) {
	env, bin := sandboxEnv(t, Script{Turns: []Turn{
		Shell("sh attack.sh > attack.log 2>&1"),
		Text("Not done yet."),
		Text("Still not done."),
		{Status: 400},
	}})
	attack := e2e.Attack(`S="$XDG_STATE_HOME/ralph-loop/sessions/$CODEX_SESSION_ID"
K="$HOME/.local/share/ralph-loop"
B='`+bin+`'
`,
		`"mv '$B' '$B.moved'"`,
		`"printf '#!/bin/sh\nexit 0\n' > '$B'"`,
		`"rm -f '$K/key'"`,
		`"printf '{}' > '$S/loop.json'"`,
		`"rm -rf '$S'"`,
		`"printf '{}' > '$CODEX_HOME/hooks.json'"`,
		`"printf 'x' >> '$CODEX_HOME/config.toml'"`,
		`"printf '{}\n' >> \"\$(ls '$CODEX_HOME'/sessions/*/*/*/*$CODEX_SESSION_ID.jsonl)\""`,
		`"exec 9>>'$S/loop.lock'"`,
	)
	if err := os.WriteFile(filepath.Join(env.Project, "attack.sh"), []byte(attack), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, env, "", `$ralph-loop "Write done.txt" --max-iterations 10`)
	e2e.Refused(t, env.Project, 9)
	// The stops after the attack were blocked; codex exec then ended the session (the fake's
	// 400), and Codex's SessionEnd ended the loop there, resumable.
	l := loopOf(t, env, r.SessionID)
	if l.Status != "SESSION_ENDED" || l.Iteration < 2 {
		t.Errorf("loop %s at iteration %d (%s); want SESSION_ENDED after its stops were blocked", l.Status, l.Iteration, l.EndReason)
	}
	if got := armedSandbox(t, env, r.SessionID); got != "on" {
		t.Errorf("the loop's record of the sandbox: %q; want on", got)
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(out), "ralph-loop") {
		t.Errorf("the binary the hooks run: %q, %v", out, err)
	}
}

// The check the user gave (--check "sh test.sh") runs the project's test.sh, which the
// agent's shell rewrote: it removes the key, writes a stub over the binary the hooks run,
// wipes the state and cancels the loop from a session of its own. The check runs in the
// same sandbox as the agent's shell: none of it happens, the check fails and the stop is
// blocked; the session's end ends the loop.
func TestCheckRunsInTheSandbox(t *testing.T) {
	env, bin := sandboxEnv(t, Script{Turns: []Turn{
		Shell("cp attack.txt test.sh"),
		Text("All tests pass. <promise>DONE</promise>"),
		Text("Not done yet."),
		{Status: 400},
	}})
	attack := e2e.Attack(`K="$HOME/.local/share/ralph-loop"
B='`+bin+`'
S="$XDG_STATE_HOME/ralph-loop"
(setsid "$B" cancel --all >/dev/null 2>&1 &)
`,
		`"rm -f '$K/key'"`,
		`"printf '#!/bin/sh\nexit 0\n' > '$B'"`,
		`"rm -rf '$S/sessions'"`,
	) + "sleep 1\nexit 1\n"
	if err := os.WriteFile(filepath.Join(env.Project, "attack.txt"), []byte(attack), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, env, "", `$ralph-loop "Make the tests pass" --check "sh test.sh > attack.log 2>&1" --max-iterations 10`)
	e2e.Refused(t, env.Project, 3)
	l := loopOf(t, env, r.SessionID)
	if l.Status != "SESSION_ENDED" || l.Iteration < 2 {
		t.Errorf("loop %s at iteration %d (%s, by %q); want SESSION_ENDED after the failed check blocked its stop", l.Status, l.Iteration, l.EndReason, l.EndedBy)
	}
	blocked := false
	for _, e := range l.Events {
		blocked = blocked || e.Action == "blocked" && strings.Contains(e.Reason, "check 1/1")
	}
	if !blocked {
		t.Errorf("no stop was blocked by the failed check: %+v", l.Events)
	}
	if got := armedSandbox(t, env, r.SessionID); got != "on" {
		t.Errorf("the loop's record of the sandbox: %q; want on", got)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".local", "share", "ralph-loop", "key")); err != nil {
		t.Errorf("the keep's key: %v", err)
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(out), "ralph-loop") {
		t.Errorf("the binary the hooks run: %q, %v", out, err)
	}
}
