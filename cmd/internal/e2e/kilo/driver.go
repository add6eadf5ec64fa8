// Package kilo runs the real Kilo Code CLI (kilo), offline, against a scripted fake of the
// OpenAI Chat Completions API, with ralph-loop's plugin written by "ralph-loop install
// --host kilo". Kilo is an opencode fork with opencode's server and plugin API, so the
// suite drives it with opencode's driver and Kilo's names (its config file, its variables).
// Nothing here is used by ralph-loop itself.
package kilo

import "github.com/ralph-loop/ralph-loop/cmd/internal/e2e/opencode"

// Kilo is Kilo's names for opencode's driver: ~/.config/kilo, kilo.json, KILO_* variables.
var Kilo = opencode.Flavor{Host: "kilo", Config: "kilo.json", EnvPrefix: "KILO"}

type (
	Env    = opencode.Env
	Server = opencode.Server
	Script = opencode.Script
	Turn   = opencode.Turn
	Fake   = opencode.Fake
	Loop   = opencode.Loop
)

var (
	Text  = opencode.Text
	Shell = opencode.Shell
)
