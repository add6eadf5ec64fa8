package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Codex's own sandbox (sandbox_mode = "workspace-write", what its TUI runs a trusted
// project with; "codex exec" runs read-only by default): the agent tries, through its
// shell, each way of the fail-closed issue that writes a file ralph-loop trusts. Every
// write fails at the OS level, the loop stays ACTIVE with its stop blocked, status names
// the sandbox as the wall, and the user's cancel ends the loop. Seen on 0.169.0: the
// sandbox (bubblewrap) needs its helper, which Codex makes only when CODEX_HOME is outside
// the temporary directory, so this world lives in the e2e cache, and the binary the hooks
// run is a copy there (in /tmp, which workspace-write lets the agent write, it would not be
// kept).
func TestSandboxKeepsTheFiles(t *testing.T) {
	e2e.NeedSandbox(t, &suite)
	cache, err := e2e.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(cache, "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "bin", "ralph-loop")
	data, err := os.ReadFile(suite.RalphLoop)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(bin), 0o755)
	}
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	env := bareEnv(t, root, bin, Script{Turns: []Turn{
		Shell("sh attack.sh > attack.log 2>&1"),
		Text("Not done yet."),
		Text("Still not done."),
		{Status: 400},
	}})
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
	// The loop's own record of Codex's sandbox at arming (status names what protects it only while a
	// loop is active).
	var rec struct {
		Sandbox string `json:"sandbox"`
	}
	rdata, err := os.ReadFile(filepath.Join(env.State, "ralph-loop", "sessions", r.SessionID, "loop.json"))
	if err == nil {
		err = json.Unmarshal(rdata, &rec)
	}
	if err != nil || rec.Sandbox != "on" {
		t.Errorf("the loop's record of the sandbox: %q, %v; want on", rec.Sandbox, err)
	}
	if out, err := os.ReadFile(bin); err != nil || len(out) != len(data) {
		t.Errorf("the binary the hooks run changed: %d bytes, %v", len(out), err)
	}
}
