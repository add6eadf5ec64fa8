package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/hookline"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// StopTimeout is the AfterAgent hook's timeout that install writes (Gemini CLI's unit is
// the millisecond): the stop runs a loop's checks (--check), which it leaves 15 minutes.
const StopTimeout = 900 * time.Second

// Installer installs ralph-loop into Gemini CLI's settings: ~/.gemini/settings.json at user
// scope, .gemini/settings.json (committed) at project scope, with the command files
// (commands/*.toml) beside them.
//
// Gemini CLI runs hooks, user's and project's alike, only in folders the user trusts
// (~/.gemini/trustedFolders.json, which its own trust dialog writes). Install does not
// write that file: trusting a folder turns on everything the project's settings ask for
// (hooks, MCP servers, its .env), which is the user's decision in Gemini CLI's dialog, not a
// side effect of installing a hook. It says whether the folder is trusted and, if not, what
// the user does.
var Installer = &install.Target{
	Name:  Name,
	Title: display,
	CLI:   "gemini",
	Host:  installer{},
	Scopes: []install.Scope{
		{Name: install.ScopeUser, Base: install.UserBase, Settings: "settings.json", CommandsDir: "commands", Describe: "~/.gemini"},
		{Name: install.ScopeProject, Base: install.ProjectBase, Settings: ".gemini/settings.json", CommandsDir: ".gemini/commands", Shared: true, Describe: ".gemini/settings.json"},
	},
	// Its settings are read through stripJsonComments.
	// Gemini CLI 0.61.0 reads comments, and no byte order mark or trailing comma
	// (TestSettingsSyntax).
	Syntax:      install.Syntax{Comments: true},
	Shape:       install.Nested,
	TimeoutUnit: time.Millisecond,
	Events: []install.Event{
		{Name: "SessionStart", Timeout: 10 * time.Second, Notice: install.Always, Kind: install.SessionEvent},
		{Name: "BeforeAgent", Timeout: 10 * time.Second, Notice: install.IfRalph, Kind: install.PromptEvent},
		// BeforeTool runs only for the tools the guard looks at (a regular expression).
		{Name: "BeforeTool", Matcher: ShellTool + "|" + WriteTool + "|" + EditTool, Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "AfterTool", Matcher: "*", Timeout: 10 * time.Second, Kind: install.ToolEvent},
		{Name: "AfterAgent", Timeout: StopTimeout, Kind: install.StopEvent},
		{Name: "SessionEnd", Timeout: 10 * time.Second},
	},
}

// Installer returns Gemini CLI's installer.
func (Host) Installer() *install.Target { return Installer }

// installer is Gemini CLI's code in its installer (Installer.Host): its entries, its
// command files, the note on trust, and its protocol.
type installer struct{}

var (
	_ install.EntryMaker   = installer{}
	_ install.CommandFiler = installer{}
	_ install.Extender     = installer{}
	_ install.Encoder      = installer{}
)

func (installer) UserDir(getenv func(string) string) (string, error) { return userDir(getenv) }

// Entry is {"name": "ralph-loop", "type": "command", "command": …, "timeout": …}.
func (installer) Entry(_ install.Event, command string, timeout int64) []install.Field {
	return []install.Field{{Key: "name", Value: "ralph-loop"}, {Key: "type", Value: "command"}, {Key: "command", Value: command}, {Key: "timeout", Value: timeout}}
}

// Commands are the command files, in TOML.
func (installer) Commands(string) []install.File {
	var files []install.File
	for _, cf := range inject.TOMLCommands() {
		tag := inject.CommandTag("/" + strings.TrimSuffix(cf.Name, ".toml"))
		files = append(files, install.File{Name: cf.Name, Content: cf.Content, Mark: tag})
	}
	return files
}

// Extra says whether the folder is trusted (trustNote).
func (installer) Extra(x install.ExtraInput) ([]install.Change, error) { return trustNote(x) }

// Encode is what the hooks' command line answers by itself (hookline.Encode).
func (installer) Encode(ev install.Event, r install.Reply) install.Encoded {
	return hookline.Encode(Host{}, ev, r)
}

// userDir is Gemini CLI's user configuration directory, ~/.gemini.
func userDir(getenv func(string) string) (string, error) {
	return install.HomeDir(getenv, ".gemini")
}

// TrustedFoldersEnv overrides where Gemini CLI keeps the folders the user trusts.
const TrustedFoldersEnv = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"

// trustedFoldersFile is where Gemini CLI records the folders the user trusts.
func trustedFoldersFile(getenv func(string) string, userDir string) string {
	if p := getenv(TrustedFoldersEnv); p != "" {
		return p
	}
	return filepath.Join(userDir, "trustedFolders.json")
}

// trustNote changes nothing: it says, beside the trusted-folders file, whether the project
// is trusted and what the user does if it is not.
func trustNote(x install.ExtraInput) ([]install.Change, error) {
	if !x.Install {
		return nil, nil
	}
	path := trustedFoldersFile(x.Getenv, x.UserDir)
	dir := x.ProjectDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	var note string
	switch {
	case dir != "" && Trusted(path, dir):
		note = "Gemini CLI trusts " + dir + ", so the hooks run there"
	case x.Scope.Name == install.ScopeUser:
		note = "not changed: Gemini CLI runs hooks only in folders you trust; answer its trust prompt in each project (or /permissions)"
	default:
		note = "not changed: Gemini CLI runs hooks only in folders you trust; start gemini in " + dir + " and choose to trust the folder (or /permissions)"
	}
	old, err := os.ReadFile(path)
	if err != nil {
		old = nil
	}
	return []install.Change{{Path: path, Action: "unchanged", Content: old, Old: old, Note: note}}, nil
}

// Trusted reports whether the trusted-folders file at path trusts dir: the folder itself
// (TRUST_FOLDER) or one of its parents (TRUST_PARENT on a folder inside it, or TRUST_FOLDER
// on an ancestor), and no nearer DO_NOT_TRUST.
func Trusted(path, dir string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var m map[string]string
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	dir = filepath.Clean(dir)
	best, trusted := -1, false
	for p, level := range m {
		p = filepath.Clean(p)
		if level == "TRUST_PARENT" {
			p = filepath.Dir(p)
		}
		if p != dir && !strings.HasPrefix(dir, p+string(filepath.Separator)) {
			continue
		}
		if len(p) > best {
			best, trusted = len(p), level != "DO_NOT_TRUST"
		}
	}
	return trusted
}
