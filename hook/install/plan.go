package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Options says where to install and with what.
type Options struct {
	// Scope is one of the host's scopes ("" for its first).
	Scope string
	// Dir is the project directory (project-based scopes, and looking for another scope's
	// hooks).
	Dir string
	// Getenv reads the environment (the host's user directory); nil: os.Getenv.
	Getenv func(string) string
	// Binary is the absolute path of the ralph-loop executable the hooks run (install at a
	// scope that is not shared).
	Binary string
	// StateDir is ralph-loop's state directory: records and backups go under
	// StateDir/install ("" keeps no record, and backups go beside the file).
	StateDir string
	// Force adds the hooks even when another scope of the host has them already.
	Force bool
	// Sandbox turns the host's sandbox for the agent's shell on at the scope, and puts
	// ralph-loop's files out of its reach (Sandboxer). KeepDir is ralph-loop's keep,
	// one of those files.
	Sandbox bool
	KeepDir string
	// ConfigDir is the directory of the user's own settings of ralph-loop's (the prices of
	// models): install --sandbox keeps it from the agent, as it keeps the state.
	ConfigDir string
	Now       time.Time
}

// Change is one file that install or uninstall writes or removes.
type Change struct {
	Path string
	// Action is "create", "update", "remove" or "unchanged".
	Action string
	// Content is the new content (create and update).
	Content []byte
	// Backup is where the previous content is saved before an update or removal ("" if
	// nothing is saved). Apply sets the final name.
	Backup string
	Note   string
	// What says what the change does in the file, one line each ("adds ralph-loop's hooks
	// for 10 events", "keeps your Stop timeout of 1800 s").
	What []string
	Perm fs.FileMode
	// Old is the content the plan was made from (nil: the file did not exist). Apply
	// writes only over that content; a file changed since is planned again.
	Old []byte
	// Dir: the change removes an empty directory.
	Dir bool
}

// Plan is what install or uninstall will do at one scope of one host.
type Plan struct {
	Target  *Target
	Scope   Scope
	Install bool
	// Settings is the hooks settings file.
	Settings string
	Changes  []Change
	// Skipped says why install adds nothing (the hooks are at another scope already).
	Skipped string
	// Notes are lines for the user about what was kept.
	Notes []string
	// RecordDir keeps the record and the backups ("" for none).
	RecordDir string
	// Command is the command line the hooks run (install).
	Command string

	record     *Record // to write after Apply (install), or nil
	dropRecord bool
}

// Changed reports whether the plan writes or removes anything.
func (p *Plan) Changed() bool {
	for _, c := range p.Changes {
		if c.Action != "unchanged" {
			return true
		}
	}
	return false
}

type target struct {
	scope      Scope
	userDir    string
	projectDir string
	settings   string
	commands   string
	getenv     func(string) string
}

func (inst *Target) target(o Options) (target, error) {
	t := target{projectDir: o.Dir, getenv: o.Getenv}
	if t.getenv == nil {
		t.getenv = os.Getenv
	}
	name := o.Scope
	if name == "" && len(inst.Scopes) > 0 {
		name = inst.Scopes[0].Name
	}
	s, ok := inst.Scope(name)
	if !ok {
		return t, fmt.Errorf("unknown scope %q for %s: want %s", o.Scope, inst.Title, inst.ScopeNames())
	}
	t.scope = s
	if d, err := inst.Host.UserDir(t.getenv); err == nil {
		t.userDir = d
	} else if s.Base == UserBase {
		return t, fmt.Errorf("find %s's user configuration directory: %w", inst.Title, err)
	}
	base := t.userDir
	if s.Base == ProjectBase {
		if o.Dir == "" {
			return t, errors.New("no project directory")
		}
		base = o.Dir
	}
	if base == "" {
		return t, fmt.Errorf("no user configuration directory for %s", inst.Title)
	}
	if s.Settings != "" {
		t.settings = filepath.Join(base, s.Settings)
	}
	if s.CommandsDir != "" {
		t.commands = filepath.Join(base, s.CommandsDir)
	}
	return t, nil
}

// sameAsOtherScope refuses a project-based scope whose settings file is another scope's (a
// project scope run from the home directory names the user's own settings). The user scope
// is never refused: its file is the user's wherever install runs, and from the home
// directory a project there would only name the same file.
func (inst *Target) sameAsOtherScope(o Options, t target) error {
	if t.settings == "" || t.scope.Base != ProjectBase {
		return nil
	}
	for _, s := range inst.Scopes {
		if s.Name == t.scope.Name {
			continue
		}
		oo := o
		oo.Scope = s.Name
		ot, err := inst.target(oo)
		if err != nil || ot.settings == "" || !samePath(ot.settings, t.settings) {
			continue
		}
		return fmt.Errorf("%s is %s's %s-scope settings, not a project's (the project directory %s is where they live): use --scope %s, or run from a project directory (or name one with --dir)",
			t.settings, inst.Title, s.Name, o.Dir, s.Name)
	}
	return nil
}

