package qwen

import (
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// InstallBlockCap is the cap install sets (stopHookBlockingCap, unless the settings set one
// already): Qwen Code's maximum, so that a loop can run up to 100 iterations in one turn.
const InstallBlockCap = MaxBlockCap

// StopTimeoutSeconds is the Stop hook's timeout that install writes: the Stop hook runs a
// loop's checks (--check), which it leaves 15 minutes. Qwen Code reads 1000 or more as
// milliseconds, so a timeout in seconds must stay below 1000.
const StopTimeoutSeconds = 900

// Installer installs ralph-loop into Qwen Code's settings: ~/.qwen/settings.json (or
// $QWEN_HOME) at user scope, .qwen/settings.json (committed) at project scope, with the
// slash commands (Markdown) in the commands directory beside them. Project hooks load only
// in a trusted folder; folder trust is off by default in Qwen Code.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "qwen",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "settings.json", CommandsDir: "commands", Describe: "~/.qwen"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".qwen/settings.json", CommandsDir: ".qwen/commands", Shared: true, Describe: ".qwen/settings.json"},
	},
	// Its settings are read through stripJsonComments.
	// Qwen Code 0.24.4 reads comments and a byte order mark, and no trailing comma
	// (TestSettingsSyntax).
	Syntax: install.Syntax{Comments: true, BOM: true},
	Shape:  install.Nested,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always, Kind: install.SessionEvent},
		// Fired before every model request; the hook arms only on the user's own prompt.
		{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// Fired when a command file's command is expanded, with its arguments as typed: the
		// loop commands arm and cancel here (a long paste reaches UserPromptSubmit only as
		// "[Pasted Content N chars]").
		{Name: ExpansionEvent, Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// PreToolUse runs only for the tools the guard looks at (an exact-name list).
		{Name: "PreToolUse", Matcher: "run_shell_command|write_file|edit|notebook_edit", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "PostToolUse", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "PostToolUseFailure", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "Stop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		// Instead of Stop when an API error or the loop detector ended the turn: the loop
		// pauses.
		{Name: "StopFailure", Timeout: 10 * time.Second},
		{Name: "SessionEnd", Timeout: 10 * time.Second},
	},
	Settings: []install.Setting{{Path: []string{BlockCapSetting}, Value: InstallBlockCap}},
}

// Installer returns Qwen Code's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Qwen Code's code in its installer (Installer.Host): its slash commands and
// its protocol.
type installer struct{}

var (
	_ install.CommandFiler = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

func (installer) Commands(string) []install.File {
	return install.CommandFiles(inject.CommandsFor(Name))
}

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Qwen Code's user configuration directory: $QWEN_HOME, or ~/.qwen.
func userDir(getenv func(string) string) (string, error) {
	return install.DirFromEnv(getenv, "QWEN_HOME", ".qwen")
}
