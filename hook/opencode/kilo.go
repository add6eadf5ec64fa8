package opencode

import (
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// Kilo is Kilo Code's CLI (kilo), an opencode fork with the same plugin API: the plugin,
// its events and its replies are opencode's. Facts seen on Kilo 7.7.7 that differ:
//   - It loads plugins from .kilo/plugins (and the legacy .kilocode/plugins) in the project
//     and from its user directory ($XDG_CONFIG_HOME/kilo, ~/.config/kilo); .opencode is not
//     read. Commands are .kilo/command/*.md; its config is kilo.json or kilo.jsonc.
//   - "kilo run" goes on after an idle when the plugin's continuation comes in time, but not
//     always: in 3 runs of 6 it exited before the continuation's turn started, leaving the
//     loop active in a session that was gone. ralph-loop refuses to start a loop there, as
//     under "opencode run" (kilo run --attach leaves the loop to a server, and works).
//   - Its variables are KILO_* (KILO_DISABLE_AUTOUPDATE, KILO_DISABLE_MODELS_FETCH, …).
var Kilo = Host{f: kiloFlavor}

// KiloName is Kilo's name on the command line and in state files.
const KiloName = "kilo"

// KiloWords are Kilo's facts for texts.
var KiloWords = inject.Words{
	Name:    KiloName,
	Display: "Kilo Code",
	// Its TUI's list of commands takes the first Enter on /cancel-ralph.
	PopupPicksCommand: true,
}

// kiloInstaller installs ralph-loop into Kilo: the plugin and the commands in the user's
// Kilo directory ($XDG_CONFIG_HOME/kilo, ~/.config/kilo) or in the project's .kilo.
var kiloInstaller = lazy.Value[*install.Target]{Make: func() *install.Target {
	return newInstaller(KiloWords, "kilo", ".kilo")
}}

var kiloFlavor = &flavor{words: KiloWords, cli: "kilo", installer: &kiloInstaller,
	runCannotLoop: inject.MayExitBeforeNextTurn("kilo run",
		"start it in the Kilo TUI, or in a session of kilo serve (kilo run --attach to a running server works too)")}
