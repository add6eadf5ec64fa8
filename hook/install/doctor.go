package install

// Report is where a host's own checks tell "ralph-loop doctor" what they found: lines for
// the user, and problems, each saying what to do.
type Report interface {
	Say(format string, a ...any)
	Problem(format string, a ...any)
}

// Plugin is a plugin of the host's own through which it runs ralph-loop's hooks (Claude
// Code's), as the host installed it.
type Plugin struct {
	// ID is the plugin's name ("ralph-loop@ralph-loop").
	ID string
	// Scope is where it is installed (user, project or local); Version its version.
	Scope, Version string
	// Hooks is its hooks file.
	Hooks string
	// Update, when the plugin is not of the version this ralph-loop comes with, says how to
	// bring that one ("": it is).
	Update string
}

// TrustAsked tells, for a host that runs the hooks of a shared scope (a project's) only in
// a folder it trusts, and asks the user itself (Copilot CLI, Cursor), that ralph-loop
// cannot tell from outside whether it does.
func TrustAsked(r Report, t *Target, found []Found) {
	for _, f := range found {
		if f.Scope.Shared {
			r.Say("trust: %s runs %s only in a folder it trusts (it asks; ralph-loop cannot tell from here)", t.Title, f.Settings)
		}
	}
}
