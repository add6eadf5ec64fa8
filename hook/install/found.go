package install

// Found is one scope of a host where ralph-loop's hooks are installed, for ralph-loop doctor.
type Found struct {
	Scope    Scope
	Settings string   // the settings file
	Commands []string // the command lines of ralph-loop's hooks in it
}

// FindHooks lists the scopes of the host whose settings file holds ralph-loop's hooks, for
// the project at projectDir ("" for the user's own scopes only). A host whose hooks are not
// in a settings file (opencode's plugin) has none listed.
func (inst *Target) FindHooks(projectDir string, getenv func(string) string) []Found {
	var out []Found
	seen := map[string]bool{}
	for _, s := range inst.Scopes {
		if s.Base == ProjectBase && projectDir == "" {
			continue
		}
		path := inst.SettingsFile(s.Name, projectDir, getenv)
		if path == "" || seen[path] {
			continue
		}
		seen[path] = true
		if cmds := inst.hookCommands(path); len(cmds) > 0 {
			out = append(out, Found{Scope: s, Settings: path, Commands: cmds})
		}
	}
	return out
}

// HooksIn lists the command lines of ralph-loop's hooks in a file of the host's hooks
// shape (a plugin's hooks file).
func (inst *Target) HooksIn(path string) []string { return inst.hookCommands(path) }
