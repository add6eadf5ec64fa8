package claude

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Claude Code's sandbox runs each Bash call of the agent under bubblewrap (Linux, with socat
// for its network proxy) or Seatbelt (macOS): the file system is read-only but for the
// project and the session's temporary directory, and the sandbox's denyWrite list (with
// the paths of Edit deny rules) is read-only even there (seen on 2.1.330). Its way out is
// the Bash tool's dangerouslyDisableSandbox, which allowUnsandboxedCommands: false takes
// away; excludedCommands run outside it; and without its packages it runs every command
// unsandboxed, unless failIfUnavailable stops Claude Code at its start.

// SandboxPrograms are what Claude Code's sandbox runs on this system ("" for a system it
// has no sandbox on), and how to get them.
func SandboxPrograms() (programs []string, fix string) {
	switch runtime.GOOS {
	case "linux":
		return []string{"bwrap", "socat"}, "install the bubblewrap and socat packages (apt-get install bubblewrap socat, dnf install bubblewrap socat, pacman -S bubblewrap socat)"
	case "darwin":
		return []string{"sandbox-exec"}, "sandbox-exec is part of macOS"
	}
	return nil, ""
}

// SandboxMissing says why Claude Code's sandbox cannot start on this machine ("" when its
// programs are there).
func SandboxMissing() string {
	progs, fix := SandboxPrograms()
	if progs == nil {
		return inject.SandboxUnsupported(runtime.GOOS)
	}
	var missing []string
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return inject.SandboxMissing(missing, fix)
}

// SandboxState is Claude Code's sandbox for the agent's shell in project, as its settings
// set it: state.SandboxOn when every Bash call runs in it with no way out, else why not.
// enabled: the settings turn it on (whether or not it can start here).
func SandboxState(getenv func(string) string, project string) (st string, enabled bool) {
	sb := readSandbox(getenv, project)
	switch {
	case sb.enabled == nil || !*sb.enabled:
		return inject.SandboxOff, false
	case !sb.noWayOut && (sb.wayOut == nil || *sb.wayOut):
		return inject.SandboxWayOut, true
	case sb.excluded:
		return inject.SandboxExcluded, true
	}
	if missing := SandboxMissing(); missing != "" && (sb.failIfUnavailable == nil || !*sb.failIfUnavailable) {
		return missing, true
	}
	return state.SandboxOn, true
}

