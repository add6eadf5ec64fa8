package claude

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
	return sandboxOf(readSandbox(getenv, project))
}

func sandboxOf(sb sandboxSettings) (st string, enabled bool) {
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

// sandboxState is the session's sandbox as Facts.Sandbox says it, and what it lets the
// agent's shell write: on only where none of the trusted paths, nor the files of the
// project and of Claude Code's that a process outside the sandbox later runs or trusts
// (keptFiles), lies where the sandbox lets the agent's shell write, and each is denied to
// Claude Code's file tools, which run outside the sandbox, by an Edit deny rule.
func sandboxState(getenv func(string) string, project string, trusted []string) (string, *state.SandboxRoots) {
	sb := readSandbox(getenv, project)
	st, enabled := sandboxOf(sb)
	if !enabled {
		return st, nil
	}
	r := roots(getenv, project, sb)
	if st != state.SandboxOn {
		return st, r
	}
	kept := append(append([]string{}, trusted...), keptFiles(getenv, project)...)
	if p := r.Exposes(kept...); p != "" {
		return inject.SandboxWritable(p), r
	}
	for _, p := range kept {
		if !slices.ContainsFunc(sb.editDeny, func(d string) bool { return within(p, d) }) {
			return inject.SandboxToolsWrite(p), r
		}
	}
	return st, r
}

// keptFiles are the files of Claude Code's and of the project whose content a process
// outside the sandbox later runs or trusts: Claude Code's settings (the user's and the
// project's) and its transcripts; ralph-loop's project settings (.ralph/settings.json,
// settings.local.json); the project's git config and hooks, which the user's git runs.
func keptFiles(getenv func(string) string, project string) []string {
	var kept []string
	if dir, err := userDir(getenv); err == nil {
		kept = append(kept, filepath.Join(dir, "settings.json"), filepath.Join(dir, "projects"))
	}
	if project != "" {
		for _, f := range ProjectKept {
			kept = append(kept, filepath.Join(project, filepath.FromSlash(strings.TrimSuffix(f, "/**"))))
		}
	}
	return kept
}

// ProjectKept are the files of a project that install --sandbox denies to Claude Code's
// file tools in every project, as Edit deny rules relative to the session's directory
// (seen on 2.1.332: such a rule in the user's settings keeps the Write tool, and the
// sandboxed Bash, from that file of whatever project the session runs in).
var ProjectKept = []string{".claude/settings.json", ".claude/settings.local.json", ".ralph/settings.json", ".ralph/settings.local.json",
	".git/config", ".git/hooks/**"}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sandboxSettings are Claude Code's sandbox settings, merged over its settings files: a
// later scope's override an earlier one's, but an allowUnsandboxedCommands: false at user or
// managed scope holds whatever the project says (noWayOut).
type sandboxSettings struct {
	enabled, wayOut, failIfUnavailable *bool
	noWayOut, excluded                 bool
	// writable and readOnly are the paths the settings add to what the sandbox lets the
	// agent's shell write (sandbox.filesystem.allowWrite, permissions.additionalDirectories)
	// and keep it from writing (sandbox.filesystem.denyWrite, the paths of Edit deny rules);
	// editDeny those of the Edit deny rules, which keep Claude Code's file tools too.
	writable, readOnly, editDeny []string
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

// addPaths adds the paths a settings file f gives the sandbox to write, and takes away,
// as Claude Code reads them (seen on 2.1.332, user settings): in the sandbox's lists only
// absolute paths ("/abs", "//abs") and "~/p" count (a relative one, or one with a glob,
// keeps nothing: Bash wrote there); in a permission rule "//abs" is absolute, "~/p" in the
// home, "/p" relative to the settings file's directory (~/.claude for the user's; the
// project for a project's), and a plain "p" (or "./p") relative to the session's
// directory, the project: such an Edit deny rule keeps both Claude Code's file tools and
// its sandboxed Bash from the file, in every project. A trailing "/**" names the
// directory; any other glob is not read (it keeps nothing here).
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
	path := func(p string, rule bool) string {
		p = strings.TrimSuffix(p, "/**")
		if p == "" || strings.ContainsAny(p, "*?[{") {
			return ""
		}
		switch {
		case strings.HasPrefix(p, "//"):
			return filepath.Clean(p[1:])
		case strings.HasPrefix(p, "~/"):
			if home == "" {
				return ""
			}
			return filepath.Join(home, p[2:])
		case !rule && strings.HasPrefix(p, "/"):
			return filepath.Clean(p)
		case !rule:
			return ""
		case strings.HasPrefix(p, "/"):
			dir := filepath.Dir(f.path)
			if f.scope != install.ScopeUser && f.scope != scopeManaged {
				dir = filepath.Dir(dir) // the project of .claude/settings.json
			}
			return filepath.Join(dir, p[1:])
		case project == "":
			return ""
		}
		return filepath.Join(project, p)
	}
	add := func(to *[]string, p string) {
		if p != "" {
			*to = append(*to, p)
		}
	}
	if m, _ := root["sandbox"].(map[string]any); m != nil {
		if fsys, _ := m["filesystem"].(map[string]any); fsys != nil {
			for _, p := range strs(fsys["allowWrite"]) {
				add(&sb.writable, path(p, false))
			}
			for _, p := range strs(fsys["denyWrite"]) {
				add(&sb.readOnly, path(p, false))
			}
		}
	}
	if perms, _ := root["permissions"].(map[string]any); perms != nil {
		for _, p := range strs(perms["additionalDirectories"]) {
			add(&sb.writable, path(p, true))
		}
		for _, r := range strs(perms["deny"]) {
			for _, tool := range []string{"Edit(", "Write("} {
				if inner, ok := strings.CutPrefix(r, tool); ok && strings.HasSuffix(inner, ")") {
					p := path(strings.TrimSuffix(inner, ")"), true)
					add(&sb.readOnly, p)
					add(&sb.editDeny, p)
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

// roots are what Claude Code's sandbox lets the agent's shell write in project, as its
// settings sb say (seen on 2.1.332, bubblewrap's mounts): the project, its temporary
// directory ($CLAUDE_CODE_TMPDIR, else claude-<uid> in $TMPDIR or /tmp), /dev/shm, the npm
// log directory, and what the settings add; read-only inside them, what the settings
// deny and what it keeps itself.
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
// hooks run, Claude Code's user settings and session transcripts) on the sandbox's write
// deny list and denied to Claude Code's file tools; and the files of every project that a
// process outside the sandbox later runs or trusts (ProjectKept) denied to them too.
// Outside the project and the session's temporary directory the sandbox writes nothing
// anyway; the entries keep those files out of reach wherever they are (a state directory
// inside the project, a binary in a directory the user lets the sandbox write). A shared
// scope names them only as they are on every machine: under the home directory (~/...)
// or in the project.
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
	if x.ConfigDir != "" {
		add(x.ConfigDir, true)
	}
	if x.Binary != "" {
		add(x.Binary, false)
	}
	if x.UserDir != "" {
		add(filepath.Join(x.UserDir, "settings.json"), false)
		add(filepath.Join(x.UserDir, "projects"), true)
	}
	// The project's files, in whatever project the session runs: a rule relative to the
	// session's directory (the sandbox's own list reads no relative path; Claude Code keeps
	// .claude and .git read-only to its Bash itself, and an Edit deny rule keeps the rest).
	for _, f := range ProjectKept {
		sb.Deny = append(sb.Deny, install.Entry{Path: []string{"permissions", "deny"}, Value: "Edit(" + f + ")"})
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

// SandboxReport reports, for doctor, Claude Code's sandbox for the agent's shell, the best
// protection of ralph-loop's files: on, off (and how to turn it on), or on in the
// settings but unable to start here, which is a problem: Claude Code then runs every command
// outside it, or refuses to start.
func (Host) SandboxReport(r install.Report, getenv func(string) string, dir string, trusted []string) {
	st, _ := sandboxState(getenv, dir, trusted)
	_, enabled := SandboxState(getenv, dir)
	if missing := SandboxMissing(); enabled && missing != "" {
		r.Problem("%s: its sandbox is on in its settings, but %s: until then it runs the agent's commands outside it, or does not start (failIfUnavailable)", Installer.Title, missing)
		return
	}
	r.Say("%s", inject.DoctorSandbox(st, Words))
}
