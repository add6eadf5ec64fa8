package install

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/inject"
)

// Scopes, as the hosts name their settings levels.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeLocal   = "local"
)

// Target describes how ralph-loop installs into one agent CLI: where its settings files are at
// each scope, the shape of its hooks, the events, settings and command files ralph-loop
// adds, and anything else the host needs. Each host package declares one: its facts as
// the fields here, its code as the methods of a value of its own (Host), which implements
// the small interface Host and those of the optional ones below that it needs. The planner
// here knows no host: it asserts the optional interfaces as it goes, as doctor asserts a
// host's optional checks (hosts.Plugged, hosts.Trusting).
type Target struct {
	// Name is the host's name for --host and in "ralph-loop hook --host NAME".
	Name string
	// Title is the host's name for people ("Claude Code").
	Title string
	// CLI is the host's executable, looked for on PATH by the default Detected.
	CLI string
	// Host is the host's code (required).
	Host Host
	// Scopes are the scopes the host supports; the first is the default.
	Scopes []Scope

	// Syntax is what the host reads in its settings beyond plain JSON (comments, a BOM):
	// install keeps such a file as it is; a file the host could not read is refused.
	Syntax Syntax

	// Shape is the form of the hooks object (Nested or Flat).
	Shape Shape
	// HooksPath is the key path of the hooks object in the settings file (nil: "hooks").
	HooksPath []string
	// HooksAtRoot: the settings file is the hooks object itself, keyed directly by event
	// name (Factory Droid's hooks.json); HooksPath is then unused.
	HooksAtRoot bool
	// Events are the hook events ralph-loop adds, in order.
	Events []Event
	// TimeoutUnit is the unit of the host's timeout field (0: seconds); TimeoutKey is the
	// entry field that holds it ("": "timeout"), read back by HookTimeout.
	TimeoutUnit time.Duration
	TimeoutKey  string
	// CommandKeys are the entry fields that may hold the command line, used to recognise
	// ralph-loop's entries (nil: "command").
	CommandKeys []string

	// Settings are set at their key path when the file does not set them already; install
	// records which it set, and uninstall removes only those (if still unchanged).
	Settings []Setting
	// FilesKind is what the host calls the files of its PluginFiler through which it runs
	// ralph-loop's hooks, for people: "plugin" (opencode's), "extension" (pi's); "" for a
	// host whose hooks are in its settings. Reload is the host's command that loads them
	// again in a running session ("" for none: the host is restarted).
	FilesKind, Reload string
	// SandboxSays tells the user, before install --sandbox writes anything, what the
	// sandbox of a Sandboxer changes for their agent.
	SandboxSays string
	// SessionKey is the field of the host's hook input that holds the session id ("":
	// "session_id").
	SessionKey string
	// PluginRoot, for a host whose plugins can carry hooks (Claude Code), is the variable
	// that names a plugin's directory in its hooks' command lines (CLAUDE_PLUGIN_ROOT): the
	// plugin's lines read the hook script the plugin ships (PluginScript) from there.
	PluginRoot string
}

// Host is a host's code in its installer (Target.Host): what every host has. What only
// some have are the optional interfaces that follow, each asserted where the planner needs
// it; a host package asserts the ones it means to implement (var _ install.Encoder = …).
type Host interface {
	// UserDir finds the host's user configuration directory from the environment
	// ($CLAUDE_CONFIG_DIR, or ~/.claude). It is needed for user-scope files.
	UserDir(getenv func(string) string) (string, error)
}

// Encoder is a host whose hooks are entries of its settings: Encode is its protocol, for
// what a hook's command line answers by itself when it cannot run ralph-loop (see
// command.go, and the hook script, Target.Script): a reply to an event, as the host's hook
// prints it (hookline.Encode). A host without one writes no hook script.
type Encoder interface {
	Encode(ev Event, r Reply) Encoded
}

// EntryMaker is a host whose hook entries are not DefaultEntry's: Entry builds one for an
// event, its fields in order. command is the command line; timeout is Event.Timeout in
// TimeoutUnit.
type EntryMaker interface {
	Entry(ev Event, command string, timeout int64) []Field
}

// CommandMaker is a host whose hooks' command line is not DefaultCommand's.
type CommandMaker interface {
	Command(c CommandSpec) string
}

// CommandFiler is a host with command files (slash commands, skills): Commands are those
// for a scope, written into the scope's CommandsDir.
type CommandFiler interface {
	Commands(scope string) []File
}

// PluginFiler is a host that runs ralph-loop's hooks through files of its own (opencode's
// plugin, pi's extension, which run ralph-loop themselves; see Target.FilesKind). Files are
// written into the scope's CommandsDir like command files, made for the hooks' command (a
// name may hold a subdirectory: "plugins/ralph-loop.js"); FileBinary reads the program one
// of them names, as written, for the guard to keep (see Binaries).
type PluginFiler interface {
	Files(c CommandSpec) []File
	FileBinary(data []byte) (string, bool)
}

