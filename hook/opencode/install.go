package opencode

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// PluginFile is where install writes the plugin, under the scope's opencode directory.
const PluginFile = "plugins/ralph-loop.js"

// pluginMark is in every version of ralph-loop's plugin, and in no one else's file.
const pluginMark = "ralph-loop-plugin v"

//go:embed plugin.js
var pluginSource string

// Installer installs ralph-loop into opencode: its plugin and its commands, in the user's
// opencode directory ($XDG_CONFIG_HOME/opencode, ~/.config/opencode) at user scope, which
// runs in every project, or in the project's .opencode (committed) at project scope. opencode
// has no hooks settings: the plugin is the hooks. A project's plugin runs the ralph-loop on
// PATH; when the user's plugin is loaded too, the project's does nothing.
var Installer = &install.Host{
	Name:    Name,
	Title:   Words.Display,
	CLI:     "opencode",
	UserDir: userDir,
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, CommandsDir: ".", Describe: "~/.config/opencode/plugins"},
		{Name: install.ScopeProject, Base: install.ProjectBase, CommandsDir: ".opencode", Shared: true, Describe: ".opencode/plugins"},
	},
	Commands: func(string) []install.File {
		var files []install.File
		for _, cf := range inject.DescriptionCommands("opencode") {
			files = append(files, install.File{Name: "command/" + cf.Name, Content: cf.Content, Mark: "\n" + cf.Description + "\n"})
		}
		return files
	},
	Files: func(c install.CommandSpec) []install.File {
		return []install.File{{Name: PluginFile, Content: Plugin(c.Binary, c.Scope, c.Portable), Mark: pluginMark}}
	},
	Command: func(c install.CommandSpec) string {
		if c.Portable {
			return "ralph-loop hook --host " + Name
		}
		return install.HookCommand(c.Binary, Name)
	},
}

// Installer returns opencode's installer.
func (Host) Installer() *install.Host { return Installer }

// Plugin is the plugin's source for a scope: it runs binary, or at a shared scope the
// ralph-loop on PATH.
func Plugin(binary, scope string, portable bool) string {
	if portable {
		binary = "ralph-loop"
	}
	js := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return strings.NewReplacer(
		"__BINARY__", js(binary),
		"__SCOPE__", js(scope),
		"__MISSING__", js(inject.NotInstalledHere(Words.Display)),
	).Replace(pluginSource)
}

// userDir is opencode's user configuration directory: $XDG_CONFIG_HOME/opencode, or
// ~/.config/opencode.
func userDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "opencode"), nil
	}
	return install.HomeDir(getenv, ".config", "opencode")
}
