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

// CommandsFor returns the slash-command files for the host of that name (Claude Code's
// format, which Qwen Code reads too: Markdown with description, argument-hint and
// disable-model-invocation in the frontmatter).
func CommandsFor(host string) []CommandFile {
	loopBody := strings.ReplaceAll(loopBody, "--host HOST", "--host "+host)
	// The frontmatter line of the loop commands' usage (built here, not at every start).
	loopArgumentHint := "argument-hint: " + args.ArgumentHint()
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

// DescriptionCommands returns a host's command files in Markdown (opencode's
// .opencode/command/*.md, Kilo Code's .kilo/command/*.md) whose frontmatter has only the
// description (opencode's own keys are description, agent, model and subtask). The
// host hands its plugin the command's raw arguments before it expands the template, so the
// template only tells the agent where the loop's context is. Description stays the line
// without EnterAgain, which the cancel command's file adds for a host whose list of
// commands takes the first Enter.
func DescriptionCommands(w Words) []CommandFile {
	var out []CommandFile
	for _, cf := range CommandsFor(w.Name) {
		body := cf.Content[strings.Index(cf.Content, "\n---\n")+len("\n---\n"):]
		line := cf.Description
		if cf.Description == cancelRalphDescription && w.PopupPicksCommand {
			line += EnterAgain
		}
		out = append(out, CommandFile{Name: cf.Name, Description: cf.Description, Content: "---\n" + line + "\n---\n" + body})
	}
	return out
}

// EnterAgain ends the cancel command's description on a host whose list of commands takes
// the first Enter on a typed command (Words.PopupPicksCommand): users took the loop for
// cancelled when that Enter had only picked the command.
const EnterAgain = "; press Enter again to send it (the first Enter only picks it)"

// RelayRefusal is what a host that cannot drop a prompt (opencode) hands the agent instead
// of a prompt ralph-loop refused: the reason, to be passed on to the user.
func RelayRefusal(reason string) string {
	return "ralph-loop handled this message itself; it is not a task for you. " +
		"Tell the user exactly the following, in full, and do nothing else:\n\n" + reason
}

// ExitsAtFirstStop is why a loop cannot be started in a host's one-shot run (run, e.g.
// "opencode run"), which exits when the agent first stops; instead is where it can be.
func ExitsAtFirstStop(run, instead string) string {
	return run + " exits when the agent first stops, so a loop cannot go on there; " + instead
}

// EchoedCommands returns command files in Markdown for a host that expands a command before
// any hook sees it (Factory Droid's .factory/commands/*.md: its prompt hook, which fires
// under --input-format stream-jsonrpc and in the TUI, never in plain "droid exec", gets the
// expansion wrapped in <system-notification> tags). Each file is therefore built like the
// TOML ones: the tag line first (CommandTag), the text the model reads, and last the command
// as typed ("/ralph-loop $ARGUMENTS") after a blank line, which the hook reads back.
func EchoedCommands(host string) []CommandFile {
	var out []CommandFile
	for _, cf := range CommandsFor(host) {
		cmd := "/" + strings.TrimSuffix(cf.Name, ".md")
		i := strings.Index(cf.Content, "\n---\n") + len("\n---\n")
		head := cf.Content[:i]
		body := strings.TrimRight(cf.Content[i:], "\n")
		if cmd == "/cancel-ralph" {
			// Typed while the agent works, it reaches the agent within the turn.
			body = strings.TrimRight(steeredCancelBody, "\n")
		}
		out = append(out, CommandFile{Name: cf.Name, Description: cf.Description,
			Content: head + CommandTag(cmd) + "\n" + body + "\n\n" + cmd + " $ARGUMENTS\n"})
	}
	return out
}

// notification wraps a command file's expansion in the prompt hook's input.
const (
	notificationOpen  = "<system-notification>\n"
	notificationClose = "</system-notification>"
)

// TypedEchoed returns the text the user typed for a prompt: for the expansion of a command
// file of EchoedCommands, the command with its arguments; any other prompt as it is.
func TypedEchoed(prompt string) string {
	inner, ok := strings.CutPrefix(prompt, notificationOpen)
	if !ok {
		return prompt
	}
	inner, ok = strings.CutSuffix(strings.TrimRight(inner, " \t\r\n"), notificationClose)
	if !ok {
		return prompt
	}
	inner = strings.TrimRight(inner, " \t\r\n")
	if typed := TypedTOML(inner); typed != inner {
		return typed
	}
	return prompt
}

// MayExitBeforeNextTurn is why a loop cannot be started in a host's one-shot run (run, e.g.
// "kilo run") that waits for the plugin's continuation only sometimes, so the loop would be
// left active in a session that is gone; instead is where it can be.
func MayExitBeforeNextTurn(run, instead string) string {
	return run + " can exit before the loop's next turn starts, so a loop cannot be relied on there; " + instead
}