// Extender is a host that needs more than its hooks file and command files: Extra plans it
// (Codex's trust entries in config.toml, Gemini's trusted folders).
type Extender interface {
	Extra(x ExtraInput) ([]Change, error)
}

// Sandboxer is a host that can run the agent's shell in a sandbox of its own: Sandbox says
// what turns it on at a scope and puts ralph-loop's files out of its reach; SandboxOn
// reports whether it is on already, for a plain install to add the deny entries (see
// Target.SandboxSays).
type Sandboxer interface {
	Sandbox(x SandboxInput) Sandbox
	SandboxOn(getenv func(string) string, projectDir string) bool
}

// Detector is a host found otherwise than by its CLI on PATH or its user configuration
// directory: Detect reports whether the user has it.
type Detector interface {
	Detect(getenv func(string) string) bool
}

// Reply is what a hook's command line answers by itself, without ralph-loop: block (a stop
// goes on with Reason; a prompt is dropped, Reason shown to the user; a settings change is
// refused) and a notice for the user.
type Reply struct {
	Block  bool
	Reason string
	Notice string
}

// Encoded is a reply as the host's hook prints it: its standard output and error, and its
// exit code.
type Encoded struct {
	Stdout, Stderr string
	Code           int
}

// Shape is the form of a host's hooks object.
type Shape int

const (
	// Nested is Claude Code's form, also Codex's, Gemini CLI's and Qwen Code's:
	// hooks.<Event>: [{"matcher": M, "hooks": [entry]}].
	Nested Shape = iota
	// Flat is Copilot CLI's and Cursor's: hooks.<event>: [entry].
	Flat
)

// Base is the directory a scope's paths are relative to.
type Base int

const (
	// UserBase is the host's user configuration directory (Host.UserDir).
	UserBase Base = iota
	// ProjectBase is the project directory.
	ProjectBase
)

// Scope is one settings level of a host.
type Scope struct {
	// Name is user, project or local.
	Name string
	// Base says what Settings and CommandsDir are relative to.
	Base Base
	// Settings is the hooks settings file ("settings.json", ".claude/settings.json"); ""
	// for a host whose hooks are files of its own (opencode's plugin, in Files).
	Settings string
	// CommandsDir is where command files go ("" for none at this scope).
	CommandsDir string
	// Shared: the files are committed and used on other machines, so the hooks' command
	// must not name this machine's path of ralph-loop (the portable command is used).
	Shared bool
	// Describe says where it is, for help ("~/.claude", ".claude/settings.json").
	Describe string
}

// Event is one hook event install adds.
type Event struct {
	Name string
	// Matcher is the tool matcher ("" for events without one).
	Matcher string
	// Timeout bounds the hook; it is written in the host's TimeoutUnit.
	Timeout time.Duration
	// Notice: when the portable command finds no ralph-loop on the machine, it tells the
	// user at this event (at a session's start, or a prompt that names ralph).
	Notice NoticeWhen
	// Kind is what the event is, for what the command line answers when it cannot run
	// ralph-loop while the session's loop is active (a stop is blocked, a /cancel-ralph
	// recorded), and for the tool events it skips without any loop on the machine.
	Kind EventKind
	// Async: the host runs the hook in the background, without waiting for it ("async":
	// true in DefaultEntry); only for a hook whose answer the host would not use anyway.
	Async bool
}

// EventKind is what a hook event is, to the command line's own answers.
type EventKind int

const (
	// OtherEvent: nothing to answer (a session's end).
	OtherEvent EventKind = iota
	// SessionEvent: a session starts.
	SessionEvent
	// PromptEvent: the user's prompt (where /cancel-ralph comes).
	PromptEvent
	// ToolEvent: a tool call about to run or done; skipped without an active loop.
	ToolEvent
	// StopEvent: the agent ends its turn.
	StopEvent
	// ConfigEvent: a settings change the hook may refuse (Claude Code's ConfigChange).
	ConfigEvent
)

// NoticeWhen says when the portable command tells the user that ralph-loop is missing.
type NoticeWhen int

const (
	// Silent: exit 0, say nothing.
	Silent NoticeWhen = iota
	// Always: print the line (a session starting).
	Always
	// IfRalph: print the line when the event's input mentions ralph (a prompt typed to
	// start or cancel a loop).
	IfRalph
)

// Field is one key and value of a JSON object, in order. Value is a string, bool, int,
// int64, []any or []Field (an object).
type Field struct {
	Key   string
	Value any
}

// Setting is a value set at a key path of the settings file unless already set there.
type Setting struct {
	Path  []string
	Value any
}

// File is a command file.
type File struct {
	Name    string
	Content string
	// Mark is text only ralph-loop's own file of this name holds (of any version): a file
	// without it is the user's (or another plugin's) and is backed up before it is
	// replaced, and never removed.
	Mark string
}

// CommandFiles are cmds as a CommandFiler's Commands: each file under its own name, known as
// ralph-loop's by its description line.
func CommandFiles(cmds []inject.CommandFile) []File {
	files := make([]File, 0, len(cmds))
	for _, cf := range cmds {
		files = append(files, File{Name: cf.Name, Content: cf.Content, Mark: "\n" + cf.Description + "\n"})
	}
	return files
}