// samePath reports whether a and b name the same file (through links, if it exists).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// SettingsFile is the hooks settings file of a scope ("" if it cannot be found).
func (inst *Target) SettingsFile(scope, projectDir string, getenv func(string) string) string {
	t, err := inst.target(Options{Scope: scope, Dir: projectDir, Getenv: getenv})
	if err != nil {
		return ""
	}
	return t.settings
}

// Install plans adding ralph-loop to the host at a scope.
func (inst *Target) Install(o Options) (*Plan, error) { return inst.plan(o, true) }

func (inst *Target) plan(o Options, install bool) (*Plan, error) {
	t, err := inst.target(o)
	if err != nil {
		return nil, err
	}
	if err := inst.sameAsOtherScope(o, t); err != nil {
		return nil, err
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	p := &Plan{Target: inst, Scope: t.scope, Install: install, Settings: t.settings}
	if t.settings == "" {
		// A host without a hooks settings file (opencode: a plugin file runs ralph-loop):
		// its files are the plan.
		p.Settings = t.commands
	}
	if o.StateDir != "" {
		p.RecordDir = RecordDir(o.StateDir, inst.Name, t.scope.Name, p.Settings)
	}
	rec, err := readRecord(p.RecordDir)
	if err != nil {
		return p, err
	}
	if install && !t.scope.Shared && !filepath.IsAbs(o.Binary) {
		return p, fmt.Errorf("binary path %q is not absolute", o.Binary)
	}
	newRec := nextRecord(inst.Name, t.scope.Name, p.Settings, rec, o.Now)

	var after []byte
	if t.settings != "" {
		var skipped bool
		if after, skipped, err = inst.planSettings(o, t, p, rec, newRec, install); err != nil || skipped {
			return p, err
		}
	} else if install {
		p.Command = inst.commandFor(Event{}, o.Binary, inst.scriptPath(o), t.scope)
	}
	if err := inst.planFiles(o, t, p, rec, newRec, install); err != nil {
		return p, err
	}
	if err := inst.planScript(o, t, p, newRec, install); err != nil {
		return p, err
	}
	if err := inst.planExtra(o, t, p, rec, newRec, install, after); err != nil {
		return p, err
	}
	p.finish(rec, newRec)
	return p, nil
}

// nextRecord is the record an install at a scope starts from: the earlier one's (rec, nil
// for none), but for the command lines and files it writes now.
func nextRecord(host, scope, settings string, rec *Record, now time.Time) *Record {
	newRec := &Record{Host: host, Scope: scope, Settings: settings, Files: map[string]string{}, Extra: map[string]string{}}
	if rec != nil {
		*newRec = *rec
		newRec.Commands = nil // the commands written now
		newRec.Files = map[string]string{}
		for k, v := range rec.Files {
			newRec.Files[k] = v
		}
		newRec.Replaced = maps.Clone(rec.Replaced)
		if newRec.Extra == nil {
			newRec.Extra = map[string]string{}
		}
	}
	newRec.Updated = now.UTC()
	return newRec
}

// planFiles plans the host's command files and a PluginFiler's files.
func (inst *Target) planFiles(o Options, t target, p *Plan, rec, newRec *Record, install bool) error {
	cmds, hasCmds := inst.Host.(CommandFiler)
	plugin, hasPlugin := inst.Host.(PluginFiler)
	if t.commands == "" || !hasCmds && !hasPlugin {
		return nil
	}
	var files []File
	if hasCmds {
		files = cmds.Commands(t.scope.Name)
	}
	if hasPlugin {
		files = append(files, plugin.Files(CommandSpec{Target: inst, Binary: o.Binary, Portable: t.scope.Shared, Scope: t.scope.Name})...)
	}
	others, otherDirs := inst.otherInstalls(o, t)
	for _, cf := range files {
		path := filepath.Join(t.commands, cf.Name)
		c, err := commandChange(path, cf, install, rec, others[path])
		if err != nil {
			return err
		}
		if install {
			newRec.claim(path, cf, c, rec, others[path])
		}
		if c.Action == "create" {
			newRec.Created = addUnique(newRec.Created, path)
		}
		if install && newRec.Files[path] != "" {
			// A directory another scope's install made for a file both share is this
			// one's to remove too, once nothing is left in it.
			for _, d := range otherDirs {
				if rel, err := filepath.Rel(d, path); err == nil && filepath.IsLocal(rel) {
					newRec.Dirs = addUnique(newRec.Dirs, d)
				}
			}
		}
		p.Changes = append(p.Changes, c)
	}
	return nil
}

// planScript plans the host's hook script in ralph-loop's keep, for a host whose hooks are
// entries of its settings.
func (inst *Target) planScript(o Options, t target, p *Plan, newRec *Record, install bool) error {
	script := inst.scriptPath(o)
	if script == "" || t.settings == "" {
		return nil
	}
	others, otherDirs := inst.otherInstalls(o, t)
	c, err := scriptChange(script, inst.Script(), install, others[script].scope)
	if err != nil {
		return err
	}
	if install {
		newRec.Files[script] = hashOf([]byte(inst.Script()))
		for _, d := range otherDirs {
			// made by another scope's install for the script: this one's to remove too
			if rel, err := filepath.Rel(d, script); err == nil && filepath.IsLocal(rel) {
				newRec.Dirs = addUnique(newRec.Dirs, d)
			}
		}
	}
	p.Changes = append(p.Changes, c)
	return nil
}

// planExtra plans an Extender's changes, from the settings file as it will be (after; nil:
// it will not exist).
func (inst *Target) planExtra(o Options, t target, p *Plan, rec, newRec *Record, install bool, after []byte) error {
	extra, ok := inst.Host.(Extender)
	if !ok {
		return nil
	}
	var content []byte
	if after != nil {
		content = after
	}
	ex, err := extra.Extra(ExtraInput{Target: inst, Scope: t.scope, Install: install, Settings: t.settings, Content: content,
		UserDir: t.userDir, ProjectDir: t.projectDir, Getenv: t.getenv, Record: rec, Now: o.Now})
	if err != nil {
		return err
	}
	for _, c := range ex {
		if c.Action == "create" {
			newRec.Created = addUnique(newRec.Created, c.Path)
		}
	}
	p.Changes = append(p.Changes, ex...)
	return nil
}

// finish completes the plan once its changes are known: an install's record gets the
// directories its files create, an uninstall removes the ones it leaves empty; and each
// backup gets its directory (the record's, or else beside the file).
func (p *Plan) finish(rec, newRec *Record) {
	if p.Install {
		for _, c := range p.Changes {
			if c.Action == "create" {
				for _, d := range missingDirs(filepath.Dir(c.Path)) {
					newRec.Dirs = addUnique(newRec.Dirs, d)
				}
			}
		}
		p.record = newRec
	} else {
		p.Changes = append(p.Changes, emptyDirs(rec, p.Changes)...)
		p.dropRecord = true
	}
	if p.RecordDir != "" {
		for i := range p.Changes {
			if p.Changes[i].Backup != "" {
				p.Changes[i].Backup = filepath.Join(p.RecordDir, "backups")
			}
		}
	} else {
		for i := range p.Changes {
			if p.Changes[i].Backup != "" {
				p.Changes[i].Backup = filepath.Dir(p.Changes[i].Path)
			}
		}
	}
}

// planSettings plans the change to the hooks settings file: ralph-loop's hooks and settings
// added (install) or removed. It returns what the file will hold (nil: it will not exist),
// or skipped when install adds nothing because the hooks are at another scope already.
func (inst *Target) planSettings(o Options, t target, p *Plan, rec, newRec *Record, install bool) (after []byte, skipped bool, err error) {
	sd, err := inst.readSettings(t.settings)
	if err != nil {
		return nil, false, err
	}
	obj := sd.obj
	before := encodeJSON(obj)
	var orig any
	if sd.doc != nil {
		orig, _ = plainValue(sd.old) // a second copy: obj is edited in place
	}

	if install && rec == nil {
		newRec.Kept = inst.present(obj)
	}
	prior := inst.ourHooks(obj, rec)
	had, err := inst.removeHooks(obj, rec, !install)
	if err != nil {
		return nil, false, sd.where("update", err)
	}
	if install && !had {
		where, note := inst.hooksElsewhere(o, t)
		if where != "" && !o.Force {
			p.Skipped = where
			return nil, true, nil
		}
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
	}
	var what []string
	if install {
		if what, err = inst.addOurs(o, t, p, obj, newRec, prior); err != nil {
			return nil, false, sd.where("update", err)
		}
	} else {
		what = inst.takeOutOurs(p, obj, rec, prior)
	}
	after = encodeJSON(obj)
	if sd.doc != nil && !bytes.Equal(before, after) {
		// The file as the user wrote it, with only the difference patched in.
		sd.doc.patch(orig, obj)
		after = sd.doc.pack()
	}
	sc, after, err := sd.change(before, after, what, install, rec, newRec)
	if err != nil {
		return nil, false, err
	}
	p.Changes = append(p.Changes, sc)
	return after, false, nil
}

// settingsDoc is a hooks settings file as install read it: its content (old, nil if it
// does not exist) and mode, its document as written (doc, nil for an empty file) and its
// value, which the plan edits.
type settingsDoc struct {
	path string
	old  []byte
	perm fs.FileMode
	doc  *jsonDoc
	obj  *object
}

// readSettings reads the hooks settings file at path, which must hold a JSON object (in the
// host's Syntax); a missing or empty file is an empty object.
func (inst *Target) readSettings(path string) (*settingsDoc, error) {
	old, perm, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var root any = newObject()
	var doc *jsonDoc
	if len(bytes.TrimSpace(bytes.TrimPrefix(old, bom))) > 0 {
		if doc, root, err = parseDoc(old, inst.Syntax, inst.Title); err != nil {
			if de, ok := err.(*docError); ok {
				return nil, fmt.Errorf("read %s:%s: not valid JSON (%s); fix or move it and run again", path, de.at, de.msg)
			}
			return nil, fmt.Errorf("read %s: not valid JSON (%v); fix or move it and run again", path, err)
		}
	}
	obj, ok := root.(*object)
	if !ok {
		return nil, fmt.Errorf("read %s:%s: the settings are not a JSON object", path, lineCol(bytes.TrimPrefix(old, bom), doc.root.StartOffset))
	}
	return &settingsDoc{path: path, old: old, perm: perm, doc: doc, obj: obj}, nil
}

// where says an error about the shape of the settings at its place in the file.
func (sd *settingsDoc) where(verb string, err error) error {
	var se *shapeError
	if errors.As(err, &se) && sd.doc != nil {
		if off := sd.doc.offsetOf(se.path); off >= 0 {
			return fmt.Errorf("%s %s:%s: %w", verb, sd.path, lineCol(bytes.TrimPrefix(sd.old, bom), off), err)
		}
	}
	return fmt.Errorf("%s %s: %w", verb, sd.path, err)
}

// addOurs adds ralph-loop's hooks, settings and sandbox entries to the settings root (an
// install), and says what it changed.
func (inst *Target) addOurs(o Options, t target, p *Plan, obj *object, newRec *Record, prior map[string]ourHook) (what []string, err error) {
	if p.Command, what, err = inst.addHooks(obj, o.Binary, inst.scriptPath(o), t.scope, newRec, prior); err != nil {
		return nil, err
	}
	set, err := inst.addSettings(obj, newRec)
	if err != nil {
		return nil, err
	}
	what = append(what, set...)
	sb, err := inst.addSandbox(o, t, obj, newRec, p)
	if err != nil {
		return nil, err
	}
	return append(what, sb...), nil
}

// takeOutOurs takes out of the settings root what install added besides its hooks (an
// uninstall: removeHooks has taken them out), and says what it changed.
func (inst *Target) takeOutOurs(p *Plan, obj *object, rec *Record, prior map[string]ourHook) (what []string) {
	if len(prior) > 0 {
		what = append(what, fmt.Sprintf("takes out ralph-loop's hooks for %s", events(len(prior))))
	}
	notes, removed := inst.removeSettings(obj, rec)
	p.Notes = append(p.Notes, notes...)
	what = append(what, removed...)
	if n := inst.removeSandbox(obj, rec); n > 0 {
		what = append(what, fmt.Sprintf("takes out the %d sandbox settings and deny entries install added", n))
	}
	for _, c := range inst.lookalikes(obj) {
		p.Notes = append(p.Notes, "kept a hook that install did not write (remove it by hand if it is ralph-loop's): "+c)
	}
	return what
}

// change is the change to the settings file, from before (its value as encoded) to after;
// what says what it does. It returns what the file will hold (nil: it will not exist): an
// uninstall leaves no file that did not exist, and removes one install created that it
// leaves empty. A read-only file is refused.
func (sd *settingsDoc) change(before, after []byte, what []string, install bool, rec, newRec *Record) (Change, []byte, error) {
	createdSettings := rec != nil && slices.Contains(rec.Created, sd.path)
	switch {
	case sd.old == nil && !install:
		after = nil // nothing to uninstall from a file that does not exist
	case !install && createdSettings && len(sd.obj.keys) == 0:
		after = nil // install created it: remove what is left empty
	}
	sc := fileChange(sd.path, sd.old, before, after, sd.perm)
	if sc.Action == "update" && after == nil {
		// What is left is empty: nothing of the user's to back up.
		sc.Action, sc.Backup = "remove", ""
	}
	if sc.Action != "unchanged" {
		sc.What = what
		if sd.old != nil && sd.perm&0o200 == 0 {
			// The user's way of saying "leave it": never replaced behind their back.
			return sc, nil, fmt.Errorf("%s is read-only (mode %04o): make it writable (chmod u+w %s) and run again, or change it by hand",
				sd.path, sd.perm, sd.path)
		}
	}
	if sc.Action == "create" {
		newRec.Created = addUnique(newRec.Created, sd.path)
	}
	return sc, after, nil
}

// missingDirs lists dir and its parents that do not exist yet, deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// emptyDirs plans removing the directories install created that the other changes leave
// empty, deepest first.
func emptyDirs(rec *Record, changes []Change) []Change {
	if rec == nil {
		return nil
	}
	gone := map[string]bool{}
	for _, c := range changes {
		if c.Action == "remove" {
			gone[c.Path] = true
		}
	}
	dirs := append([]string(nil), rec.Dirs...)
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	var out []Change
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		empty := true
		for _, e := range entries {
			if !gone[filepath.Join(d, e.Name())] {
				empty = false
				break
			}
		}
		if empty {
			gone[d] = true
			out = append(out, Change{Path: d, Action: "remove", Dir: true})
		}
	}
	return out
}

