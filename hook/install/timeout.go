package install

import (
	"encoding/json"
	"time"
)

// HookTimeout finds the timeout of ralph-loop's hook for an event in the host's settings
// at every scope (the longest, if several set one). ok is false when none sets one.
func (inst *Target) HookTimeout(event, projectDir string, getenv func(string) string) (d time.Duration, ok bool) {
	key := inst.TimeoutKey
	if key == "" {
		key = "timeout"
	}
	for _, s := range inst.Scopes {
		if s.Base == ProjectBase && projectDir == "" {
			continue
		}
		path := inst.SettingsFile(s.Name, projectDir, getenv)
		if path == "" {
			continue
		}
		data, _, err := readFile(path)
		if err != nil || len(data) == 0 {
			continue
		}
		v, err := plainValue(data)
		if err != nil {
			continue
		}
		root, isObj := v.(*object)
		if !isObj {
			continue
		}
		hooks, _ := objectAt(root, inst.hooksPath(), false)
		if hooks == nil {
			continue
		}
		list, _ := hooks.vals[event].([]any)
		var entries []any
		for _, g := range list {
			if inst.Shape == Flat {
				entries = append(entries, g)
			} else if o, ok := g.(*object); ok {
				hs, _ := o.vals["hooks"].([]any)
				entries = append(entries, hs...)
			}
		}
		for _, e := range entries {
			o, isObj := e.(*object)
			if !isObj || !inst.ourEntry(o, nil) {
				continue
			}
			n, isNum := o.vals[key].(json.Number)
			if !isNum {
				continue
			}
			f, err := n.Float64()
			if err != nil || f <= 0 {
				continue
			}
			t := time.Duration(f * float64(inst.unit()))
			if !ok || t > d {
				d, ok = t, true
			}
		}
	}
	return d, ok
}
