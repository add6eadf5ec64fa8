// Package install adds ralph-loop's hooks, settings and command files to an agent host's
// configuration and takes exactly those out again, touching nothing else.
//
// A host package describes its host in a Target value: its facts as data (where the
// settings are at each scope, the shape of its hooks, the events and settings to add) and
// its code as a value implementing Host (its user directory) and the optional interfaces it
// needs (Encoder, CommandFiler, PluginFiler, Extender, Sandboxer, …), which the planner
// asserts; the planner here knows no host. Settings are edited in place (jsonc.go): every
// byte of the user's file stays, ralph-loop's entries are added in the file's own layout,
// recognised by their command line and replaced, a second run changes nothing, a file that
// changes is backed up first (outside the project), and what install added is recorded so
// that uninstall removes only that.
package install