// hooksElsewhere names another scope of the host whose settings hold ralph-loop's hooks
// that would run beside the ones install is adding ("" if none): any other scope when
// installing at a shared scope; when installing at a scope of this machine's own, the other
// such scopes only (a shared scope's hooks defer to these, see Defers). note is set when a
// shared scope's hooks will defer.
func (inst *Target) hooksElsewhere(o Options, self target) (where, note string) {
	for _, s := range inst.Scopes {
		if s.Name == self.scope.Name {
			continue
		}
		oo := o
		oo.Scope = s.Name
		t, err := inst.target(oo)
		if err != nil || t.settings == "" || samePath(t.settings, self.settings) {
			continue
		}
		data, _, err := readFile(t.settings)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		v, err := plainValue(data)
		if err != nil {
			continue
		}
		obj, ok := v.(*object)
		if !ok {
			continue
		}
		var rec *Record
		if o.StateDir != "" {
			rec, _ = readRecord(RecordDir(o.StateDir, inst.Name, s.Name, t.settings))
		}
		if had, _ := inst.removeHooks(obj, rec, false); !had {
			continue
		}
		if s.Shared && !self.scope.Shared {
			note = fmt.Sprintf("ralph-loop's hooks in %s (%s scope) will leave the events to these on this machine", t.settings, s.Name)
			continue
		}
		return fmt.Sprintf("ralph-loop's hooks are already in %s (%s scope)", t.settings, s.Name), note
	}
	return "", note
}

