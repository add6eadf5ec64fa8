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

// GeminiTag is the first line of the prompt of Gemini CLI's command file for cmd
// ("/ralph-loop").
func GeminiTag(cmd string) string { return "[ralph-loop command " + cmd + "]" }

// GeminiCommands returns Gemini CLI's command files (.gemini/commands/*.toml).
func GeminiCommands() []CommandFile {
	loop := func(cmd, what string) CommandFile {
		desc := "description = " + strconv.Quote(what+" (ralph-loop)")
		return CommandFile{
			Name:        strings.TrimPrefix(cmd, "/") + ".toml",
			Description: desc,
			Content: desc + "\nprompt = " + tomlString(GeminiTag(cmd)+"\n"+
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
			Content: cancelDesc + "\nprompt = " + tomlString(GeminiTag("/cancel-ralph")+"\n"+
				"The ralph-loop hook handles /cancel-ralph before it reaches you, so this text means the hook is not installed or did not run. "+
				"Tell the user the loop was not cancelled and that running \"ralph-loop cancel --all\" in a terminal ends it. Do nothing else.") + "\n",
		},
	}
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's, for the characters
// these texts hold).
func tomlString(s string) string { return strconv.Quote(s) }
