package hook

import (
	"os"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// Settings reads, for a loop being armed in the session whose transcript is given, what in
// the host's settings decides what it runs and how, and its sandbox and what that lets the
// agent write (see Hooks.Settings, Facts.Sandbox). What cannot be read now is left out:
// every later change is then refused, as one that cannot be told.
func Settings(f Facts, transcript string, trusted []string) (settings []state.Setting, sandbox string, roots *state.SandboxRoots) {
	if f.Hooks.Settings != nil {
		settings, _ = f.Hooks.Settings()
	}
	if f.Sandbox != nil {
		sandbox, roots = f.Sandbox(transcript, trusted)
	}
	return settings, sandbox, roots
}

// settingsChange compares the host's settings now with those in force when the loop was
// armed, and says what differs ("" when nothing does): a file gone, new or changed, or one
// of its settings. A loop armed with none known (nil) has nothing to compare with.
func settingsChange(was, now []state.Setting) string {
	if was == nil {
		return inject.SettingsUnknown()
	}
	type at struct{ file, key string }
	old := make(map[at]string, len(was))
	for _, s := range was {
		old[at{s.File, s.Key}] = s.Sum
	}
	seen := make(map[at]bool, len(now))
	for _, s := range now {
		k := at{s.File, s.Key}
		seen[k] = true
		if sum, ok := old[k]; !ok || sum != s.Sum {
			return inject.SettingChanged(s.File, s.Key)
		}
	}
	for _, s := range was {
		if !seen[at{s.File, s.Key}] {
			return inject.SettingChanged(s.File, s.Key)
		}
	}
	return ""
}

// Trusted are the paths ralph-loop trusts: its state directory, its keep, the binary that
// runs, the host's hook files (Hooks.Files), and more (the user's own settings).
func Trusted(store *state.Store, f Facts, more ...string) []string {
	p := []string{store.Dir()}
	for _, m := range more {
		if m != "" {
			p = append(p, m)
		}
	}
	if k := store.KeepDir(); k != "" {
		p = append(p, k)
	}
	if exe, err := os.Executable(); err == nil {
		p = append(p, exe)
	}
	if f.Hooks.Files != nil {
		p = append(p, f.Hooks.Files()...)
	}
	return p
}
