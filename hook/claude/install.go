package claude

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

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
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "claude",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "settings.json", CommandsDir: "commands", Describe: "~/.claude"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".claude/settings.json", CommandsDir: ".claude/commands", Shared: true, Describe: ".claude/settings.json"},
		{Name: install.ScopeLocal, Base: install.ProjectBase, Settings: ".claude/settings.local.json", CommandsDir: ".claude/commands", Describe: ".claude/settings.local.json"},
	},
	// Claude Code 2.1.330 runs the hooks of a settings file that starts with a byte order
	// mark, and none of one with comments or a trailing comma (TestSettingsSyntax).
	Syntax: install.Syntax{BOM: true},
	Shape:  install.Nested,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always, Kind: install.SessionEvent},
		{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// PreToolUse runs only for the tools the guard looks at.
		{Name: "PreToolUse", Matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		// The shell lines of skills and commands, which Claude Code runs without PreToolUse.
		{Name: "PreSkillShellCommand", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		// PostToolUse only logs the call, for the stop to count: Claude Code need not wait
		// for it (a stop that comes before it waits where the call could matter:
		// Transcript.ToolLogLags). PostToolUseFailure may end the loop (an interrupted
		// call), so it stays in line.
		{Name: "PostToolUse", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent, Async: true},
		{Name: "PostToolUseFailure", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "Stop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		// Instead of Stop when the model's API refused the turn (a rate limit): the loop
		// pauses.
		{Name: "StopFailure", Timeout: 10 * time.Second},
		{Name: "SessionEnd", Timeout: 10 * time.Second},
		// Asked before a settings change takes effect in a running session: a change that
		// would unhook a running loop is refused.
		{Name: "ConfigChange", Timeout: 10 * time.Second, Kind: install.ConfigEvent},
	},
	Settings:    []install.Setting{{Path: []string{"env", BlockCapEnv}, Value: BlockCap}},
	SandboxSays: inject.SandboxSays,
	PluginRoot:  "CLAUDE_PLUGIN_ROOT",
}

// Installer returns Claude Code's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Claude Code's code in its installer (Installer.Host): its slash commands, the
// local settings kept out of git, its sandbox, and its protocol.
type installer struct{}

var (
	_ install.CommandFiler = installer{}
	_ install.Extender     = installer{}
	_ install.Sandboxer    = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

func (installer) Commands(string) []install.File {
	return install.CommandFiles(inject.CommandsFor("claude"))
}

// Extra keeps the local settings out of git (keepLocalOut).
func (installer) Extra(x install.ExtraInput) ([]install.Change, error) { return keepLocalOut(x) }

// Sandbox is what install --sandbox writes (sandboxSpec).
func (installer) Sandbox(x install.SandboxInput) install.Sandbox { return sandboxSpec(x) }

func (installer) SandboxOn(getenv func(string) string, project string) bool {
	return sandboxOn(getenv, project)
}

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Claude Code's user configuration directory: $CLAUDE_CONFIG_DIR, or ~/.claude.
func userDir(getenv func(string) string) (string, error) {
	return install.DirFromEnv(getenv, "CLAUDE_CONFIG_DIR", ".claude")
}

// excludeBlock is what install adds to the clone's info/exclude at local scope, and
// uninstall takes out again: prefix is the project's directory in the repository.
func excludeBlock(prefix string) string {
	return "# ralph-loop install --scope local: Claude Code's local settings stay out of git\n/" + prefix + ".claude/settings.local.json\n"
}

// keepLocalOut keeps .claude/settings.local.json, which names this machine's path of
// ralph-loop, out of git, as Claude Code means it to be: in the clone's own
// .git/info/exclude (never committed, unlike .gitignore), unless git ignores it already.
func keepLocalOut(x install.ExtraInput) ([]install.Change, error) {
	if x.Scope.Name != install.ScopeLocal || x.ProjectDir == "" {
		return nil, nil
	}
	path, prefix := excludeFile(x.ProjectDir)
	if path == "" {
		return nil, nil // not a git repository
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err != nil {
		old = nil
	}
	block := []byte(excludeBlock(prefix))
	c := install.Change{Path: path, Old: old, Perm: 0o644, Action: "unchanged"}
	has := bytes.Contains(old, block)
	switch {
	case x.Install && !has && ignored(x.ProjectDir):
		c.Note = "git ignores .claude/settings.local.json already"
	case x.Install && !has:
		content := append([]byte(nil), old...)
		if len(content) > 0 && content[len(content)-1] != '\n' {
			content = append(content, '\n')
		}
		c.Content = append(content, block...)
		c.Action, c.Backup, c.Note = "update", "yes", "keeps .claude/settings.local.json out of git (this clone only)"
		if old == nil {
			c.Action, c.Backup = "create", ""
		}
	case !x.Install && has:
		i := bytes.LastIndex(old, block)
		c.Content = append(append([]byte(nil), old[:i]...), old[i+len(block):]...)
		c.Action, c.Backup = "update", "yes"
		if len(c.Content) == 0 && x.Record != nil && slices.Contains(x.Record.Created, path) {
			c.Action, c.Content = "remove", nil
		}
	}
	return []install.Change{c}, nil
}

// excludeFile is the info/exclude file of the git repository dir is in ("" if none), and
// dir's path in it ("" or "sub/dir/").
func excludeFile(dir string) (path, prefix string) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude", "--show-prefix").Output()
	if err == nil {
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) >= 1 && filepath.IsAbs(lines[0]) {
			if len(lines) > 1 {
				prefix = lines[1]
			}
			return lines[0], prefix
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(dir, ".git", "info", "exclude"), ""
	}
	return "", ""
}

// ignored reports whether git ignores the local settings file in dir already.
func ignored(dir string) bool {
	return exec.Command("git", "-C", dir, "check-ignore", "-q", ".claude/settings.local.json").Run() == nil
}
