// Package pluginkit is the JavaScript every plugin of ralph-loop's own is built from
// (opencode's plugin, pi's extension): running ralph-loop, the sessions it marks active, and
// what the plugin answers by itself when it cannot run ralph-loop. A host loads every file
// of its plugin directory as a plugin, so a kit module beside the plugin would be one too:
// install writes the kit into each plugin's own file instead.
package pluginkit

import (
	_ "embed"
	"strings"
)

//go:embed kit.js
var kit string

// Mark is the line of a plugin's source that the kit takes the place of.
const Mark = "__KIT__\n"

// Expand returns a plugin's source with the kit in place of its Mark line.
func Expand(src string) string { return strings.Replace(src, Mark, kit, 1) }
