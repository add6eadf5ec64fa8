package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state"
)

// The session's sandbox, as its rollout's last turn_context says it: a wall only when it
// keeps every trusted path out of the agent's reach. The policies' shapes are those Codex
// 0.169.0 wrote (testdata/codex/rollout.loop3.jsonl, and runs of "codex exec" with
// sandbox_mode unset and "workspace-write").
func TestSandboxState(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	turn := func(policy string) string {
		return `{"timestamp":"2026-11-27T19:02:50.300Z","type":"turn_context","payload":{"cwd":"` + work + `","approval_policy":"never","sandbox_policy":` + policy + `}}`
	}
	getenv := func(k string) string {
		if k == "TMPDIR" {
			return filepath.Join(dir, "tmp")
		}
		return ""
	}
	trusted := []string{filepath.Join(home, ".local", "state", "ralph-loop"), filepath.Join(home, ".local", "share", "ralph-loop")}
	hooks := filepath.Join(work, ".codex", "hooks.json")
	for _, p := range append(trusted, hooks, filepath.Join(dir, "tmp", "bin", "ralph-loop"), filepath.Join(work, "ralph-loop")) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// profile is a turn_context of 0.171.0's shape: the workspace and $TMPDIR writable, its
	// .git, .agents and .codex read-only, and /tmp writable when slashTmp.
	profile := func(cwd string, slashTmp bool) string {
		entries := `{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"path","path":"` + cwd + `"},"access":"write"},` +
			`{"path":{"type":"special","value":{"kind":"tmpdir"}},"access":"write"},`
		if slashTmp {
			entries += `{"path":{"type":"special","value":{"kind":"slash_tmp"}},"access":"write"},`
		}
		entries += `{"path":{"type":"path","path":"` + cwd + `/.git"},"access":"read","missing_path_behavior":"skip"},` +
			`{"path":{"type":"path","path":"` + cwd + `/.codex"},"access":"read","missing_path_behavior":"skip"}`
		return `{"timestamp":"2026-12-06T02:13:19.247Z","type":"turn_context","payload":{"cwd":"` + cwd + `","permission_profile":{"type":"managed",` +
			`"file_system":{"type":"restricted","entries":[` + entries + `]},"network":"restricted"},"sandbox_policy":{"type":"workspace-write","exclude_slash_tmp":false}}}`
	}
	cases := []struct {
		name, rollout string
		trusted       []string
		want          string
	}{
		{"captured: danger-full-access", "", trusted, "the session runs without the sandbox (danger-full-access)"},
		{"read-only", turn(`{"type":"read-only"}`), trusted, state.SandboxOn},
		// The test's directories are in /tmp, which workspace-write lets the agent write
		// unless exclude_slash_tmp says otherwise.
		{"workspace-write", turn(`{"type":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":true}`), trusted, state.SandboxOn},
		{"workspace-write over /tmp", turn(`{"type":"workspace-write","exclude_slash_tmp":false}`), trusted, "the sandbox lets the agent's commands write " + trusted[0]},
		{"a hook file that is not there", turn(`{"type":"workspace-write","exclude_slash_tmp":true}`), append(trusted, filepath.Join(work, ".codex", "config.toml")), state.SandboxOn},
		{"workspace-write over a hook file", turn(`{"type":"workspace-write","exclude_slash_tmp":true}`), append(trusted, hooks), "the sandbox lets the agent's commands write " + hooks},
		{"workspace-write over $TMPDIR", turn(`{"type":"workspace-write","exclude_slash_tmp":true}`), []string{filepath.Join(dir, "tmp", "bin", "ralph-loop")}, "the sandbox lets the agent's commands write"},
		{"the last turn counts", turn(`{"type":"read-only"}`) + "\n" + turn(`{"type":"danger-full-access"}`), trusted, "the session runs without the sandbox"},
		{"no turn_context", `{"type":"session_meta","payload":{}}`, trusted, ""},
		// 0.171.0 writes a permission profile beside the policy: its entries decide, and
		// the paths it keeps read-only in the workspace (.codex) are not the agent's.
		{"permission profile", profile(work, false), append(trusted, hooks), state.SandboxOn},
		{"permission profile over /tmp", profile(work, true), trusted, "the sandbox lets the agent's commands write " + trusted[0]},
		{"permission profile over a file of the workspace", profile(work, false), append(trusted, filepath.Join(work, "ralph-loop")), "the sandbox lets the agent's commands write " + filepath.Join(work, "ralph-loop")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "codex", "rollout.loop3.jsonl")
			if c.rollout != "" {
				path = filepath.Join(t.TempDir(), "rollout.jsonl")
				if err := os.WriteFile(path, []byte(c.rollout+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := sandboxState(path, c.trusted, getenv)
			if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