// fileChange compares settings before and after, as encoded, so that a file that only
// differs in layout is not rewritten.
func fileChange(path string, old, before, after []byte, perm fs.FileMode) Change {
	c := Change{Path: path, Content: after, Perm: perm, Old: old}
	switch {
	case old == nil && after == nil:
		c.Action = "unchanged"
	case old == nil:
		c.Action = "create"
	case after != nil && (bytes.Equal(before, after) || bytes.Equal(old, after)):
		c.Action = "unchanged"
		c.Content = nil
	default:
		c.Action = "update"
		c.Backup = "yes"
	}
	return c
}

// commandChange plans one command file (or a file of a PluginFiler). A file is this scope's
// to replace without a backup, or to remove, only when this scope's install wrote it (its
// record says so) and it is unchanged since, or it holds exactly what this ralph-loop
// writes. Uninstall keeps a file another scope's install on this machine uses too (Claude
// Code's local and project scopes share .claude/commands), a file it did not write (a
// teammate's committed one), and one edited since; it puts back a file install replaced.
// other: another scope's install that records the file as its own.
func commandChange(path string, cf File, install bool, rec *Record, other otherInstall) (Change, error) {
	c := Change{Path: path, Perm: 0o644}
	old, _, err := readFile(path)
	if err != nil {
		return c, err
	}
	c.Old = old
	exists := old != nil
	wrote := rec != nil && rec.Files[path] != ""
	current := exists && (string(old) == cf.Content || wrote && rec.Files[path] == hashOf(old))
	switch {
	case install && !exists:
		c.Action, c.Content = "create", []byte(cf.Content)
	case install && string(old) == cf.Content:
		c.Action = "unchanged"
	case install:
		c.Action, c.Content = "update", []byte(cf.Content)
		switch {
		case current || other.scope != "" && other.hash == hashOf(old):
			// An earlier version of ralph-loop's own, written on this machine.
		case wrote:
			c.Backup, c.Note = "yes", "replaces a "+filepath.Base(path)+" edited since install wrote it"
		case cf.Mark != "" && bytes.Contains(old, []byte(cf.Mark)):
			c.Backup, c.Note = "yes", "replaces another version of "+filepath.Base(path)
		default:
			c.Backup, c.Note = "yes", "replaces a "+filepath.Base(path)+" that ralph-loop did not write"
		}
	case !exists:
		c.Action = "unchanged"
	case !wrote:
		c.Action, c.Note = "unchanged", "kept: this install did not write it"
	case !current:
		c.Action, c.Note = "unchanged", "kept: edited since install wrote it"
	case other.scope != "":
		c.Action, c.Note = "unchanged", "kept: the "+other.scope+"-scope install uses it too"
	case rec.Replaced[path] != "":
		c.Action, c.Content, c.Note = "update", []byte(rec.Replaced[path]), "puts back the file install replaced"
	default:
		c.Action = "remove"
	}
	return c, nil
}

