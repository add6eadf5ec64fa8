// Package install adds ralph-loop's hooks and slash commands to Claude Code's settings and
// takes them out again, touching nothing else.
//
// Settings are merged: other keys and other hooks stay as they are (and in their order),
// ralph-loop's own hook entries are recognised by their command line and replaced, a second
// run changes nothing, and a file that changes is backed up first.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Scopes, as Claude Code names its settings files.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeLocal   = "local"
)

// BlockCapEnv is Claude Code's limit on consecutive stop blocks; BlockCap is the value
// install sets (unless the settings set one already), so that loops whose agent only talks
// are not cut at 8 iterations.
const (
	BlockCapEnv = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
	BlockCap    = "1000"
)

// hookEvent is one hook entry install writes.
type hookEvent struct {
	name    string
	matcher string // "" for events without one
	timeout int    // seconds
}

// The events and timeouts. A hook never waits more than a few seconds for a lock and half a
// second for a lagging transcript, so the timeouts only bound a bug, except that the Stop
// hook runs a loop's checks (--check): its timeout leaves them 15 minutes. PreToolUse runs
// only for the tools its guard looks at.
var events = []hookEvent{
	{"UserPromptSubmit", "", 10},
	{"PreToolUse", "Bash|Write|Edit|MultiEdit|NotebookEdit", 10},
	{"PostToolUse", "*", 10},
	{"PostToolUseFailure", "*", 10},
	{"Stop", "", StopTimeoutSeconds},
	{"SessionEnd", "", 10},
}

// StopTimeoutSeconds is the Stop hook's timeout that install writes.
const StopTimeoutSeconds = 900

// Options says where to install.
type Options struct {
	Scope string
	// Dir is the project directory (project and local scopes).
	Dir string
	// ConfigDir is Claude Code's user configuration directory: $CLAUDE_CONFIG_DIR, or
	// ~/.claude (user scope).
	ConfigDir string
	// Binary is the absolute path of the ralph-loop executable the hooks run.
	Binary string
	Now    time.Time
}

// Change is one file that install or uninstall writes or removes.
type Change struct {
	Path   string
	Action string // "create", "update", "remove" or "unchanged"
	// Content is the new content (create and update).
	Content []byte
	// Backup is where the previous content is saved before an update or removal ("" if
	// nothing is saved).
	Backup string
	Note   string
	perm   fs.FileMode
}

// Plan is what install or uninstall will do.
type Plan struct {
	Settings string
	Changes  []Change
}

// HookCommand is the command line of the hooks for a binary.
func HookCommand(binary string) string {
	return args.Quote(binary) + " hook --host claude"
}

// IsHookCommand reports whether a hook command line is ralph-loop's (from any path).
func IsHookCommand(cmd string) bool {
	w, err := args.Split(cmd)
	if err != nil || len(w) != 4 {
		return false
	}
	base := filepath.Base(w[0].Text)
	return (base == "ralph-loop" || base == "ralph-loop.exe") &&
		w[1].Text == "hook" && w[2].Text == "--host" && w[3].Text == "claude"
}

func (o Options) paths() (settings, commands string, err error) {
	switch o.Scope {
	case ScopeUser:
		if o.ConfigDir == "" {
			return "", "", errors.New("no user configuration directory (set HOME or CLAUDE_CONFIG_DIR)")
		}
		return filepath.Join(o.ConfigDir, "settings.json"), filepath.Join(o.ConfigDir, "commands"), nil
	case ScopeProject, ScopeLocal:
		if o.Dir == "" {
			return "", "", errors.New("no project directory")
		}
		base := filepath.Join(o.Dir, ".claude")
		name := "settings.json"
		if o.Scope == ScopeLocal {
			name = "settings.local.json"
		}
		return filepath.Join(base, name), filepath.Join(base, "commands"), nil
	}
	return "", "", fmt.Errorf("unknown scope %q: want user, project or local", o.Scope)
}

