package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Codex runs the agent's shell in its own sandbox unless told not to (seen on 0.169.0,
// Linux: bubblewrap): "codex exec" read-only by default, nothing writable; workspace-write
// lets it write the workspace, /tmp and $TMPDIR (and writable_roots), and nothing else;
// danger-full-access (sandbox_mode, or --dangerously-bypass-approvals-and-sandbox) runs it
// unsandboxed. The rollout records the policy of each turn in a turn_context line, written
// before the turn's UserPromptSubmit hook runs.

// rolloutTail bounds what is read of a rollout for its last turn_context.
const rolloutTail = 1 << 20

// sandboxPolicy is a turn_context's sandbox_policy.
type sandboxPolicy struct {
	Type                string   `json:"type"`
	WritableRoots       []string `json:"writable_roots"`
	ExcludeTmpdirEnvVar bool     `json:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool     `json:"exclude_slash_tmp"`
}

// sandboxState says whether the session of the rollout at path runs the agent's shell in
// Codex's sandbox with none of the trusted paths that exist writable: state.SandboxOn, else
// why not ("" when the rollout does not say).
func sandboxState(path string, trusted []string, getenv func(string) string) string {
	p, cwd, ok := lastPolicy(path)
	if !ok {
		return ""
	}
	switch p.Type {
	case "read-only":
		return state.SandboxOn
	case "workspace-write":
		writable := append([]string{cwd}, p.WritableRoots...)
		if !p.ExcludeSlashTmp {
			writable = append(writable, "/tmp")
		}
		if t := getenv("TMPDIR"); t != "" && !p.ExcludeTmpdirEnvVar {
			writable = append(writable, t)
		}
		for _, t := range trusted {
			if _, err := os.Lstat(t); err != nil {
				continue // a hook file of a scope the hooks are not at
			}
			for _, w := range writable {
				if w != "" && within(t, w) {
					return inject.SandboxWritable(t)
				}
			}
		}
		return state.SandboxOn
	case "":
		return ""
	}
	return inject.SandboxPolicyOff(p.Type)
}

// lastPolicy finds the last turn_context line in the end of the rollout.
func lastPolicy(path string) (p sandboxPolicy, cwd string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return p, "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return p, "", false
	}
	start := fi.Size() - rolloutTail
	if start < 0 {
		start = 0
	}
	data, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return p, "", false
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"turn_context"`)) {
			continue
		}
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Cwd           string        `json:"cwd"`
				SandboxPolicy sandboxPolicy `json:"sandbox_policy"`
			} `json:"payload"`
		}
		if json.Unmarshal(lines[i], &l) == nil && l.Type == "turn_context" {
			return l.Payload.SandboxPolicy, l.Payload.Cwd, true
		}
	}
	return p, "", false
}

// within reports whether path is dir or inside it, resolving symbolic links where they
// exist.
func within(path, dir string) bool {
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	for _, pair := range [][2]string{{filepath.Clean(path), filepath.Clean(dir)}, {resolve(path), resolve(dir)}} {
		rel, err := filepath.Rel(pair[1], pair[0])
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
