package hook

import "strings"

// The loop commands, as the user types them, and how a prompt is read for one: the part of
// the engine host packages use to know the commands (their command files, the words a
// host wraps a typed command in).

// Slash commands the engine handles in the user's prompts.
const (
	CommandLoop   = "/ralph-loop"
	CommandULW    = "/ulw-loop"
	CommandCancel = "/cancel-ralph"
)

// Command is a loop command found in a prompt: which one, and the text after it.
type Command struct {
	Name, Rest string
}

// ParseCommand finds the loop command a prompt holds, at its start (after blanks). ok is
// false when the prompt is no loop command. looksLike reports a prompt that holds a loop
// command somewhere it was not recognised (e.g. inside a wrapper of the host's that is
// not known), so that it is never passed on silently unarmed.
func ParseCommand(prompt string) (c Command, ok, looksLike bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if name, rest, ok := splitCommand(p); ok {
		return Command{Name: name, Rest: rest}, true, false
	}
	if strings.HasPrefix(p, "<") {
		// A wrapper (with more than the command in it, or of a kind not known).
		if _, after, ok := strings.Cut(p, ">"); ok {
			if _, _, ok := splitCommand(strings.TrimLeft(after, " \t\r\n")); ok {
				return Command{}, false, true
			}
		}
	}
	for _, line := range strings.Split(p, "\n") {
		line = strings.TrimLeft(line, " \t\r>")
		if _, _, ok := splitCommand(line); ok && strings.HasPrefix(p, "<") {
			return Command{}, false, true
		}
	}
	return Command{}, false, false
}

// splitCommand returns the loop command that starts p and the text after it.
func splitCommand(p string) (cmd, rest string, ok bool) {
	for _, c := range []string{CommandLoop, CommandULW, CommandCancel} {
		if r, ok := strings.CutPrefix(p, c); ok && (r == "" || strings.ContainsRune(" \t\r\n", rune(r[0]))) {
			return c, r, true
		}
	}
	return "", "", false
}
