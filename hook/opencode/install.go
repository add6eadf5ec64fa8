package opencode

import (
	_ "embed"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/internal/pluginkit"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// PluginFile is where install writes the plugin, under the scope's opencode directory.
const PluginFile = "plugins/ralph-loop.js"

// pluginMark is in every version of ralph-loop's plugin, and in no one else's file.
const pluginMark = "ralph-loop-plugin v"

//go:embed plugin.js
var pluginSource string

// installer installs ralph-loop into opencode: its plugin and its commands, in the user's
// opencode directory ($XDG_CONFIG_HOME/opencode, ~/.config/opencode) at user scope, which
// runs in every project, or in the project's .opencode (committed) at project scope. opencode
// has no hooks settings: the plugin is the hooks. A project's plugin runs the ralph-loop on
// PATH; when the user's plugin is loaded too, the project's does nothing. Built when first
// used: a hook process that does not install needs none.
var opencodeInstaller = lazy.Value[*install.Target]{Make: func() *install.Target {
	return newInstaller(Words, "opencode", ".opencode")
}}

// newInstaller is the installer of a CLI of opencode's family: its plugin and commands in
// its user directory (user scope) or in the project's directory dir (project scope).
func newInstaller(w inject.Words, cli, dir string) *install.Target {
	return &install.Target{
		Name:  w.Name,
		Title: w.Display,
		CLI:   cli,
		Host:  installer{w: w, cli: cli},
		Scopes: []install.Scope{
			{Name: install.ScopeUser, Base: install.UserBase, CommandsDir: ".", Describe: "~/.config/" + cli + "/plugins"},
			{Name: install.ScopeProject, Base: install.ProjectBase, CommandsDir: dir, Shared: true, Describe: dir + "/plugins"},
		},
		FilesKind: "plugin",
	}
}

// installer is the code in the installer of a CLI of opencode's family (its Host): its
// commands, its plugin, and the command line the plugin runs.
type installer struct {
	w   inject.Words
	cli string // its name, and its directory's in the user's configuration
}

var (
	_ install.CommandFiler = installer{}
	_ install.PluginFiler  = installer{}
	_ install.CommandMaker = installer{}
)

// UserDir is $XDG_CONFIG_HOME/<cli>, or ~/.config/<cli>.
func (i installer) UserDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, i.cli), nil
	}
	return install.HomeDir(getenv, ".config", i.cli)
}

func (i installer) Commands(string) []install.File {
	var files []install.File
	for _, cf := range inject.DescriptionCommands(i.w) {
		// The mark is the description line's start: a hint may follow it.
		files = append(files, install.File{Name: "command/" + cf.Name, Content: cf.Content, Mark: "\n" + cf.Description})
	}
	return files
}

// Files are the plugin.
func (i installer) Files(c install.CommandSpec) []install.File {
	return []install.File{{Name: PluginFile, Content: plugin(i.w, c.Binary, c.Scope, c.Portable), Mark: pluginMark}}
}

// FileBinary is the ralph-loop a plugin file runs (install.ScriptBinary).
func (installer) FileBinary(data []byte) (string, bool) {
	return install.ScriptBinary(pluginMark, data)
}

// Command is ralph-loop's hook for the host, which the plugin runs.
func (i installer) Command(c install.CommandSpec) string {
	if c.Portable {
		return "ralph-loop hook --host " + i.w.Name
	}
	return install.HookCommand(c.Binary, i.w.Name)
}

// Installer returns the host's installer.
func (h Host) Installer() *install.Target { return h.flavor().installer.Get() }

// plugin is the plugin's source for a host of opencode's family.
func plugin(w inject.Words, binary, scope string, portable bool) string {
	return pluginkit.Source(pluginSource, Host{}, w, binary, scope, portable, nil)
}
