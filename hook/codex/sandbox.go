package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

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

// permissionProfile is a turn_context's permission_profile (seen on 0.171.0, beside
// sandbox_policy): the file system's entries, each a path (or a special place: the root,
// /tmp, $TMPDIR) with the access the agent's shell has to it.
type permissionProfile struct {
	FileSystem *struct {
		Type    string `json:"type"`
		Entries []struct {
			Path struct {
				Type  string `json:"type"`
				Path  string `json:"path"`
				Value struct {
					Kind string `json:"kind"`
				} `json:"value"`
			} `json:"path"`
			Access string `json:"access"`
		} `json:"entries"`
	} `json:"file_system"`
}

// turnContext is what a turn_context line says of the turn's sandbox.
type turnContext struct {
	Cwd        string             `json:"cwd"`
	Policy     sandboxPolicy      `json:"sandbox_policy"`
	Permission *permissionProfile `json:"permission_profile"`
}

// sandboxState says whether the session of the rollout at path runs the agent's shell in
// Codex's sandbox with none of the trusted paths that exist writable: state.SandboxOn, else
// why not ("" when the rollout does not say); and what it lets the agent's shell write.
func sandboxState(path string, trusted []string, getenv func(string) string) (string, *state.SandboxRoots) {
	tc, ok := lastTurnContext(path)
	if !ok {
		return "", nil
	}
	r, why := roots(tc, getenv)
	if why != "" {
		return why, nil
	}
	if r == nil {
		return "", nil
	}
	var present []string
	for _, t := range trusted {
		if _, err := os.Lstat(t); err == nil {
			present = append(present, t) // a hook file of a scope the hooks are not at is not counted
		}
	}
	if p := r.Exposes(present...); p != "" {
		return inject.SandboxWritable(p), r
	}
	return state.SandboxOn, r
}

// roots are what the turn's sandbox lets the agent's shell write, from its permission
// profile where the rollout has one, else from its sandbox policy; why says why there is no
// sandbox to speak of (nil roots and "": the rollout does not say).
func roots(tc turnContext, getenv func(string) string) (r *state.SandboxRoots, why string) {
	tmpdir := getenv("TMPDIR")
	switch tc.Policy.Type {
	case "read-only", "workspace-write", "":
	default:
		return nil, inject.SandboxPolicyOff(tc.Policy.Type)
	}
	if p := tc.Permission; p != nil && p.FileSystem != nil {
		if p.FileSystem.Type != "restricted" {
			return nil, inject.SandboxPolicyOff(p.FileSystem.Type)
		}
		r = &state.SandboxRoots{}
		for _, e := range p.FileSystem.Entries {
			var at string
			switch e.Path.Type {
			case "path":
				at = e.Path.Path
			case "special":
				switch e.Path.Value.Kind {
				case "root":
					at = "/"
				case "slash_tmp":
					at = "/tmp"
				case "tmpdir":
					at = tmpdir
				default:
					if e.Access == "write" {
						return nil, inject.SandboxWritable(e.Path.Value.Kind)
					}
				}
			}
			if at == "" {
				continue
			}
			switch {
			case e.Access == "write":
				r.Writable = append(r.Writable, at)
			case e.Path.Type == "path":
				r.ReadOnly = append(r.ReadOnly, at) // kept from the agent inside a writable root
			}
		}
		return r, ""
	}
	switch tc.Policy.Type {
	case "read-only":
		return &state.SandboxRoots{}, ""
	case "workspace-write":
		r = &state.SandboxRoots{Writable: append([]string{tc.Cwd}, tc.Policy.WritableRoots...)}
		if !tc.Policy.ExcludeSlashTmp {
			r.Writable = append(r.Writable, "/tmp")
		}
		if tmpdir != "" && !tc.Policy.ExcludeTmpdirEnvVar {
			r.Writable = append(r.Writable, tmpdir)
		}
		return r, ""
	}
	return nil, ""
}

// lastTurnContext finds the last turn_context line in the end of the rollout.
func lastTurnContext(path string) (tc turnContext, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return tc, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return tc, false
	}
	start := fi.Size() - rolloutTail
	if start < 0 {
		start = 0
	}
	data, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return tc, false
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"turn_context"`)) {
			continue
		}
		var l struct {
			Type    string      `json:"type"`
			Payload turnContext `json:"payload"`
		}
		if json.Unmarshal(lines[i], &l) == nil && l.Type == "turn_context" {
			return l.Payload, true
		}
	}
	return tc, false
}
