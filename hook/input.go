package hook

// Input is what the guard reads of a tool call.
type Input struct {
	ToolName string
	Cwd      string
	// Bash's command, the file tools' path.
	Command, FilePath string
}
