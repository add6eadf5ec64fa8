package inject

// NotInstalledHere is the one line a project's committed hooks print on a machine that has
// no ralph-loop on PATH: the hooks do nothing there, and this says how to change that.
func NotInstalledHere(display string) string {
	return "ralph-loop: " + display + "'s ralph-loop hooks (a project's or a plugin's) run the ralph-loop binary, which is not on this machine's PATH; " +
		"loops (/ralph-loop) are off until you install it (go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest)"
}