// scriptPath is where install writes the host's hook script ("" for a host whose hooks run
// no command line of install's, or without a keep).
func (inst *Target) scriptPath(o Options) string {
	if _, ok := inst.Host.(Encoder); o.KeepDir == "" || !ok {
		return ""
	}
	return ScriptPath(o.KeepDir, inst.Name)
}

// scriptChange plans the host's hook script: written as this ralph-loop has it (the file is
// ralph-loop's own, in its keep: an earlier version's is replaced without a backup), and
// removed by uninstall unless another scope's install on this machine (other) still runs it.
func scriptChange(path, content string, install bool, other string) (Change, error) {
	c := Change{Path: path, Perm: 0o600}
	old, _, err := readFile(path)
	if err != nil {
		return c, err
	}
	c.Old = old
	switch {
	case install && old == nil:
		c.Action, c.Content = "create", []byte(content)
	case install && string(old) == content:
		c.Action = "unchanged"
	case install:
		c.Action, c.Content = "update", []byte(content)
	case old == nil:
		c.Action = "unchanged"
	case other != "":
		c.Action, c.Note = "unchanged", "kept: the "+other+"-scope install uses it too"
	default:
		c.Action = "remove"
	}
	return c, nil
}

// otherInstall is another scope's install that records a file as its own: the scope's name
// ("" for none) and the hash of what it wrote.
type otherInstall struct{ scope, hash string }

