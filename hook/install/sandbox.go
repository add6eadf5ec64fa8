package install

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Sandbox is what turns a host's sandbox for the agent's shell on at a scope and puts
// ralph-loop's files out of its reach (install --sandbox).
type Sandbox struct {
	// On are the settings that turn the sandbox on with no way out of it: install --sandbox
	// sets each one the file does not set, and stops when the file sets one to another
	// value (the user's choice, which install does not override).
	On []Setting
	// Deny are the entries added to lists of the settings (the sandbox's write deny list,
	// the file tools' deny rules): install adds each one a list lacks, with --sandbox or
	// when the host's sandbox is on already; uninstall takes out those it added.
	Deny []Entry
	// Notes are lines for the user (paths left out at a shared scope).
	Notes []string
}

// Entry is one string in a list of the settings, at a key path.
type Entry struct {
	Path  []string `json:"path"`
	Value string   `json:"value"`
}

// SandboxInput is what a host's Sandbox needs to name ralph-loop's files.
type SandboxInput struct {
	Scope      Scope
	ProjectDir string
	UserDir    string
	Getenv     func(string) string
	// Binary is the ralph-loop the hooks run ("" at a shared scope: the one on PATH).
	Binary string
	// StateDir and KeepDir are ralph-loop's state directory and its keep; ConfigDir the
	// directory of the user's own settings (the prices of models), which ralph-loop trusts.
	StateDir, KeepDir, ConfigDir string
}

// addSandbox adds what the host's Sandbox says to the settings root: its On settings with
// --sandbox, its Deny entries with --sandbox or when the host's sandbox is on already. It
// says what it changed.
func (inst *Target) addSandbox(o Options, t target, root *object, rec *Record, p *Plan) ([]string, error) {
	sandboxer, ok := inst.Host.(Sandboxer)
	if !ok {
		if o.Sandbox {
			return nil, fmt.Errorf("%s has no sandbox ralph-loop can turn on", inst.Title)
		}
		return nil, nil
	}
	if !o.Sandbox && !sandboxer.SandboxOn(t.getenv, t.projectDir) {
		return nil, nil
	}
	var what []string
	denied := 0
	sb := sandboxer.Sandbox(SandboxInput{Scope: t.scope, ProjectDir: t.projectDir, UserDir: t.userDir, Getenv: t.getenv,
		Binary: o.Binary, StateDir: o.StateDir, KeepDir: o.KeepDir, ConfigDir: o.ConfigDir})
	p.Notes = append(p.Notes, sb.Notes...)
	if o.Sandbox {
		for _, s := range sb.On {
			parent, err := inst.made(root, s.Path[:len(s.Path)-1], rec)
			if err != nil {
				return nil, err
			}
			key := s.Path[len(s.Path)-1]
			if cur, ok := parent.get(key); ok {
				if !sameJSON(cur, s.Value) {
					return nil, fmt.Errorf("%s sets %s to %s, and --sandbox sets it to %s: change it there, or install without --sandbox",
						t.settings, strings.Join(s.Path, "."), bytes.TrimSpace(encodeJSON(cur)), bytes.TrimSpace(encodeJSON(s.Value)))
				}
				continue
			}
			parent.set(key, s.Value)
			rec.Set = slices.DeleteFunc(rec.Set, func(x Setting) bool { return slices.Equal(x.Path, s.Path) })
			rec.Set = append(rec.Set, s)
			what = append(what, "sets "+strings.Join(s.Path, ".")+" to "+string(bytes.TrimSpace(encodeJSON(s.Value))))
		}
	}
	for _, e := range sb.Deny {
		parent, err := inst.made(root, e.Path[:len(e.Path)-1], rec)
		if err != nil {
			return nil, err
		}
		key := e.Path[len(e.Path)-1]
		cur, ok := parent.get(key)
		if !ok {
			cur = []any{}
			rec.Made = addUnique(rec.Made, strings.Join(e.Path, "."))
		}
		list, isList := cur.([]any)
		if !isList {
			return nil, &shapeError{path: slices.Clone(e.Path), want: "array"}
		}
		if slices.ContainsFunc(list, func(v any) bool { return v == e.Value }) {
			continue // there already: the user's, or added before (and recorded then)
		}
		parent.set(key, append(list, e.Value))
		rec.Added = append(rec.Added, e)
		denied++
	}
	if denied > 0 {
		what = append(what, fmt.Sprintf("adds %d entries that keep the agent's shell and file tools off ralph-loop's files", denied))
	}
	return what, nil
}

// made returns the object at path, creating what is missing and recording it as made by
// install.
func (inst *Target) made(root *object, path []string, rec *Record) (*object, error) {
	for i := 1; i <= len(path); i++ {
		if o, err := objectAt(root, path[:i], false); err != nil {
			return nil, err
		} else if o == nil {
			rec.Made = addUnique(rec.Made, strings.Join(path[:i], "."))
		}
	}
	return objectAt(root, path, true)
}

// removeSandbox takes out what install added for the sandbox, as the record says: the
// entries it added (if still there), the settings it set that are not the host's usual
// ones (if they still hold its value), and then the objects and lists it made that this
// leaves empty. It returns how many entries and settings it took out.
func (inst *Target) removeSandbox(root *object, rec *Record) (n int) {
	if rec == nil {
		return 0
	}
	for _, e := range rec.Added {
		parent, err := objectAt(root, e.Path[:len(e.Path)-1], false)
		if err != nil || parent == nil {
			continue
		}
		key := e.Path[len(e.Path)-1]
		list, ok := parent.vals[key].([]any)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(list, func(v any) bool { return v == e.Value }); i >= 0 {
			parent.set(key, slices.Delete(slices.Clone(list), i, i+1))
			n++
		}
	}
	for _, s := range rec.Set {
		if slices.ContainsFunc(inst.Settings, func(x Setting) bool { return slices.Equal(x.Path, s.Path) }) {
			continue // removeSettings' own
		}
		parent, err := objectAt(root, s.Path[:len(s.Path)-1], false)
		if err != nil || parent == nil {
			continue
		}
		if cur, ok := parent.get(s.Path[len(s.Path)-1]); ok && sameJSON(cur, s.Value) {
			parent.del(s.Path[len(s.Path)-1])
			n++
		}
	}
	made := slices.Clone(rec.Made)
	slices.SortFunc(made, func(a, b string) int { return strings.Count(b, ".") - strings.Count(a, ".") })
	for _, m := range made {
		path := strings.Split(m, ".")
		parent, err := objectAt(root, path[:len(path)-1], false)
		if err != nil || parent == nil {
			continue
		}
		switch v := parent.vals[path[len(path)-1]].(type) {
		case []any:
			if len(v) == 0 {
				parent.del(path[len(path)-1])
			}
		case *object:
			if len(v.keys) == 0 {
				parent.del(path[len(path)-1])
			}
		}
	}
	return n
}
