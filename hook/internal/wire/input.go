package wire

import (
	"fmt"
	"io"
)

// Input is the part of a hook event in Claude Code's shape that ralph-loop uses: Claude Code's,
// and the same field names in Qwen Code's, Factory Droid's and Gemini CLI's events.
type Input struct {
	Event                string // hook_event_name
	SessionID            string
	TranscriptPath       string
	Cwd                  string
	PromptID             string
	StopHookActive       bool
	LastAssistantMessage string
	Prompt               string
	ToolName             string
	ToolUseID            string
	Reason               string // SessionEnd
	Error                string // StopFailure: the failure's kind
	ErrorDetails         string // StopFailure: the provider's message, when given
	Source               string // SessionStart, ConfigChange
	// ConfigFile is the settings file that changed (ConfigChange's file_path).
	ConfigFile string
	// From tool_input (PreToolUse): the shell tool's command and directory (Gemini CLI's
	// dir_path, relative to the workspace), the file tools' path.
	Command, Dir, FilePath string
	// Unsandboxed: the shell tool's call asks to run outside the host's sandbox (Claude
	// Code's dangerouslyDisableSandbox).
	Unsandboxed bool
	// Interrupt: the tool call failed because the user stopped it (PostToolUseFailure's
	// is_interrupt).
	Interrupt bool
	// Key identifies the input (a hash of its bytes).
	Key string
}

// InputSpec returns the spec that decodes Claude Code's field names into in; a host adds
// its own fields to it.
func InputSpec(in *Input) *Spec {
	return &Spec{
		Strings: map[string]*string{
			"hook_event_name":        &in.Event,
			"session_id":             &in.SessionID,
			"transcript_path":        &in.TranscriptPath,
			"cwd":                    &in.Cwd,
			"prompt_id":              &in.PromptID,
			"last_assistant_message": &in.LastAssistantMessage,
			"prompt":                 &in.Prompt,
			"tool_name":              &in.ToolName,
			"tool_use_id":            &in.ToolUseID,
			"reason":                 &in.Reason,
			"source":                 &in.Source,
			"file_path":              &in.ConfigFile,
		},
		Bools: map[string]*bool{"stop_hook_active": &in.StopHookActive},
		// A call taken for stopped is not counted: whatever the flag holds, only false or
		// null keeps it counted.
		Flags: map[string]*bool{"is_interrupt": &in.Interrupt},
		// StopFailure's error is a word; other events may carry an "error" of their own
		// shape (a tool's failure), which is no reason to refuse them.
		Loose: map[string]*string{"error": &in.Error, "error_details": &in.ErrorDetails},
		Objects: map[string]*Spec{"tool_input": {Loose: map[string]*string{
			"command":       &in.Command,
			"dir_path":      &in.Dir,
			"file_path":     &in.FilePath,
			"notebook_path": &in.FilePath,
		}, Flags: map[string]*bool{"dangerouslyDisableSandbox": &in.Unsandboxed}}},
	}
}

// FailureMessage is what a StopFailure says of the failure: the provider's message where
// the host gives it (error_details), else the text it showed (last_assistant_message).
func (in *Input) FailureMessage() string {
	if in.ErrorDetails != "" {
		return in.ErrorDetails
	}
	return in.LastAssistantMessage
}

// DecodeInput reads one event object from r into in through spec (nil: InputSpec(in)).
// Fields it does not use (tool inputs and responses, which can be huge) are skipped without
// being held in memory. Known fields of the wrong type, a missing hook_event_name, or
// anything but one JSON object are errors wrapping ErrInput.
func DecodeInput(r io.Reader, in *Input, spec *Spec) error {
	if spec == nil {
		spec = InputSpec(in)
	}
	key, err := Decode(r, spec)
	if err != nil {
		return err
	}
	if in.Event == "" {
		return fmt.Errorf("%w: no hook_event_name", ErrInput)
	}
	in.Key = key
	return nil
}
