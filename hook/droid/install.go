package droid

import (
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// StopTimeoutSeconds is the Stop hook's timeout that install writes: the Stop hook runs a
// loop's checks (--check), which it leaves 15 minutes.
const StopTimeoutSeconds = 900

// Installer installs ralph-loop into Factory Droid's hooks files: ~/.factory/hooks.json at
// user scope, .factory/hooks.json (committed) at project scope, with the slash commands
// (Markdown) in the commands directory beside them. The hooks files are keyed directly by
// event name: a Claude-style {"hooks": {…}} wrapper loads nothing, without a word.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "droid",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "hooks.json", CommandsDir: "commands", Describe: "~/.factory"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".factory/hooks.json", CommandsDir: ".factory/commands", Shared: true, Describe: ".factory/hooks.json"},
	},
	// Factory Droid 0.215.0 runs the hooks of a hooks.json with comments, and none of one
	// with a byte order mark or a trailing comma (TestSettingsSyntax).
	Syntax:      install.Syntax{Comments: true},
	Shape:       install.Nested,
	HooksAtRoot: true,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always, Kind: install.SessionEvent},
		// Fires under --input-format stream-jsonrpc and in the TUI (not in plain droid
		// exec), with a command file's expansion.
		{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// PreToolUse runs only for the tools the guard looks at.
		{Name: "PreToolUse", Matcher: "Execute|Create|Edit|ApplyPatch", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "PostToolUse", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "Stop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		{Name: "SessionEnd", Timeout: 10 * time.Second},
	},
}

// Installer returns Factory Droid's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Factory Droid's code in its installer (Installer.Host): its slash commands
// and its protocol.
type installer struct{}

var (
	_ install.CommandFiler = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

func (installer) Commands(string) []install.File {
	return install.CommandFiles(inject.EchoedCommands("droid"))
}

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Factory Droid's user configuration directory, ~/.factory.
func userDir(getenv func(string) string) (string, error) {
	return install.HomeDir(getenv, ".factory")
}
