package claude

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/state"
)

// What in Claude Code's settings decides what it runs and how, read as Claude Code 2.1.330
// reads it (each seen on it): every settings file is JSON as JavaScript's JSON.parse reads
// it (keys exact, so "disableallhooks" is not "disableAllHooks"; of two equal keys the last
// wins; no comments, no trailing commas; one byte-order mark taken off; a blank file is
// {}); a file that does not parse, or that holds one value of the wrong type anywhere
// ("model": 123), is dropped whole, hooks and all, from the running session; an unknown
// key is kept. So every setting of every file counts, not only the hooks: the view below
// has one digest per file and top-level setting, and a change is judged by comparing views.
// Only the permission lists Claude Code itself writes while a session runs (an "always
// allow" answer) are left out, while they are lists of strings and allow no file edits
// (whose paths its sandbox would let the agent's commands write).

// viewVersion names how SettingsView reads the settings.
const viewVersion = "claude-settings-1"

// settingsLimit bounds a settings file ralph-loop reads.
const settingsLimit = 16 << 20

// managedDir is where Claude Code reads managed settings on this system
// (managed-settings.json, and the drop-ins of managed-settings.d).
func managedDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// settingsFile is one of Claude Code's settings files, and its scope.
type settingsFile struct {
	path, scope string
}

// scopeManaged is the scope of the managed settings files (beside install's user, project and
// local).
const scopeManaged = "managed"

// settingsFiles are Claude Code's settings files for a session in project, in the order a
// later one's settings override an earlier one's: user, project, local, then managed (its
// file, then its drop-ins in name order).
func settingsFiles(getenv func(string) string, project, managed string) ([]settingsFile, error) {
	var files []settingsFile
	if dir, err := userDir(getenv); err == nil {
		files = append(files, settingsFile{filepath.Join(dir, "settings.json"), install.ScopeUser})
	}
	if project != "" {
		files = append(files, settingsFile{filepath.Join(project, ".claude", "settings.json"), install.ScopeProject},
			settingsFile{filepath.Join(project, ".claude", "settings.local.json"), install.ScopeLocal})
	}
	files = append(files, settingsFile{filepath.Join(managed, "managed-settings.json"), scopeManaged})
	d := filepath.Join(managed, "managed-settings.d")
	entries, err := os.ReadDir(d)
	if err != nil && !absent(err) {
		return files, fmt.Errorf("read %s: %w", d, err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			files = append(files, settingsFile{filepath.Join(d, e.Name()), scopeManaged})
		}
	}
	return files, nil
}

// absent: the file is not there (Claude Code's reading: ENOENT or ENOTDIR).
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// SettingsView reads what, in Claude Code's settings as they are now on disk, decides
// what it runs and how, for a session in project: one state.Setting per setting of each
// settings file (a file that is no JSON object, one for the file; a file that is not there
// holds none, like {}), and one per file of each plugin a file enables.
// err says what could not be read or told (a file that cannot be read, two keys of a file
// that differ only in case); the view then holds what could.
func SettingsView(getenv func(string) string, project string) ([]state.Setting, error) {
	return settingsView(getenv, project, managedDir())
}

