package claude

import (
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

func sandboxState(getenv func(string) string, project string) string {
	st, _ := SandboxState(getenv, project)
	return st
}

// sandboxSettings are Claude Code's sandbox settings, merged over its settings files: a
// later scope's override an earlier one's, but an allowUnsandboxedCommands: false at user or
// managed scope holds whatever the project says (noWayOut).
type sandboxSettings struct {
	enabled, wayOut, failIfUnavailable *bool
	noWayOut, excluded                 bool
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

// SandboxReport reports, for doctor, Claude Code's sandbox for the agent's shell, the best
// protection of ralph-loop's files: on, off (and how to turn it on), or on in the
// settings but unable to start here, which is a problem: Claude Code then runs every command
// outside it, or refuses to start.
func (Host) SandboxReport(r install.Report, getenv func(string) string, dir string) {
	st, enabled := SandboxState(getenv, dir)
	if missing := SandboxMissing(); enabled && missing != "" {
		r.Problem("%s: its sandbox is on in its settings, but %s: until then it runs the agent's commands outside it, or does not start (failIfUnavailable)", Installer.Title, missing)
		return
	}
	r.Say("%s", inject.DoctorSandbox(st, Words))
}
