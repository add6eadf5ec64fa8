package claude

import (
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// BlockCap is the value install gives BlockCapEnv (unless the settings set one already),
// so that loops whose agent only talks are not cut at 8 iterations.
const BlockCap = "1000"

// StopTimeoutSeconds is the Stop hook's timeout that install writes: a hook never waits
// more than a few seconds for a lock and half a second for a lagging transcript, so the
// other timeouts only bound a bug, but the Stop hook runs a loop's checks (--check), which
// it leaves 15 minutes.
const StopTimeoutSeconds = 900

// Installer installs ralph-loop into Claude Code's settings: ~/.claude/settings.json (or
// $CLAUDE_CONFIG_DIR) at user scope, .claude/settings.json (committed) at project scope,
// .claude/settings.local.json at local scope, with the slash commands beside them.
var Installer = &install.Host{
	Name:    Name,
	Title:   Words.Display,
	CLI:     "claude",
	UserDir: userDir,
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "settings.json", CommandsDir: "commands", Describe: "~/.claude"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".claude/settings.json", CommandsDir: ".claude/commands", Shared: true, Describe: ".claude/settings.json"},
		{Name: install.ScopeLocal, Base: install.ProjectBase, Settings: ".claude/settings.local.json", CommandsDir: ".claude/commands", Describe: ".claude/settings.local.json"},
	},
	Shape: install.Nested,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always},
		{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: install.IfRalph},
		// PreToolUse runs only for the tools the guard looks at.
		{Name: "PreToolUse", Matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit", Timeout: 10 * time.Second},
		{Name: "PostToolUse", Matcher: "*", Timeout: 10 * time.Second},
		{Name: "PostToolUseFailure", Matcher: "*", Timeout: 10 * time.Second},
		{Name: "Stop", Timeout: StopTimeoutSeconds * time.Second},
		{Name: "SessionEnd", Timeout: 10 * time.Second},
		// Asked before a settings change takes effect in a running session: a change that
		// would unhook a running loop is refused.
		{Name: "ConfigChange", Timeout: 10 * time.Second},
	},
	Settings: []install.Setting{{Path: []string{"env", BlockCapEnv}, Value: BlockCap}},
	Commands: func(string) []install.File {
		var files []install.File
		for _, cf := range inject.Commands() {
			files = append(files, install.File{Name: cf.Name, Content: cf.Content, Mark: "\n" + cf.Description + "\n"})
		}
		return files
	},
	Notice: install.SystemMessage,
}

// Installer returns Claude Code's installer.
func (Host) Installer() *install.Host { return Installer }

// userDir is Claude Code's user configuration directory: $CLAUDE_CONFIG_DIR, or ~/.claude.
func userDir(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	return install.HomeDir(getenv, ".claude")
}
