package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/state"
)

// What ralph-loop doctor, run from a terminal, needs to know of Claude Code that a hook is
// given: the environment Claude Code passes on, and the plugins it runs.

// settingsOrder are the scopes whose settings Claude Code merges, the later over the earlier.
var settingsOrder = []string{install.ScopeUser, install.ScopeProject, install.ScopeLocal}

// decodeSettings decodes a settings file of Claude Code's into v (false: none, or not JSON).
// Claude Code reads a file that starts with a byte order mark (2.1.330).
func decodeSettings(path string, v any) bool {
	if path == "" {
		return false
	}
	data, err := state.ReadRegular(path, 16<<20)
	if err != nil {
		return false
	}
	return json.Unmarshal(bytes.TrimPrefix(data, []byte("\uFEFF")), v) == nil
}

// HookEnv is the environment Claude Code gives its hooks in project: getenv's, with the
// "env" of its settings files over it, the local settings' over the project's over the
// user's. Seen on 2.1.330 (cmd/internal/e2e/claude TestDoctorBlockCap): a value in the
// settings wins over the one in the environment claude starts in.
func (Host) HookEnv(getenv func(string) string, project string) func(string) string {
	env := map[string]string{}
	for _, scope := range settingsOrder {
		var s struct {
			Env map[string]json.RawMessage `json:"env"`
		}
		if !decodeSettings(Installer.SettingsFile(scope, project, getenv), &s) {
			continue
		}
		for k, raw := range s.Env {
			var v any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if dec.Decode(&v) != nil {
				continue
			}
			switch x := v.(type) {
			case string:
				env[k] = x
			case json.Number:
				env[k] = x.String()
			}
		}
	}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return getenv(k)
	}
}

// Plugins lists ralph-loop's plugins that Claude Code runs in project: installed (its
// plugins/installed_plugins.json, for the user or for this project) and enabled
// (enabledPlugins in the settings, the local settings' word over the project's over the
// user's).
func (Host) Plugins(getenv func(string) string, project string) []install.Plugin {
	dir, err := userDir(getenv)
	if err != nil {
		return nil
	}
	var installed struct {
		Plugins map[string][]struct {
			Scope       string `json:"scope"`
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
			ProjectPath string `json:"projectPath"`
		} `json:"plugins"`
	}
	if !decodeSettings(filepath.Join(dir, "plugins", "installed_plugins.json"), &installed) {
		return nil
	}
	enabled := map[string]bool{}
	for _, scope := range settingsOrder {
		var s struct {
			EnabledPlugins map[string]bool `json:"enabledPlugins"`
		}
		if decodeSettings(Installer.SettingsFile(scope, project, getenv), &s) {
			for id, on := range s.EnabledPlugins {
				enabled[id] = on
			}
		}
	}
	var out []install.Plugin
	for id, list := range installed.Plugins {
		if !strings.HasPrefix(id, "ralph-loop@") || !enabled[id] {
			continue
		}
		for _, p := range list {
			if p.Scope != install.ScopeUser && (project == "" || filepath.Clean(p.ProjectPath) != filepath.Clean(project)) {
				continue
			}
			pl := install.Plugin{ID: id, Scope: p.Scope, Version: p.Version, Hooks: filepath.Join(p.InstallPath, "hooks", "hooks.json")}
			if pl.Version != PluginVersion() {
				pl.Update = "this ralph-loop comes with the plugin's version " + PluginVersion() + ": claude plugin marketplace update, then claude plugin update " + id + ", brings it"
			}
			out = append(out, pl)
		}
	}
	return out
}
