package inject

// Skill is a skill file that install writes for a host whose interactive mode refuses
// unknown slash commands (Codex): the user types $NAME …, the host passes the text to the
// prompt hook as typed, and the skill's body is what the model reads beside it.
type Skill struct {
	Name    string // the skill's directory and its name, e.g. "ralph-loop"
	Content string // SKILL.md
	// Description is the frontmatter line by which uninstall recognises the file as its own.
	Description string
}

// Skills returns the skills that arm, arm in ultrawork mode and cancel a loop in host h. As
// with the command files, the hook does the work before the model reads anything; the body
// tells the model what to do when the hook did not run (not installed, or not trusted).
func Skills(h Host) []Skill {
	// Plain YAML scalars: no ": " and no " #" in the descriptions.
	hint := `description: Keep working on a task in this session until it is really done (ralph-loop), started by typing $ralph-loop "TASK" --max-iterations N`
	ulw := "description: Like $ralph-loop, with every continuation demanding autonomous, verified work (ralph-loop)"
	cancel := "description: End this session's ralph loop (ralph-loop)"
	body := `The ralph-loop hook reads this command as the user typed it and starts a loop for this session before you see it; the task and the rules are then in a developer message that starts with "ralph-loop: a loop is now active". Start working on the task now, following those rules.

If there is no such message, the hook did not run: do nothing else, and tell the user that no loop was started and that running "ralph-loop install --host ` + h.Name + `" in a terminal (and starting a new session) installs or re-trusts its hooks; "ralph-loop status" shows whether a loop is active.
`
	cancelBody := `The ralph-loop hook handles this command before it reaches you, so reading this means the hook did not run: tell the user the loop was not cancelled, and that running "ralph-loop cancel --all" in a terminal ends it. Do nothing else.
`
	return []Skill{
		{Name: "ralph-loop", Description: hint, Content: "---\nname: ralph-loop\n" + hint + "\n---\n" + body},
		{Name: "ulw-loop", Description: ulw, Content: "---\nname: ulw-loop\n" + ulw + "\n---\n" + body},
		{Name: "cancel-ralph", Description: cancel, Content: "---\nname: cancel-ralph\n" + cancel + "\n---\n" + cancelBody},
	}
}