// Claude plans an install into Claude Code's settings.
func Claude(o Options) (Plan, error) {
	return plan(o, true)
}

// UninstallClaude plans the removal of what Claude would add.
func UninstallClaude(o Options) (Plan, error) {
	return plan(o, false)
}

func plan(o Options, install bool) (Plan, error) {
	settings, commands, err := o.paths()
	if err != nil {
		return Plan{}, err
	}
	if install && !filepath.IsAbs(o.Binary) {
		return Plan{}, fmt.Errorf("binary path %q is not absolute", o.Binary)
	}
	p := Plan{Settings: settings}
	old, perm, err := readFile(settings)
	if err != nil {
		return p, err
	}
	var root any = newObject()
	if len(bytes.TrimSpace(old)) > 0 {
		if root, err = parseJSON(old); err != nil {
			return p, fmt.Errorf("read %s: not valid JSON (%v); fix or move it and run again", settings, err)
		}
	}
	obj, ok := root.(*object)
	if !ok {
		return p, fmt.Errorf("read %s: the settings are not a JSON object", settings)
	}
	before := encodeJSON(obj)
	if install {
		err = addHooks(obj, HookCommand(o.Binary))
	} else {
		err = removeHooks(obj)
	}
	if err != nil {
		return p, fmt.Errorf("update %s: %w", settings, err)
	}
	after := encodeJSON(obj)
	if old == nil && !install {
		after = nil // nothing to uninstall from a file that does not exist
	}
	p.Changes = append(p.Changes, fileChange(settings, old, before, after, perm, o.Now))
	for _, cf := range inject.Commands() {
		c, err := commandChange(filepath.Join(commands, cf.Name), cf, install, o.Now)
		if err != nil {
			return p, err
		}
		p.Changes = append(p.Changes, c)
	}
	return p, nil
}

func readFile(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return data, fi.Mode().Perm(), nil
}

func backupName(path string, now time.Time) string {
	return path + ".bak-" + now.UTC().Format("20060102T150405Z")
}

// fileChange compares settings before and after, as encoded, so that a file that only
// differs in layout is not rewritten.
func fileChange(path string, old, before, after []byte, perm fs.FileMode, now time.Time) Change {
	c := Change{Path: path, Content: after, perm: perm}
	switch {
	case old == nil && after == nil:
		c.Action = "unchanged"
	case old == nil:
		c.Action = "create"
	case bytes.Equal(before, after):
		c.Action = "unchanged"
		c.Content = nil
	default:
		c.Action = "update"
		c.Backup = backupName(path, now)
	}
	return c
}

func commandChange(path string, cf inject.CommandFile, install bool, now time.Time) (Change, error) {
	c := Change{Path: path, perm: 0o644}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	ours := exists && bytes.Contains(old, []byte("\n"+cf.Description+"\n"))
	switch {
	case install && !exists:
		c.Action, c.Content = "create", []byte(cf.Content)
	case install && string(old) == cf.Content:
		c.Action = "unchanged"
	case install:
		c.Action, c.Content = "update", []byte(cf.Content)
		if !ours {
			c.Backup = backupName(path, now)
			c.Note = "replaces a " + filepath.Base(path) + " that ralph-loop did not write"
		}
	case !exists:
		c.Action = "unchanged"
	case ours:
		c.Action = "remove"
	default:
		c.Action = "unchanged"
		c.Note = "kept: ralph-loop did not write it"
	}
	return c, nil
}

func objectAt(o *object, key string) (*object, error) {
	v, ok := o.get(key)
	if !ok || v == nil {
		n := newObject()
		o.set(key, n)
		return n, nil
	}
	n, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%q is not a JSON object", key)
	}
	return n, nil
}

