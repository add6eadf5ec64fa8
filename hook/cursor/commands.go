package cursor

import (
	"strings"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// Cursor's command files (.cursor/commands/NAME.md, ~/.cursor/commands/NAME.md) are plain
// Markdown that Cursor puts in the model's prompt, with "anything you type after the command
// name" alongside. Whether beforeSubmitPrompt then gets the text as typed or expanded, and
// in what order, is not documented. So each file's text is wrapped in a tag line and an end
// tag line, by which the hook finds the file's text in the prompt and takes the rest for
// what was typed (Unwrap); a prompt as typed ("/ralph-loop …") is read as it is.
//
// The hook cannot add the loop's contract to the prompt (beforeSubmitPrompt has no field for
// it): the loop commands' text tells the agent the rules instead, without the marker itself
// (a token set with --completion-promise or in .ralph/settings.json differs), and every
// follow-up names the exact marker.

// commands are the loop commands, each with its file's text between the tags (built when
// first used, not at every start).
var commands = lazy.Value[[]command]{Make: func() []command {
	return []command{
		{hook.CommandLoop, inject.RulesInFile(hook.CommandLoop, false)},
		{hook.CommandULW, inject.RulesInFile(hook.CommandULW, true)},
		{hook.CommandCancel, inject.CancelInFile},
	}
}}

// command is a loop command and its file's text.
type command struct{ cmd, text string }

// Files are the command files install writes (ralph-loop.md, ulw-loop.md, cancel-ralph.md).
// A file is ralph-loop's own, of any version, when it holds its tag line.
func Files() []install.File {
	var files []install.File
	for _, c := range commands.Get() {
		files = append(files, install.File{
			Name:    strings.TrimPrefix(c.cmd, "/") + ".md",
			Content: inject.CommandTag(c.cmd) + "\n" + c.text + "\n" + inject.CommandEndTag + "\n",
			Mark:    inject.CommandTag(c.cmd) + "\n",
		})
	}
	return files
}

// Unwrap returns the loop command a prompt holds when Cursor expanded one of the command
// files into it: the file's text, from its tag line to its end tag, is taken out, and the
// rest is what the user typed (with the command's name put in front when Cursor left it
// out). Any other prompt is returned as it is.
func Unwrap(prompt string) string {
	for _, c := range commands.Get() {
		tag := inject.CommandTag(c.cmd)
		i := strings.Index(prompt, tag)
		if i < 0 {
			continue
		}
		j := strings.Index(prompt[i:], inject.CommandEndTag)
		if j < 0 {
			continue
		}
		rest := strings.TrimSpace(prompt[:i] + "\n" + prompt[i+j+len(inject.CommandEndTag):])
		if _, ok, _ := hook.ParseCommand(rest); ok {
			return rest
		}
		if rest == "" {
			return c.cmd
		}
		return c.cmd + " " + rest
	}
	return prompt
}
