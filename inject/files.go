package inject

import (
	"strconv"
	"strings"
)

// Gemini CLI expands a custom command (.gemini/commands/NAME.toml) before any hook sees the
// prompt: the hook gets the command's prompt text and, when the user typed arguments, the
// whole typed line after it, separated by a blank line ("<prompt>\n\n/ralph-loop TASK …").
// Each command's prompt therefore starts with a tag line by which the hook recognises it,
// and holds no blank line followed by a slash, so that the typed line is found after it.
// The prompt is also what the model reads when the hook did not run.

// CommandTag is the first line of the text of a command file for cmd ("/ralph-loop") that
// the host expands into the prompt before any hook sees it (Gemini CLI, Cursor): by it the
// hook recognises the command.
func CommandTag(cmd string) string { return "[ralph-loop command " + cmd + "]" }

// CommandEndTag ends a command file's text, for a host that may put what the user typed on
// either side of it (Cursor).
const CommandEndTag = "[/ralph-loop command]"

// TOMLCommands returns command files in TOML (.gemini/commands/*.toml) whose prompt
// starts with its CommandTag.
func TOMLCommands() []CommandFile {
	loop := func(cmd, what string) CommandFile {
		desc := "description = " + strconv.Quote(what+" (ralph-loop)")
		return CommandFile{
			Name:        strings.TrimPrefix(cmd, "/") + ".toml",
			Description: desc,
			Content: desc + "\nprompt = " + tomlString(CommandTag(cmd)+"\n"+
				"The ralph-loop hook reads this command and, when it starts a loop for this session, adds the task and the rules as ralph-loop hook context that starts with \"ralph-loop: a loop is now active\". If that context is there, start working on the task now.\n"+
				"If there is no ralph-loop hook context, or it reports an error, the hook did not start a loop: say so to the user, suggest running \"ralph-loop install --host gemini\" in a terminal and trusting this folder in Gemini CLI, and do nothing else.") + "\n",
		}
	}
	cancelDesc := "description = " + strconv.Quote("End this session's ralph loop (ralph-loop)")
	return []CommandFile{
		loop("/ralph-loop", "Keep working on a task in this session until it is really done"),
		loop("/ulw-loop", "Like /ralph-loop, with every continuation demanding autonomous, verified work"),
		{
			Name:        "cancel-ralph.toml",
			Description: cancelDesc,
			Content: cancelDesc + "\nprompt = " + tomlString(CommandTag("/cancel-ralph")+"\n"+
				CancelInFile) + "\n",
		},
	}
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's, for the characters
// these texts hold).
func tomlString(s string) string { return strconv.Quote(s) }

// commands are the loop commands of TOMLCommands.
var commands = []string{"/ralph-loop", "/ulw-loop", "/cancel-ralph"}

// TypedTOML returns the text the user typed for a prompt: for the expansion of a command
// file of TOMLCommands ("<the command's prompt>\n\n<the typed line>"), the typed line, or the bare command when
// it was typed without arguments; any other prompt as it is.
func TypedTOML(prompt string) string {
	for _, c := range commands {
		if !strings.HasPrefix(prompt, CommandTag(c)) {
			continue
		}
		rest := prompt[len(CommandTag(c)):]
		for from := 0; ; {
			i := strings.Index(rest[from:], "\n\n"+c)
			if i < 0 {
				return c
			}
			typed := rest[from+i+2:]
			if after := typed[len(c):]; after == "" || strings.ContainsRune(" \t\r\n", rune(after[0])) {
				return typed
			}
			from += i + 2
		}
	}
	return prompt
}

// RulesInFile is the text of a command file for a host whose hooks cannot add the loop's
// contract to the prompt (Cursor): the file tells the agent the rules instead, without the
// marker itself (a token set with --completion-promise or in .ralph/settings.json
// differs), and every follow-up names the exact marker. ulw: the command is /ulw-loop.
func RulesInFile(cmd string, ulw bool) string {
	extra := ""
	if ulw {
		extra = " Work autonomously: do not stop to ask the user, and verify your work before you call it done."
	}
	return `This is a ralph loop, run by the ralph-loop stop hook: the task is the text typed with ` + cmd +
		` (words starting with -- are the loop's settings, not part of the task). Start working on the task now.` + extra + "\n" +
		`Each time you stop before the task is done, the hook sends you the task again. When, and only when, the task is completely done, ` +
		`print the completion marker alone on the last line of your reply: the token given with --completion-promise (DONE if none was given) ` +
		`between <promise> and </promise> tags. The hook's messages name the exact marker.`
}

// CancelInFile is the text of the /cancel-ralph command file, which the agent reads only
// when the hook did not handle the command.
const CancelInFile = `The ralph-loop hook handles /cancel-ralph before it reaches you, so this text means the hook is not installed or did not run. ` +
	`Tell the user the loop was not cancelled and that running "ralph-loop cancel --all" in a terminal ends it. Do nothing else.`
