package claude

import (
	"fmt"
	"io"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
)

// Input is the part of a Claude Code hook event that ralph-loop uses. Codex and Qwen Code
// use the same field names.
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
	Source               string // SessionStart, ConfigChange
	// ConfigFile is the settings file that changed (ConfigChange's file_path).
	ConfigFile string
	// From tool_input (PreToolUse): Bash's command, the file tools' path.
	Command, FilePath string
	// Key identifies the input (a hash of its bytes).
	Key string
}

// Spec returns the wire spec that decodes Claude Code's field names into in.
func Spec(in *Input) *wire.Spec {
	return &wire.Spec{
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
		Objects: map[string]*wire.Spec{"tool_input": {Loose: map[string]*string{
			"command":       &in.Command,
			"file_path":     &in.FilePath,
			"notebook_path": &in.FilePath,
		}}},
	}
}

// DecodeInput reads one event object from r. Fields it does not use (tool inputs and
// responses, which can be huge) are skipped without being held in memory. Known fields of
// the wrong type, a missing hook_event_name, or anything but one JSON object are errors
// wrapping hook.ErrInput.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	err := DecodeSpec(r, &in, Spec(&in))
	return in, err
}

// DecodeSpec reads one event object from r into in as DecodeInput does, through spec: Spec(in)
// with a host's own fields added (Factory Droid's hooks are Claude Code's with a few more).
func DecodeSpec(r io.Reader, in *Input, spec *wire.Spec) error {
	key, err := wire.Decode(r, spec)
	if err != nil {
		return err // wraps hook.ErrInput, which is wire.ErrInput
	}
	if in.Event == "" {
		return fmt.Errorf("%w: no hook_event_name", hook.ErrInput)
	}
	in.Key = key
	return nil
}
