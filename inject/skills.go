package inject

// Skill is a skill file that install writes for a host whose interactive mode refuses
// unknown slash commands: Codex (the user types $NAME …, and the host passes the text to the
// prompt hook as typed) and Copilot CLI (the user types /NAME …, and the host hands the
// prompt hook the skill's invocation, which the host adapter reads back into the command).
// The skill's body is what the model reads beside it.
type Skill struct {
	Name    string // the skill's directory and its name, e.g. "ralph-loop"
	Content string // SKILL.md
	// Description is the frontmatter line by which uninstall recognises the file as its own.
	Description string
}

// Skills returns the skills that arm, arm in ultrawork mode and cancel a loop in host h. As
// with the command files, the hook does the work before the model reads anything; the body
// tells the model what to do when the hook did not run (not installed, or not trusted), and
// claims nothing the hook may not have done.
func Skills(w Words) []Skill {
	sigil := w.Sigil
	if sigil == "" {
		sigil = "/"
	}
	where := "a developer message"
	if w.Name != "codex" {
		where = "the ralph-loop context"
	}
	// Plain YAML scalars: no ": " and no " #" in the descriptions.
	hint := `description: Keep working on a task in this session until it is really done (ralph-loop), started by typing ` + sigil + `ralph-loop "TASK" --max-iterations N`
	ulw := "description: Like " + sigil + "ralph-loop, with every continuation demanding autonomous, verified work (ralph-loop)"
	cancel := "description: End this session's ralph loop (ralph-loop)"
	body := `The ralph-loop hook reads this command as the user typed it and, when it starts a loop for this session, puts the task and the rules in ` + where + ` that starts with "ralph-loop: a loop is now active" before you see it. If that is there, start working on the task now, following those rules.

If there is no such message, the hook did not start a loop: do nothing else, and tell the user that no loop was started and that running "ralph-loop install --host ` + w.Name + `" in a terminal (and starting a new session) installs or re-trusts its hooks; "ralph-loop status" shows whether a loop is active.
`
	cancelBody := `The ralph-loop hook handles this command before it reaches you, so reading this means the hook did not run: tell the user the loop was not cancelled, and that running "ralph-loop cancel --all" in a terminal ends it. Do nothing else.
`
	if w.SteersCommands {
		cancelBody = steeredCancelBody
	}
	cancelLine := cancel
	if w.PopupPicksCommand {
		cancelLine += EnterAgain
	}
	return []Skill{
		{Name: "ralph-loop", Description: hint, Content: "---\nname: ralph-loop\n" + hint + "\n---\n" + body},
		{Name: "ulw-loop", Description: ulw, Content: "---\nname: ulw-loop\n" + ulw + "\n---\n" + body},
		{Name: "cancel-ralph", Description: cancel, Content: "---\nname: cancel-ralph\n" + cancelLine + "\n---\n" + cancelBody},
	}
}

// steeredCancelBody is what the model reads of the cancel command on a host that hands a
// command typed while the agent works to the agent within the turn (inject.Words.SteersCommands).
const steeredCancelBody = `The ralph-loop hook handles this command when the user sends it at an idle prompt, before it reaches you. If it reaches you in the middle of a task, the user typed it while you worked: stop working now and end your turn with one short line saying you stopped for it (ralph-loop then pauses the loop and tells the user how to end it). Otherwise the hook did not run: tell the user the loop was not cancelled, and that running "ralph-loop cancel --all" in a terminal ends it. Do nothing else.
`