// otherInstalls are the files the installs at the host's other scopes on this machine record
// as their own, by path, and the directories they created.
func (inst *Target) otherInstalls(o Options, self target) (files map[string]otherInstall, dirs []string) {
	files = map[string]otherInstall{}
	if o.StateDir == "" {
		return files, nil
	}
	for _, s := range inst.Scopes {
		if s.Name == self.scope.Name {
			continue
		}
		oo := o
		oo.Scope = s.Name
		t, err := inst.target(oo)
		if err != nil {
			continue
		}
		settings := t.settings
		if settings == "" {
			settings = t.commands
		}
		if settings == "" {
			continue
		}
		rec, _ := readRecord(RecordDir(o.StateDir, inst.Name, s.Name, settings))
		if rec == nil {
			continue
		}
		for path, hash := range rec.Files {
			files[path] = otherInstall{s.Name, hash}
		}
		dirs = append(dirs, rec.Dirs...)
	}
	return files, dirs
}

// objectAt returns the object at a key path, creating missing objects if create.
func objectAt(o *object, path []string, create bool) (*object, error) {
	cur := o
	for i, key := range path {
		v, ok := cur.get(key)
		if !ok || v == nil {
			if !create {
				return nil, nil
			}
			n := newObject()
			cur.set(key, n)
			cur = n
			continue
		}
		n, ok := v.(*object)
		if !ok {
			return nil, &shapeError{path: slices.Clone(path[:i+1]), want: "object"}
		}
		cur = n
	}
	return cur, nil
}

// ourHook is ralph-loop's hook for an event as the settings held it before install changed
// them: the index in the event's list of the first element that held it, its command line
// and its timeout (in the host's unit; 0: none).
type ourHook struct {
	at      int
	cmd     string
	timeout float64
}

// ourHooks finds ralph-loop's hooks in the settings, by event.
func (inst *Target) ourHooks(root *object, rec *Record) map[string]ourHook {
	out := map[string]ourHook{}
	hooks, _ := objectAt(root, inst.hooksPath(), false)
	if hooks == nil {
		return out
	}
	key := inst.TimeoutKey
	if key == "" {
		key = "timeout"
	}
	for _, name := range hooks.keys {
		list, _ := hooks.vals[name].([]any)
		for i, g := range list {
			entries := []any{g}
			if inst.Shape == Nested {
				if o, ok := g.(*object); ok {
					entries, _ = o.vals["hooks"].([]any)
				}
			}
			for _, e := range entries {
				o, ok := e.(*object)
				if !ok || !inst.ourEntry(o, rec) {
					continue
				}
				h := ourHook{at: i}
				for _, k := range inst.commandKeys() {
					if c, ok := o.vals[k].(string); ok {
						h.cmd = c
					}
				}
				if n, ok := o.vals[key].(json.Number); ok {
					h.timeout, _ = n.Float64()
				}
				out[name] = h
				break
			}
			if _, found := out[name]; found {
				break
			}
		}
	}
	return out
}