// CommandSpec is what a hook's command line is made for.
type CommandSpec struct {
	Target *Target
	Event  Event
	// Binary is the absolute path of ralph-loop (not for a Shared scope).
	Binary string
	// Script is the absolute path of the host's hook script (not for a Shared scope; "" for
	// none).
	Script string
	// Portable: the scope is shared; the command finds ralph-loop on PATH.
	Portable bool
	// Scope is the scope's name.
	Scope string
}

// ExtraInput is what an Extender's Extra plans from.
type ExtraInput struct {
	Target *Target
	Scope  Scope
	// Install is false for uninstall.
	Install bool
	// Settings is the hooks settings file; Content is what it will hold after the plan
	// (nil if it will not exist).
	Settings string
	Content  []byte
	// UserDir and ProjectDir are the resolved directories ("" if not known).
	UserDir    string
	ProjectDir string
	Getenv     func(string) string
	// Record is what earlier installs at this scope recorded (nil: none).
	Record *Record
	Now    time.Time
}

// name of the JSON key path of the hooks object.
func (inst *Target) hooksPath() []string {
	if inst.HooksAtRoot {
		return []string{}
	}
	if len(inst.HooksPath) == 0 {
		return []string{"hooks"}
	}
	return inst.HooksPath
}

func (inst *Target) commandKeys() []string {
	if len(inst.CommandKeys) == 0 {
		return []string{"command"}
	}
	return inst.CommandKeys
}

func (inst *Target) unit() time.Duration {
	if inst.TimeoutUnit <= 0 {
		return time.Second
	}
	return inst.TimeoutUnit
}

// Scope returns the named scope.
func (inst *Target) Scope(name string) (Scope, bool) {
	for _, s := range inst.Scopes {
		if s.Name == name {
			return s, true
		}
	}
	return Scope{}, false
}

// ScopeNames lists the host's scopes ("user, project or local").
func (inst *Target) ScopeNames() string {
	var names []string
	for _, s := range inst.Scopes {
		names = append(names, s.Name)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// DefaultEntry is {"type": "command", "command": command, "timeout": timeout}, with
// "async": true for an Async event.
func DefaultEntry(ev Event, command string, timeout int64) []Field {
	f := []Field{{"type", "command"}, {"command", command}, {"timeout", timeout}}
	if ev.Async {
		f = append(f, Field{"async", true})
	}
	return f
}

// Detected reports whether the user has the host: its Detector's Detect, or by default its
// CLI on PATH or its user configuration directory existing.
func (inst *Target) Detected(getenv func(string) string) bool {
	if d, ok := inst.Host.(Detector); ok {
		return d.Detect(getenv)
	}
	if inst.CLI != "" && OnPath(inst.CLI, getenv("PATH")) {
		return true
	}
	if d, err := inst.Host.UserDir(getenv); err == nil && d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// OnPath reports whether an executable named name is in one of the directories of path.
func OnPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}

// HomeDir returns getenv("HOME") joined with elem, for the hosts' UserDir.
func HomeDir(getenv func(string) string, elem ...string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return "", errNoHome
		}
	}
	return filepath.Join(append([]string{home}, elem...)...), nil
}

// DirFromEnv returns the directory the variable env names, made absolute, or else
// HomeDir(getenv, elem...): for the UserDir of hosts whose directory a variable
// moves.
func DirFromEnv(getenv func(string) string, env string, elem ...string) (string, error) {
	if d := getenv(env); d != "" {
		return filepath.Abs(d)
	}
	return HomeDir(getenv, elem...)
}

// HookFiles are the files through which the host runs ralph-loop's hooks, at every scope it
// has (whether or not they exist yet: a new project settings file can turn hooks off too):
// each scope's hooks settings file, and files of its own such as opencode's plugin, with
// extra (files named relative to the user directory, such as Codex's config.toml, or
// absolute). The
// guard keeps the agent from changing them while a loop runs, on hosts that cannot ask
// their hooks before a settings change takes effect.
func (inst *Target) HookFiles(getenv func(string) string, projectDir string, extra ...string) []string {
	user := ""
	if d, err := inst.Host.UserDir(getenv); err == nil {
		user = d
	}
	plugin, _ := inst.Host.(PluginFiler)
	var files []string
	for _, s := range inst.Scopes {
		base := user
		if s.Base == ProjectBase {
			base = projectDir
		}
		if base == "" || !filepath.IsAbs(base) {
			continue
		}
		if s.Settings != "" {
			files = append(files, filepath.Join(base, s.Settings))
		}
		if plugin != nil {
			for _, f := range plugin.Files(CommandSpec{Target: inst, Scope: s.Name, Portable: s.Shared}) {
				files = append(files, filepath.Join(base, s.CommandsDir, f.Name))
			}
		}
	}
	for _, e := range extra {
		switch {
		case filepath.IsAbs(e):
			files = append(files, e)
		case user != "" && filepath.IsAbs(user):
			files = append(files, filepath.Join(user, e))
		}
	}
	return files
}
