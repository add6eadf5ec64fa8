package inject

// NotInstalledHere is the one line a project's committed hooks print on a machine that has
// no ralph-loop on PATH: the hooks do nothing there, and this says how to change that.
func NotInstalledHere(display string) string {
	return "ralph-loop: " + display + "'s ralph-loop hooks (a project's or a plugin's) run the ralph-loop binary, which is not on this machine's PATH; " +
		"loops (/ralph-loop) are off until you install it (" + GetIt + ")"
}

// NPMPackage is the npm package that installs ralph-loop's native binary
// (npm install -g @ralph-loop/cli); the per-platform packages are named after it
// (@ralph-loop/cli-linux-x64, ...).
const NPMPackage = "@ralph-loop/cli"

// GetIt is how to get ralph-loop, the ways README's install section lists, in brief.
const GetIt = "npm install -g " + NPMPackage + ", a release archive from https://github.com/ralph-loop/ralph-loop/releases, " +
	"or go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest"

// BinaryGone is the one line the hooks a user-scope install wrote print once the binary they
// run is gone: they do nothing, and this says how to get it back or take them out.
func BinaryGone(display, binary string) string {
	return "ralph-loop: " + display + "'s ralph-loop hooks run " + binary + ", which is gone; loops (/ralph-loop) are off. " +
		"Install it again (" + GetIt + ") and run ralph-loop install, or remove the hooks: npx " + NPMPackage + " uninstall"
}
