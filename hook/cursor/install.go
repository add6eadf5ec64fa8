package cursor

import (
	"os"
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/install"
)

// StopTimeoutSeconds is the stop hook's timeout that install writes: the stop hook runs a
// loop's checks (--check), which it leaves 15 minutes.
const StopTimeoutSeconds = 900

// InstallLoopLimit is the stop hook's loop_limit that install writes: Cursor lets a stop
// hook send that many follow-ups in a row, so that a loop of --max-iterations N, which
// needs N-1, is never cut short (N is at most args.MaxCount).
const InstallLoopLimit = args.MaxCount

// ProjectHooks is the hooks file at project scope.
const ProjectHooks = ".cursor/hooks.json"

// Installer installs ralph-loop's hooks for Cursor: into ~/.cursor/hooks.json at user scope,
// whose hooks run in every workspace, or into .cursor/hooks.json (committed) at project
// scope, which Cursor runs only in a trusted workspace, from the project's root. Entries are
// {"command": …, "timeout": seconds} (a matcher for preToolUse, the loop_limit for stop);
// the command files ralph-loop.md, ulw-loop.md and cancel-ralph.md go in the commands
// directory beside hooks.json. The hooks run ralph-loop by an absolute path (user scope) or
// from PATH (project scope), so the directory Cursor runs them from does not matter.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "cursor-agent",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "hooks.json", CommandsDir: "commands", Describe: "~/.cursor/hooks.json"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ProjectHooks, CommandsDir: ".cursor/commands", Shared: true, Describe: ProjectHooks},
	},
	Shape: install.Flat,
	Events: []install.Event{
		{Name: "beforeSubmitPrompt", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		{Name: "preToolUse", Matcher: ToolMatcher, Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "postToolUse", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "postToolUseFailure", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "afterAgentResponse", Timeout: 10 * time.Second},
		{Name: "stop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		{Name: "sessionEnd", Timeout: 10 * time.Second},
	},
	Settings:   []install.Setting{{Path: []string{"version"}, Value: 1}},
	SessionKey: "conversation_id",
}

// installer is Cursor's code in its installer (Installer.Host): its entries, its command
// files, the note on trust, how it is found, and its protocol.
type installer struct{}

var (
	_ install.EntryMaker   = installer{}
	_ install.CommandFiler = installer{}
	_ install.Extender     = installer{}
	_ install.Detector     = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

func (installer) Commands(string) []install.File { return Files() }

// Extra tells of trust at a project install (trustNote).
func (installer) Extra(x install.ExtraInput) ([]install.Change, error) { return trustNote(x) }

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// Entry is one hook entry: {"command", "matcher" (preToolUse), "timeout", "loop_limit"
// (stop)}.
func (installer) Entry(ev install.Event, command string, timeout int64) []install.Field {
	f := []install.Field{{Key: "command", Value: command}}
	if ev.Matcher != "" {
		f = append(f, install.Field{Key: "matcher", Value: ev.Matcher})
	}
	f = append(f, install.Field{Key: "timeout", Value: timeout})
	if ev.Name == "stop" {
		f = append(f, install.Field{Key: LoopLimitKey, Value: InstallLoopLimit})
	}
	return f
}

// Installer returns Cursor's installer.
func (Host) Installer() *install.Target { return Installer }

// userDir is Cursor's user directory, ~/.cursor.
func userDir(getenv func(string) string) (string, error) {
	return install.HomeDir(getenv, ".cursor")
}

// Detect reports whether the user has Cursor: its CLI (cursor-agent) or the editor's
// command (cursor) on PATH, or ~/.cursor.
func (installer) Detect(getenv func(string) string) bool {
	for _, cli := range []string{"cursor-agent", "cursor"} {
		if install.OnPath(cli, getenv("PATH")) {
			return true
		}
	}
	d, err := userDir(getenv)
	if err != nil {
		return false
	}
	fi, err := os.Stat(d)
	return err == nil && fi.IsDir()
}

// trustNote tells the user, at a project install, that Cursor loads a project's hooks only
// in a trusted workspace. Install trusts nothing itself.
func trustNote(x install.ExtraInput) ([]install.Change, error) {
	if !x.Install || x.Scope.Name != install.ScopeProject {
		return nil, nil
	}
	return []install.Change{{
		Path:   filepath.Join(x.ProjectDir, ".cursor"),
		Action: "unchanged",
		Note: "Cursor runs " + ProjectHooks + " only in a workspace it trusts; " +
			"\"ralph-loop install --host cursor\" (user scope) is not tied to a workspace",
	}}, nil
}

// Trust tells, for doctor, that the host runs a project's hooks only in a folder it trusts.
func (Host) Trust(r install.Report, _ func(string) string, _ string, found []install.Found) {
	install.TrustAsked(r, Installer, found)
}