// sandboxState is the session's sandbox as Facts.Sandbox says it: on only where none of
// the trusted paths, nor Claude Code's settings files and transcripts, lies where its
// sandbox lets the agent write; and what it lets it write.
func sandboxState(getenv func(string) string, project string, trusted []string) (string, *state.SandboxRoots) {
	st, enabled := SandboxState(getenv, project)
	if !enabled {
		return st, nil
	}
	r := Roots(getenv, project)
	if st != state.SandboxOn {
		return st, r
	}
	kept := append([]string{}, trusted...)
	if dir, err := userDir(getenv); err == nil {
		kept = append(kept, filepath.Join(dir, "settings.json"), filepath.Join(dir, "projects"))
	}
	if project != "" {
		kept = append(kept, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
	}
	if p := r.Exposes(kept...); p != "" {
		return inject.SandboxWritable(p), r
	}
	return st, r
}

// sandboxSettings are Claude Code's sandbox settings, merged over its settings files: a
// later scope's override an earlier one's, but an allowUnsandboxedCommands: false at user or
// managed scope holds whatever the project says (noWayOut).
type sandboxSettings struct {
	enabled, wayOut, failIfUnavailable *bool
	noWayOut, excluded                 bool
	// writable and readOnly are the paths the settings add to what the sandbox lets the
	// agent's shell write (sandbox.filesystem.allowWrite, permissions.additionalDirectories)
	// and keep it from writing (sandbox.filesystem.denyWrite, the paths of Edit deny rules).
	writable, readOnly []string
}

func readSandbox(getenv func(string) string, project string) sandboxSettings {
	var sb sandboxSettings
	files, _ := settingsFiles(getenv, project, managedDir())
	for _, f := range files {
		data, err := state.ReadRegular(f.path, settingsLimit)
		if err != nil {
			continue
		}
		v, _, err := parseJS(data)
		if err != nil {
			continue // dropped by Claude Code
		}
		root, _ := v.(map[string]any)
		sb.addPaths(root, f, getenv, project)
		m, _ := root["sandbox"].(map[string]any)
		if m == nil {
			continue
		}
		if b, ok := m["enabled"].(bool); ok {
			sb.enabled = &b
		}
		if b, ok := m["allowUnsandboxedCommands"].(bool); ok {
			sb.wayOut = &b
			if !b && (f.scope == install.ScopeUser || f.scope == scopeManaged) {
				sb.noWayOut = true
			}
		}
		if b, ok := m["failIfUnavailable"].(bool); ok {
			sb.failIfUnavailable = &b
		}
		if l, ok := m["excludedCommands"].([]any); ok && len(l) > 0 {
			sb.excluded = true
		}
	}
	return sb
}

// addPaths adds the paths a settings file f gives the sandbox to write, and takes away.
// A path the rules of Claude Code's do not make certain counts only where it keeps more
// from the agent: a relative one in a deny list is taken both from the project and from
// the settings file's directory, and one in a grant is not taken.
func (sb *sandboxSettings) addPaths(root map[string]any, f settingsFile, getenv func(string) string, project string) {
	home := getenv("HOME")
	strs := func(v any) []string {
		l, _ := v.([]any)
		var out []string
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	// paths resolves a path of the settings: "//abs" and "/abs" (absolute in the sandbox's
	// lists; "/p" in a permission rule is relative to the settings file), "~/p", and a
	// relative one, without globs but a trailing "/**".
	paths := func(p string, rule, grant bool) []string {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "/**"), "**")
		if p == "" || strings.ContainsAny(p, "*?[{") {
			return nil
		}
		switch {
		case strings.HasPrefix(p, "//"):
			return []string{filepath.Clean(p[1:])}
		case strings.HasPrefix(p, "~/"):
			if home == "" {
				return nil
			}
			return []string{filepath.Join(home, p[2:])}
		case strings.HasPrefix(p, "/") && !rule:
			return []string{filepath.Clean(p)}
		case grant:
			return nil
		}
		base := []string{filepath.Dir(filepath.Dir(f.path))} // the project of .claude/settings.json; ~ for the user's
		if project != "" {
			base = append(base, project)
		}
		var out []string
		for _, b := range base {
			out = append(out, filepath.Join(b, strings.TrimPrefix(p, "/")))
		}
		return out
	}
	if m, _ := root["sandbox"].(map[string]any); m != nil {
		if fsys, _ := m["filesystem"].(map[string]any); fsys != nil {
			for _, p := range strs(fsys["allowWrite"]) {
				sb.writable = append(sb.writable, paths(p, false, true)...)
			}
			for _, p := range strs(fsys["denyWrite"]) {
				sb.readOnly = append(sb.readOnly, paths(p, false, false)...)
			}
		}
	}
	if perms, _ := root["permissions"].(map[string]any); perms != nil {
		for _, p := range strs(perms["additionalDirectories"]) {
			sb.writable = append(sb.writable, paths(p, false, true)...)
		}
		for _, r := range strs(perms["deny"]) {
			for _, tool := range []string{"Edit(", "Write("} {
				if inner, ok := strings.CutPrefix(r, tool); ok && strings.HasSuffix(inner, ")") {
					sb.readOnly = append(sb.readOnly, paths(strings.TrimSuffix(inner, ")"), true, false)...)
				}
			}
		}
	}
}

// keptByClaude are the paths of a project Claude Code's sandbox keeps read-only itself
// (seen on 2.1.332, bubblewrap's mounts), with .git/hooks and .git/config, which it keeps
// unless allowGitConfig.
var keptByClaude = []string{".claude", ".mcp.json", ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc",
	".zprofile", ".profile", ".ripgreprc", ".vscode", ".idea", ".git/hooks", ".git/config"}

// Roots are what Claude Code's sandbox lets the agent's shell write in project, as its
// settings say (seen on 2.1.332, bubblewrap's mounts): the project, its temporary
// directory ($CLAUDE_CODE_TMPDIR, else claude-<uid> in $TMPDIR or /tmp), /dev/shm, the npm
// log directory, and what the settings add; read-only inside them, what the settings
// deny and what it keeps itself.
func Roots(getenv func(string) string, project string) *state.SandboxRoots {
	return roots(getenv, project, readSandbox(getenv, project))
}