// events is "1 event" or "N events".
func events(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

// addHooks adds ralph-loop's hook for each event, where its earlier one was (prior) or else
// after the user's own, keeping a timeout the user raised. It returns the command line the
// hooks run and what it changed, one line each.
func (inst *Target) addHooks(root *object, binary, script string, scope Scope, rec *Record, prior map[string]ourHook) (string, []string, error) {
	hooks, err := objectAt(root, inst.hooksPath(), true)
	if err != nil {
		return "", nil, err
	}
	entry := DefaultEntry
	if m, ok := inst.Host.(EntryMaker); ok {
		entry = m.Entry
	}
	var what []string
	added, replaced := 0, 0
	for _, ev := range inst.Events {
		var list []any
		if v, ok := hooks.get(ev.Name); ok && v != nil {
			if list, ok = v.([]any); !ok {
				return "", nil, &shapeError{path: append(slices.Clone(inst.hooksPath()), ev.Name), want: "array"}
			}
		}
		cmd := inst.commandFor(ev, binary, script, scope)
		rec.addCommand(cmd)
		timeout := int64(ev.Timeout / inst.unit())
		was, had := prior[ev.Name]
		switch {
		case !had:
			added++
		case was.cmd != cmd:
			replaced++
		}
		if had && was.timeout > float64(timeout) {
			// The user raised it (ralph-loop's own warning tells them to): theirs stays.
			timeout = int64(math.Ceil(was.timeout))
			what = append(what, fmt.Sprintf("keeps your %s timeout of %s (ralph-loop writes %s)", ev.Name, inst.seconds(timeout), inst.seconds(int64(ev.Timeout/inst.unit()))))
		} else if had && was.timeout > 0 && was.timeout < float64(timeout) {
			what = append(what, fmt.Sprintf("%s timeout %s raised to %s (less cuts the hook short)", ev.Name, inst.seconds(int64(math.Ceil(was.timeout))), inst.seconds(timeout)))
		}
		e := fieldsObject(entry(ev, cmd, timeout))
		var item any = e
		if inst.Shape != Flat {
			g := newObject()
			if ev.Matcher != "" {
				g.set("matcher", ev.Matcher)
			}
			g.set("hooks", []any{e})
			item = g
		}
		if had && was.at <= len(list) {
			// Where it was: the elements before it held none of ralph-loop's, and are all there.
			list = slices.Insert(slices.Clone(list), was.at, item)
		} else {
			list = append(list, item)
		}
		hooks.set(ev.Name, list)
	}
	if added > 0 {
		what = append([]string{fmt.Sprintf("adds ralph-loop's hooks for %s", events(added))}, what...)
	}
	if replaced > 0 {
		run := "the ralph-loop on PATH"
		if !scope.Shared {
			run = binary
		}
		what = append([]string{fmt.Sprintf("replaces ralph-loop's hooks for %s (now running %s)", events(replaced), run)}, what...)
	}
	return inst.commandFor(Event{}, binary, script, scope), what, nil
}

// seconds says a timeout in the host's unit in seconds ("900 s").
func (inst *Target) seconds(n int64) string {
	d := time.Duration(n) * inst.unit()
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// present lists the key paths of the objects and lists install adds to that the settings
// hold already (see Record.Kept).
func (inst *Target) present(root *object) []string {
	var out []string
	has := func(path []string) bool {
		parent, err := objectAt(root, path[:len(path)-1], false)
		if err != nil || parent == nil {
			return false
		}
		_, ok := parent.get(path[len(path)-1])
		return ok
	}
	hp := inst.hooksPath()
	for i := range hp {
		if has(hp[:i+1]) {
			out = append(out, strings.Join(hp[:i+1], "."))
		}
	}
	for _, ev := range inst.Events {
		if p := append(slices.Clone(hp), ev.Name); has(p) {
			out = addUnique(out, strings.Join(p, "."))
		}
	}
	for _, s := range inst.Settings {
		for i := 1; i < len(s.Path); i++ {
			if has(s.Path[:i]) {
				out = addUnique(out, strings.Join(s.Path[:i], "."))
			}
		}
	}
	return out
}

// removeHooks takes out every ralph-loop hook entry, and the groups, event lists and hooks
// object it leaves empty. had reports whether there was any.
func (inst *Target) removeHooks(root *object, rec *Record, prune bool) (had bool, err error) {
	path := inst.hooksPath()
	hooks, err := objectAt(root, path, false)
	if err != nil || hooks == nil {
		return false, err
	}
	for _, name := range append([]string(nil), hooks.keys...) {
		list, ok := hooks.vals[name].([]any)
		if !ok {
			continue
		}
		var kept []any
		changed := false
		for _, g := range list {
			keep, ch := g, false
			if inst.Shape == Flat {
				if inst.ourEntry(g, rec) {
					keep, ch = nil, true
				}
			} else {
				keep, ch = inst.withoutOurs(g, rec)
			}
			changed = changed || ch
			if keep != nil {
				kept = append(kept, keep)
			}
		}
		switch {
		case !changed:
		case len(kept) == 0 && (!prune || rec.kept(append(slices.Clone(path), name)...)):
			// Install adds to it again, in its place; uninstall leaves the user's list
			// as it was before install, empty.
			had = true
			hooks.set(name, []any{})
		case len(kept) == 0:
			had = true
			hooks.del(name)
		default:
			had = true
			hooks.set(name, kept)
		}
	}
	if prune && len(path) > 0 && len(hooks.keys) == 0 && !rec.kept(path...) {
		parent, _ := objectAt(root, path[:len(path)-1], false)
		parent.del(path[len(path)-1])
	}
	return had, nil
}

func (inst *Target) ourEntry(e any, rec *Record) bool {
	o, ok := e.(*object)
	if !ok {
		return false
	}
	for _, k := range inst.commandKeys() {
		if cmd, ok := o.vals[k].(string); ok && inst.Ours(cmd, rec) {
			return true
		}
	}
	return false
}

// withoutOurs returns a hook group without ralph-loop's entries (a copy if any were
// taken out), or nil if nothing is left; changed reports whether any were.
func (inst *Target) withoutOurs(g any, rec *Record) (keep any, changed bool) {
	group, ok := g.(*object)
	if !ok {
		return g, false
	}
	hs, ok := group.vals["hooks"].([]any)
	if !ok {
		return g, false
	}
	var kept []any
	for _, e := range hs {
		if !inst.ourEntry(e, rec) {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(hs) {
		return g, false
	}
	if len(kept) == 0 {
		return nil, true
	}
	n := newObject()
	for _, k := range group.keys {
		n.set(k, group.vals[k])
	}
	n.set("hooks", kept)
	return n, true
}

// addSettings sets each of the host's settings that the file does not set, recording it,
// and says which it set.
func (inst *Target) addSettings(root *object, rec *Record) ([]string, error) {
	var what []string
	for _, s := range inst.Settings {
		parent, err := objectAt(root, s.Path[:len(s.Path)-1], true)
		if err != nil {
			return nil, err
		}
		key := s.Path[len(s.Path)-1]
		if cur, ok := parent.get(key); ok {
			if r, ok := rec.setRecorded(s.Path); ok && !sameJSON(cur, r.Value) {
				rec.Set = slices.DeleteFunc(rec.Set, func(x Setting) bool { return slices.Equal(x.Path, s.Path) })
			}
			continue
		}
		parent.set(key, s.Value)
		rec.Set = slices.DeleteFunc(rec.Set, func(x Setting) bool { return slices.Equal(x.Path, s.Path) })
		rec.Set = append(rec.Set, s)
		what = append(what, "sets "+strings.Join(s.Path, "."))
	}
	// Objects left empty by an earlier objectAt (a setting already set) are not created.
	return what, nil
}

// removeSettings removes the settings the record says install set, if they still have the
// value install gave them, and the objects that leaves empty. It returns notes on what it
// kept, and what it took out.
func (inst *Target) removeSettings(root *object, rec *Record) (notes, removed []string) {
	for _, s := range inst.Settings {
		parent, err := objectAt(root, s.Path[:len(s.Path)-1], false)
		if err != nil || parent == nil {
			continue
		}
		key := s.Path[len(s.Path)-1]
		cur, ok := parent.get(key)
		if !ok {
			continue
		}
		r, recorded := Setting{}, false
		if rec != nil {
			r, recorded = rec.setRecorded(s.Path)
		}
		if !recorded || !sameJSON(cur, r.Value) {
			notes = append(notes, "kept "+strings.Join(s.Path, ".")+": install did not set it")
			continue
		}
		parent.del(key)
		removed = append(removed, "takes out "+strings.Join(s.Path, "."))
		for i := len(s.Path) - 1; i > 0; i-- {
			o, _ := objectAt(root, s.Path[:i], false)
			if o == nil || len(o.keys) > 0 || rec.kept(s.Path[:i]...) {
				break
			}
			up, _ := objectAt(root, s.Path[:i-1], false)
			up.del(s.Path[i-1])
		}
	}
	return notes, removed
}

// lookalikes lists the hook command lines left that mention ralph-loop's hook for this
// host: a wrapper or a copy uninstall does not recognise as its own.
func (inst *Target) lookalikes(root *object) []string {
	hooks, _ := objectAt(root, inst.hooksPath(), false)
	if hooks == nil {
		return nil
	}
	var out []string
	var visit func(v any)
	visit = func(v any) {
		switch t := v.(type) {
		case *object:
			for _, k := range t.keys {
				visit(t.vals[k])
			}
		case []any:
			for _, e := range t {
				visit(e)
			}
		case string:
			if strings.Contains(t, "ralph") && strings.Contains(t, "hook --host "+inst.Name) && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	visit(hooks)
	return out
}