func addHooks(root *object, command string) error {
	if err := removeHooks(root); err != nil {
		return err
	}
	hooks, err := objectAt(root, "hooks")
	if err != nil {
		return err
	}
	for _, ev := range events {
		var list []any
		if v, ok := hooks.get(ev.name); ok && v != nil {
			if list, ok = v.([]any); !ok {
				return fmt.Errorf("hooks.%s is not a JSON array", ev.name)
			}
		}
		h := newObject()
		h.set("type", "command")
		h.set("command", command)
		h.set("timeout", ev.timeout)
		g := newObject()
		if ev.matcher != "" {
			g.set("matcher", ev.matcher)
		}
		g.set("hooks", []any{h})
		hooks.set(ev.name, append(list, g))
	}
	env, err := objectAt(root, "env")
	if err != nil {
		return err
	}
	if _, ok := env.get(BlockCapEnv); !ok {
		env.set(BlockCapEnv, BlockCap)
	}
	return nil
}

// removeHooks takes out every ralph-loop hook entry, the groups and event lists it leaves
// empty, and the block-cap setting if it still has the value install gave it.
func removeHooks(root *object) error {
	if v, ok := root.get("hooks"); ok {
		hooks, ok := v.(*object)
		if !ok {
			return errors.New(`"hooks" is not a JSON object`)
		}
		for _, name := range append([]string(nil), hooks.keys...) {
			list, ok := hooks.vals[name].([]any)
			if !ok {
				continue
			}
			var kept []any
			for _, g := range list {
				if keep := withoutOurs(g); keep != nil {
					kept = append(kept, keep)
				}
			}
			switch {
			case len(kept) == len(list):
			case len(kept) == 0:
				hooks.del(name)
			default:
				hooks.set(name, kept)
			}
		}
		if len(hooks.keys) == 0 {
			root.del("hooks")
		}
	}
	if v, ok := root.get("env"); ok {
		if env, ok := v.(*object); ok {
			if cur, _ := env.get(BlockCapEnv); cur == BlockCap {
				env.del(BlockCapEnv)
				if len(env.keys) == 0 {
					root.del("env")
				}
			}
		}
	}
	return nil
}

// withoutOurs returns a hook group without ralph-loop's entries, or nil if nothing is left.
func withoutOurs(g any) any {
	group, ok := g.(*object)
	if !ok {
		return g
	}
	hs, ok := group.vals["hooks"].([]any)
	if !ok {
		return g
	}
	var kept []any
	for _, h := range hs {
		if ho, ok := h.(*object); ok {
			if cmd, ok := ho.vals["command"].(string); ok && IsHookCommand(cmd) {
				continue
			}
		}
		kept = append(kept, h)
	}
	if len(kept) == len(hs) {
		return g
	}
	if len(kept) == 0 {
		return nil
	}
	group.set("hooks", kept)
	return group
}

// Changed reports whether the plan writes or removes anything.
func (p Plan) Changed() bool {
	for _, c := range p.Changes {
		if c.Action != "unchanged" {
			return true
		}
	}
	return false
}

// Apply carries the plan out: backups first, then atomic writes and removals.
func (p Plan) Apply() error {
	for _, c := range p.Changes {
		switch c.Action {
		case "create", "update":
			if c.Backup != "" {
				old, err := os.ReadFile(c.Path)
				if err != nil {
					return fmt.Errorf("back up %s: %w", c.Path, err)
				}
				if err := state.WriteFileAtomic(c.Backup, old, c.perm); err != nil {
					return fmt.Errorf("back up %s: %w", c.Path, err)
				}
			}
			if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
				return fmt.Errorf("create %s: %w", filepath.Dir(c.Path), err)
			}
			if err := state.WriteFileAtomic(c.Path, c.Content, c.perm); err != nil {
				return err
			}
		case "remove":
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", c.Path, err)
			}
		}
	}
	return nil
}

// Describe is a short human account of a change.
func (c Change) Describe() string {
	s := fmt.Sprintf("%-9s %s", c.Action, c.Path)
	if c.Backup != "" {
		s += " (backup: " + c.Backup + ")"
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return strings.TrimSpace(s)
}