func roots(getenv func(string) string, project string, sb sandboxSettings) *state.SandboxRoots {
	tmp := getenv("CLAUDE_CODE_TMPDIR")
	if tmp == "" {
		base := getenv("TMPDIR")
		if base == "" {
			base = "/tmp"
		}
		tmp = filepath.Join(base, fmt.Sprintf("claude-%d", os.Getuid()))
	}
	r := &state.SandboxRoots{Writable: []string{tmp, "/dev/shm"}}
	if project != "" {
		r.Writable = append([]string{project}, r.Writable...)
		for _, k := range keptByClaude {
			r.ReadOnly = append(r.ReadOnly, filepath.Join(project, filepath.FromSlash(k)))
		}
	}
	if home := getenv("HOME"); home != "" {
		r.Writable = append(r.Writable, filepath.Join(home, ".npm", "_logs"))
	}
	r.Writable = append(r.Writable, sb.writable...)
	r.ReadOnly = append(r.ReadOnly, sb.readOnly...)
	return r
}

// sandboxSpec is what install --sandbox writes at a scope: the sandbox on, with no way out
// and no start without it, and ralph-loop's files (its state, its keep, the binary the
// hooks run, Claude Code's settings files and session transcripts) on the sandbox's write
// deny list and denied to Claude Code's file tools. Outside the project and the session's
// temporary directory the sandbox writes nothing anyway; the entries keep those files out
// of reach wherever they are (a state directory inside the project, a binary in a
// directory the user lets the sandbox write). A shared scope names them only as they are
// on every machine: under the home directory (~/...) or in the project.
func sandboxSpec(x install.SandboxInput) install.Sandbox {
	sb := install.Sandbox{On: []install.Setting{
		{Path: []string{"sandbox", "enabled"}, Value: true},
		{Path: []string{"sandbox", "allowUnsandboxedCommands"}, Value: false},
		{Path: []string{"sandbox", "failIfUnavailable"}, Value: true},
	}}
	home := x.Getenv("HOME")
	add := func(path string, dir bool) {
		if path == "" {
			return
		}
		path = filepath.Clean(path)
		write, rule := path, "/"+filepath.ToSlash(path) // "//abs": an absolute path in a rule
		if x.Scope.Shared {
			if rel, ok := under(path, x.ProjectDir); ok {
				write, rule = rel, "/"+rel // both relative to the project, the settings' root
			} else if rel, ok := under(path, home); ok {
				write, rule = "~/"+rel, "~/"+rel
			} else {
				sb.Notes = append(sb.Notes, inject.SandboxNotShared(path))
				return
			}
		}
		if dir {
			rule += "/**"
		}
		sb.Deny = append(sb.Deny,
			install.Entry{Path: []string{"sandbox", "filesystem", "denyWrite"}, Value: write},
			install.Entry{Path: []string{"permissions", "deny"}, Value: "Edit(" + rule + ")"})
	}
	add(x.StateDir, true)
	add(x.KeepDir, true)
	if x.Binary != "" {
		add(x.Binary, false)
	}
	if x.UserDir != "" {
		add(filepath.Join(x.UserDir, "settings.json"), false)
		add(filepath.Join(x.UserDir, "projects"), true)
	}
	if x.ProjectDir != "" {
		add(filepath.Join(x.ProjectDir, ".claude", "settings.json"), false)
		add(filepath.Join(x.ProjectDir, ".claude", "settings.local.json"), false)
	}
	return sb
}

// under returns path relative to dir, with forward slashes, when it is inside it.
func under(path, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// sandboxOn reports whether Claude Code's sandbox is on in its settings for the project.
func sandboxOn(getenv func(string) string, project string) bool {
	_, enabled := SandboxState(getenv, project)
	return enabled
}

// SandboxReport reports, for doctor, Claude Code's sandbox for the agent's shell, the
// strongest wall around ralph-loop's files: on, off (and how to turn it on), or on in the
// settings but unable to start here, which is a problem: Claude Code then runs every command
// outside it, or refuses to start.
func (Host) SandboxReport(r install.Report, getenv func(string) string, dir string) {
	st, enabled := SandboxState(getenv, dir)
	if missing := SandboxMissing(); enabled && missing != "" {
		r.Problem("%s: its sandbox is on in its settings, but %s: until then it runs the agent's commands outside it, or does not start (failIfUnavailable)", Installer.Title, missing)
		return
	}
	switch st {
	case state.SandboxOn:
		r.Say("sandbox: on: the agent's commands cannot write ralph-loop's files")
	default:
		r.Say("sandbox: %s: the agent's commands are kept from ralph-loop's files by the process table and the guard only (ralph-loop install --sandbox turns it on)", st)
	}
}
