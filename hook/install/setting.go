package install

// Setting returns the string at path (keys from the root) in the host's settings files, a
// later scope's over an earlier one's (the project's over the user's), and "" when none
// holds a string there. Unreadable or malformed files are passed over: a setting read for
// a text must never fail a hook.
func (inst *Target) Setting(projectDir string, getenv func(string) string, path ...string) string {
	if len(path) == 0 {
		return ""
	}
	value := ""
	for _, s := range inst.Scopes {
		if s.Base == ProjectBase && projectDir == "" {
			continue
		}
		file := inst.SettingsFile(s.Name, projectDir, getenv)
		if file == "" {
			continue
		}
		data, _, err := readFile(file)
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
		parent, _ := objectAt(root, path[:len(path)-1], false)
		if parent == nil {
			continue
		}
		if str, isStr := parent.vals[path[len(path)-1]].(string); isStr {
			value = str
		}
	}
	return value
}