func settingsView(getenv func(string) string, project, managed string) ([]state.Setting, error) {
	files, err := settingsFiles(getenv, project, managed)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	// The first item says how the view was made: a loop's record is never empty (an empty
	// list is no record at all once written), and a view made another way never matches.
	view := []state.Setting{{Sum: viewVersion}}
	plugins := map[string]bool{}
	for _, f := range files {
		items, enabled, err := readSettings(f.path)
		view = append(view, items...)
		if err != nil {
			errs = append(errs, err)
		}
		for _, p := range enabled {
			plugins[p] = true
		}
	}
	if len(plugins) > 0 {
		items, err := pluginFiles(getenv, plugins)
		view = append(view, items...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return view, errors.Join(errs...)
}

// readSettings reads one settings file into its part of the view, and the plugins it
// enables.
func readSettings(path string) ([]state.Setting, []string, error) {
	data, err := state.ReadRegular(path, settingsLimit)
	if absent(err) {
		return nil, nil, nil // as {}: a file Claude Code writes itself may be new
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	v, collisions, err := parseJS(data)
	if err != nil {
		// Claude Code drops such a file whole: what it held counts as gone.
		return []state.Setting{{File: path, Sum: "unreadable " + digest(data)}}, nil, nil
	}
	root, ok := v.(map[string]any)
	if !ok {
		return []state.Setting{{File: path, Sum: "not an object " + digest(canonical(v))}}, nil, nil
	}
	var items []state.Setting
	for _, k := range sortedKeys(root) {
		val := root[k]
		if k == "permissions" {
			if perms, ok := val.(map[string]any); ok {
				for _, pk := range sortedKeys(perms) {
					if pk == "ask" && stringList(perms[pk]) || pk == "allow" && stringList(perms[pk]) && !widensWrites(perms[pk]) {
						continue // written by Claude Code itself on "always allow"
					}
					items = append(items, state.Setting{File: path, Key: "permissions." + pk, Sum: digest(canonical(perms[pk]))})
				}
				continue
			}
		}
		items = append(items, state.Setting{File: path, Key: k, Sum: digest(canonical(val))})
	}
	var enabled []string
	if m, ok := root["enabledPlugins"].(map[string]any); ok {
		for name, on := range m {
			if on == true {
				enabled = append(enabled, name)
			}
		}
	}
	if len(collisions) > 0 {
		err = &AmbiguousError{File: path, Keys: collisions}
	}
	return items, enabled, err
}

// AmbiguousError is a settings file with two keys in one object that differ only in case:
// Claude Code reads them as two settings, and a reader that matches keys case-blind (Go's
// encoding/json) as one.
type AmbiguousError struct {
	File string
	Keys []string // the first pair found
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s holds both %q and %q, keys that differ only in case", e.File, e.Keys[0], e.Keys[1])
}

// pluginFiles are the view's part for the enabled plugins: the hook files of each
// installed version (hooks/hooks.json, and its manifest, which may name more hooks), as
// Claude Code's record of installed plugins names them. A plugin enabled but not
// installed runs nothing.
func pluginFiles(getenv func(string) string, enabled map[string]bool) ([]state.Setting, error) {
	dir, err := userDir(getenv)
	if err != nil {
		return nil, err
	}
	record := filepath.Join(dir, "plugins", "installed_plugins.json")
	data, err := state.ReadRegular(record, settingsLimit)
	if absent(err) {
		return []state.Setting{{File: record, Sum: "absent"}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", record, err)
	}
	var installed struct {
		Plugins map[string][]struct {
			InstallPath string `json:"installPath"`
		} `json:"plugins"`
	}
	v, _, err := parseJS(data)
	if err == nil {
		err = json.Unmarshal(canonical(v), &installed)
	}
	if err != nil {
		return []state.Setting{{File: record, Sum: "unreadable " + digest(data)}}, nil
	}
	var items []state.Setting
	var errs []error
	names := make([]string, 0, len(enabled))
	for n := range enabled {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		versions := installed.Plugins[name]
		items = append(items, state.Setting{File: record, Key: name, Sum: digest([]byte(fmt.Sprint(len(versions))))})
		for _, ver := range versions {
			for _, f := range []string{filepath.Join(ver.InstallPath, "hooks", "hooks.json"), filepath.Join(ver.InstallPath, ".claude-plugin", "plugin.json")} {
				data, err := state.ReadRegular(f, settingsLimit)
				switch {
				case absent(err):
					items = append(items, state.Setting{File: f, Sum: "absent"})
				case err != nil:
					errs = append(errs, fmt.Errorf("read %s: %w", f, err))
				default:
					items = append(items, state.Setting{File: f, Sum: digest(data)})
				}
			}
		}
	}
	return items, errors.Join(errs...)
}

// widensWrites reports whether a list of allow rules holds a rule of a file tool that
// edits: Claude Code adds the paths of Edit allow rules to what its sandbox lets the agent's
// commands write.
func widensWrites(v any) bool {
	l, _ := v.([]any)
	for _, e := range l {
		rule, _ := e.(string)
		tool, _, _ := strings.Cut(strings.TrimSpace(rule), "(")
		switch strings.TrimSpace(tool) {
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			return true
		}
	}
	return false
}

func stringList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// canonical is v as JSON with object keys sorted and numbers as JavaScript holds them.
func canonical(v any) []byte {
	b, _ := json.Marshal(v) // maps, slices, strings, numbers, bools: never fails
	return b
}

// parseJS reads data as Claude Code reads a settings file: one byte-order mark taken off,
// blank as {}, then JSON.parse's rules (exact keys, the last of equal keys wins, nothing
// after the value). collisions is the first pair of keys of one object that differ only
// in case.
func parseJS(data []byte) (v any, collisions []string, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimFunc(data, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })) == 0 {
		return map[string]any{}, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsParser{dec: dec}
	if v, err = p.value(0); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("more after the JSON value")
	}
	return v, p.collisions, nil
}

type jsParser struct {
	dec        *json.Decoder
	collisions []string
}

// maxDepth bounds the nesting of a settings file ralph-loop reads.
const maxDepth = 512

func (p *jsParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deep")
	}
	t, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			folded := map[string]string{}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				if other, ok := folded[strings.ToLower(k)]; ok && other != k && p.collisions == nil {
					p.collisions = []string{other, k}
				}
				folded[strings.ToLower(k)] = k
				m[k] = v
			}
			_, err := p.dec.Token()
			return m, err
		case '[':
			l := []any{}
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := p.dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if f, err := strconv.ParseFloat(string(t), 64); err == nil {
			return f, nil
		}
		return t, nil
	default:
		return t, nil // string, bool, nil
	}
}
