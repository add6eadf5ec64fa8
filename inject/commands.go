package inject

import (
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
)

// CommandFile is a slash-command file that install writes.
type CommandFile struct {
	Name    string // file name, e.g. "ralph-loop.md"
	Content string
	// Description is the frontmatter description line by which uninstall recognises the
	// file as its own.
	Description string
}

// Both commands are handled entirely by the UserPromptSubmit hook, which reads the raw typed
// text: there is no shell line (no "!`…`"), so no quoting of the task can break them, and
// disable-model-invocation keeps the agent from running them itself.
const (
	ralphLoopDescription   = "description: Keep working on a task in this session until it is really done (ralph-loop)"
	ulwLoopDescription     = "description: Like /ralph-loop, with every continuation demanding autonomous, verified work (ralph-loop)"
	cancelRalphDescription = "description: End this session's ralph loop (ralph-loop)"
	loopBody               = `The ralph-loop hook reads this command's arguments and, when it starts a loop for this session, adds the task and the rules as ralph-loop context that starts with "ralph-loop: a loop is now active". If that context is there, start working on the task now.

If there is no such context, or it reports an error, the hook did not start a loop: say so to the user, suggest running "ralph-loop install --host HOST" in a terminal, and do nothing else.
`
)

// loopArgumentHint is the frontmatter line of the loop commands' usage.
var loopArgumentHint = "argument-hint: " + args.ArgumentHint()

// Commands returns Claude Code's slash-command files.
func Commands() []CommandFile { return CommandsFor("claude") }

// CommandsFor returns the slash-command files for the host of that name (Claude Code's
// format, which Qwen Code reads too: Markdown with description, argument-hint and
// disable-model-invocation in the frontmatter).
func CommandsFor(host string) []CommandFile {
	loopBody := strings.ReplaceAll(loopBody, "--host HOST", "--host "+host)
	return []CommandFile{
		{
			Name:        "ralph-loop.md",
			Description: ralphLoopDescription,
			Content:     "---\n" + ralphLoopDescription + "\n" + loopArgumentHint + "\ndisable-model-invocation: true\n---\n" + loopBody,
		},
		{
			Name:        "ulw-loop.md",
			Description: ulwLoopDescription,
			Content:     "---\n" + ulwLoopDescription + "\n" + loopArgumentHint + "\ndisable-model-invocation: true\n---\n" + loopBody,
		},
		{
			Name:        "cancel-ralph.md",
			Description: cancelRalphDescription,
			Content: `---
` + cancelRalphDescription + `
disable-model-invocation: true
---
The ralph-loop hook handles /cancel-ralph before it reaches you, so this text means the hook is not installed or failed. Tell the user the loop was not cancelled and that running "ralph-loop cancel --all" in a terminal ends it. Do nothing else.
`,
		},
	}
}

// OpencodeCommands returns the command files of opencode, or of the opencode fork named host
// (.opencode/command/*.md, .kilo/command/*.md): Markdown whose
// frontmatter has only the description (opencode's own keys are description, agent, model
// and subtask). opencode hands the plugin the command's raw arguments before it expands the
// template, so the template only tells the agent where the loop's context is.
func OpencodeCommands(host string) []CommandFile {
	var out []CommandFile
	for _, cf := range CommandsFor(host) {
		body := cf.Content[strings.Index(cf.Content, "\n---\n")+len("\n---\n"):]
		out = append(out, CommandFile{Name: cf.Name, Description: cf.Description, Content: "---\n" + cf.Description + "\n---\n" + body})
	}
	return out
}

// RelayRefusal is what a host that cannot drop a prompt (opencode) hands the agent instead
// of a prompt ralph-loop refused: the reason, to be passed on to the user.
func RelayRefusal(reason string) string {
	return "ralph-loop handled this message itself; it is not a task for you. " +
		"Tell the user exactly the following, in full, and do nothing else:\n\n" + reason
}

// OpencodeRunCannotLoop is why a loop cannot be started under "opencode run".
const OpencodeRunCannotLoop = "opencode run exits when the agent first stops, so a loop cannot go on there; " +
	"start it in the opencode TUI, or in a session of opencode serve (opencode run --attach to a running server works too)"

// KiloRunCannotLoop is why a loop cannot be started under "kilo run": it waits for the
// plugin's continuation only sometimes (Kilo 7.7.7 exited before the next turn in 3 runs of
// 6), so the loop would be left active in a session that is gone.
const KiloRunCannotLoop = "kilo run can exit before the loop's next turn starts, so a loop cannot be relied on there; " +
	"start it in the Kilo TUI, or in a session of kilo serve (kilo run --attach to a running server works too)"
