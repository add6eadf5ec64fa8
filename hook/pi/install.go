package pi

import (
	_ "embed"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/internal/pluginkit"
	"github.com/ralph-loop/ralph-loop/inject"
)

// ExtensionFile is where install writes the extension, under the scope's pi directory
// (~/.pi/agent, or the project's .pi), where pi finds extensions by itself.
const ExtensionFile = "extensions/ralph-loop.js"

// extensionMark is in every version of ralph-loop's extension, and in no one else's file.
const extensionMark = "ralph-loop-extension v"

//go:embed extension.js
var extensionSource string

// AgentDirEnv moves pi's user directory (~/.pi/agent).
const AgentDirEnv = "PI_CODING_AGENT_DIR"

// Installer installs ralph-loop into pi: its extension, in the user's pi directory
// ($PI_CODING_AGENT_DIR, or ~/.pi/agent) at user scope, which runs in every project, or in
// the project's .pi (committed) at project scope. pi has no hooks settings: the extension is
// the hooks, and it registers the loop commands itself. A project's extension runs the
// ralph-loop on PATH; when the user's extension is loaded too, the project's does nothing.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "pi",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, CommandsDir: ".", Describe: "~/.pi/agent/extensions"},
		{Name: install.ScopeProject, Base: install.ProjectBase, CommandsDir: ".pi", Shared: true, Describe: ".pi/extensions"},
	},
	FilesKind: "extension",
	Reload:    "/reload",
}

// Installer returns pi's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is pi's code in its installer (Installer.Host): its extension, and the command
// line the extension runs.
type installer struct{}

var (
	_ install.PluginFiler  = installer{}
	_ install.CommandMaker = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

// Files are the extension.
func (installer) Files(c install.CommandSpec) []install.File {
	return []install.File{{Name: ExtensionFile, Content: Extension(c.Binary, c.Scope, c.Portable), Mark: extensionMark}}
}

// FileBinary is the ralph-loop an extension file runs (install.ScriptBinary).
func (installer) FileBinary(data []byte) (string, bool) {
	return install.ScriptBinary(extensionMark, data)
}

// Command is ralph-loop's hook for pi, which the extension runs.
func (installer) Command(c install.CommandSpec) string {
	if c.Portable {
		return "ralph-loop hook --host " + Name
	}
	return install.HookCommand(c.Binary, Name)
}

// userDir is pi's user directory: $PI_CODING_AGENT_DIR, or ~/.pi/agent.
func userDir(getenv func(string) string) (string, error) {
	if d := getenv(AgentDirEnv); d != "" {
		if strings.HasPrefix(d, "~/") {
			return install.HomeDir(getenv, d[2:])
		}
		return filepath.Abs(d)
	}
	return install.HomeDir(getenv, ".pi", "agent")
}

// settingsFiles are pi's settings files, which can load or leave out extensions: the
// guard keeps them with the extension while a loop runs.
func settingsFiles(getenv func(string) string, cwd string) []string {
	files := []string{"settings.json"}
	if filepath.IsAbs(cwd) {
		files = append(files, filepath.Join(cwd, ".pi", "settings.json"))
	}
	return files
}

// Extension is pi's extension for a scope: it runs binary, or at a shared scope the
// ralph-loop on PATH.
func Extension(binary, scope string, portable bool) string {
	descriptions := map[string]string{}
	for _, cf := range inject.CommandsFor(Name) {
		descriptions[strings.TrimSuffix(cf.Name, ".md")] = strings.TrimPrefix(cf.Description, "description: ")
	}
	return pluginkit.Source(extensionSource, Host{}, Words, binary, scope, portable, map[string]any{"__COMMANDS__": descriptions})
}
