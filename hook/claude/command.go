package claude

import (
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
)

// pluginNamespace is how Claude Code names a plugin's commands in full
// ("/ralph-loop:cancel-ralph"); the short form works when no other command has the name.
const pluginNamespace = "/ralph-loop:"

// CommandText returns a prompt with Claude Code's own forms around a loop command taken
// off: the paste wrapper of its TUI (when what it wraps is a loop command), and the
// plugin's namespace. Any other prompt is returned as it is.
func CommandText(prompt string) string {
	if inner, ok := unwrapPaste(strings.TrimLeft(prompt, " \t\r\n")); ok {
		if c := dropNamespace(inner); isCommand(c) {
			return c
		}
	}
	return dropNamespace(prompt)
}

func dropNamespace(p string) string {
	if r, ok := strings.CutPrefix(strings.TrimLeft(p, " \t\r\n"), pluginNamespace); ok {
		return "/" + r
	}
	return p
}

func isCommand(p string) bool {
	_, ok, _ := hook.ParseCommand(p)
	return ok
}

// unwrapPaste returns the text inside a paste wrapper at the start of p: Claude Code's
// TUI collapses a long paste into "[Pasted text #1]" and hands the hook
// <pasted_content id="N">\nTEXT\n</pasted_content id="N"> (2.1.330: the closing tag
// carries the id too; see testdata/claude/UserPromptSubmit.pasted.json). Text typed after
// the paste makes it more than a command: not unwrapped.
func unwrapPaste(p string) (string, bool) {
	const open, closing = "<pasted_content", "</pasted_content"
	if !strings.HasPrefix(p, open) {
		return "", false
	}
	end := strings.IndexByte(p, '>')
	if end < 0 {
		return "", false
	}
	inner := p[end+1:]
	if i := strings.LastIndex(inner, closing); i >= 0 {
		after := inner[i+len(closing):]
		gt := strings.IndexByte(after, '>')
		if gt < 0 || (after[0] != '>' && after[0] != ' ') {
			return "", false
		}
		if strings.TrimSpace(after[gt+1:]) != "" {
			return "", false // text typed after the paste: not only a command
		}
		inner = inner[:i]
	}
	return inner, true
}
