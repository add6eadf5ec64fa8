package copilot

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// StopTimeoutSeconds is the agentStop hook's timeout that install writes: the stop hook runs
// a loop's checks (--check), which it leaves 15 minutes.
const StopTimeoutSeconds = 900

// ProjectHooks is the hooks file install writes at project scope.
const ProjectHooks = ".github/hooks/ralph-loop.json"

// Installer installs ralph-loop's hooks for Copilot CLI: into the "hooks" key of
// $COPILOT_HOME/settings.json (~/.copilot) at user scope, which runs in every folder, or
// into .github/hooks/ralph-loop.json (committed) at project scope, which Copilot CLI runs
// only in a folder the user trusts (and skips silently otherwise). Copilot CLI's TUI refuses
// an unknown slash command before any hook runs ("✗ Unknown command"), but takes a skill's
// name as one: install writes the skills ralph-loop, ulw-loop and cancel-ralph
// (~/.copilot/skills, or the project's .github/skills), so that /ralph-loop … typed in the
// TUI reaches userPromptSubmitted as the skill's invocation (see skillCommand); copilot -p
// passes the typed text as it is.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "copilot",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "settings.json", CommandsDir: "skills", Describe: "~/.copilot/settings.json"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ProjectHooks, CommandsDir: ".github/skills", Shared: true, Describe: ProjectHooks},
	},
	// Copilot CLI 1.0.102 runs the hooks of a settings file with a byte order mark, comments
	// or a trailing comma (TestSettingsSyntax).
	Syntax: install.Syntax{Comments: true, BOM: true, Commas: true},
	Shape:  install.Flat,
	Events: []install.Event{
		{Name: "sessionStart", Timeout: 10 * time.Second, Kind: install.SessionEvent},
		{Name: "userPromptSubmitted", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		{Name: "preToolUse", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		// postToolUse is not installed: it carries no tool-call id, and the calls are
		// counted from the transcript.
		{Name: "agentStop", Timeout: StopTimeoutSeconds * time.Second, Kind: install.StopEvent},
		{Name: "sessionEnd", Timeout: 10 * time.Second},
	},
	TimeoutKey:  "timeoutSec",
	CommandKeys: []string{"bash"},
	Settings:    []install.Setting{{Path: []string{"version"}, Value: 1}},
	SessionKey:  "sessionId",
}

// Installer returns Copilot CLI's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Copilot CLI's code in its installer (Installer.Host): its entries, its
// skills, the note on trust, and its protocol.
type installer struct{}

var (
	_ install.EntryMaker   = installer{}
	_ install.CommandFiler = installer{}
	_ install.Extender     = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

// Entry is {"type": "command", "bash": …, "timeoutSec": …}.
func (installer) Entry(_ install.Event, command string, timeout int64) []install.Field {
	return []install.Field{{Key: "type", Value: "command"}, {Key: "bash", Value: command}, {Key: "timeoutSec", Value: timeout}}
}

// Commands are the skills.
func (installer) Commands(string) []install.File {
	var files []install.File
	for _, s := range inject.Skills(Words) {
		files = append(files, install.File{Name: filepath.Join(s.Name, "SKILL.md"), Content: s.Content, Mark: "\n" + s.Description + "\n"})
	}
	return files
}

// Extra tells of trust at a project install (trustNote).
func (installer) Extra(x install.ExtraInput) ([]install.Change, error) { return trustNote(x) }

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Copilot CLI's user directory: $COPILOT_HOME, or ~/.copilot.
func userDir(getenv func(string) string) (string, error) {
	return install.DirFromEnv(getenv, "COPILOT_HOME", ".copilot")
}

// trustNote tells the user, at a project install, that Copilot CLI skips the project's hooks
// silently unless the folder is trusted. Install does not trust the folder itself: trust is
// the user's decision (Copilot CLI asks when it starts in the folder, and keeps it in
// "trustedFolders" of $COPILOT_HOME/config.json).
func trustNote(x install.ExtraInput) ([]install.Change, error) {
	if !x.Install || x.Scope.Name != install.ScopeProject {
		return nil, nil
	}
	return []install.Change{{
		Path:   filepath.Join(x.UserDir, "config.json"),
		Action: "unchanged",
		Note: fmt.Sprintf("Copilot CLI runs %s only in a trusted folder and skips it silently otherwise: "+
			"trust %s when Copilot CLI asks (it keeps that in \"trustedFolders\" here), or start it with --trust-folder; "+
			"\"ralph-loop install --host copilot\" (user scope) needs no trust", ProjectHooks, x.ProjectDir),
	}}, nil
}

// Trust tells, for doctor, that the host runs a project's hooks only in a folder it trusts.
func (Host) Trust(r install.Report, _ func(string) string, _ string, found []install.Found) {
	install.TrustAsked(r, Installer, found)
}
