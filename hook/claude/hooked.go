package claude

import "strings"

// hooked reports whether Claude Code, with its settings files as they are now on disk,
// still runs ralph-loop's hooks for a session in project: Claude Code reads a changed
// settings file into the running session about a second later (seen on 2.1.330), unless a
// ConfigChange hook refuses it. disableAllHooks in any of them, or ralph-loop's Stop hook
// gone from all of them (and no ralph-loop plugin enabled), unhooks it.
func hooked(getenv func(string) string, project string) (bool, string) {
	plugin := false
	for _, sc := range Installer.Scopes {
		path := Installer.SettingsFile(sc.Name, project, getenv)
		if path == "" {
			continue
		}
		var s struct {
			DisableAllHooks bool            `json:"disableAllHooks"`
			EnabledPlugins  map[string]bool `json:"enabledPlugins"`
		}
		if !readSettings(path, &s) {
			continue // Claude Code refuses such a file and keeps what it had
		}
		if s.DisableAllHooks {
			return false, "it sets disableAllHooks in " + path
		}
		for name, on := range s.EnabledPlugins {
			if on && strings.HasPrefix(name, "ralph-loop@") {
				plugin = true
			}
		}
	}
	if _, ok := Installer.HookTimeout("Stop", project, getenv); ok || plugin {
		return true, ""
	}
	return false, "ralph-loop's Stop hook would be in none of Claude Code's settings files any more"
}
