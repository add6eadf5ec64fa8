package hook

import (
	"errors"
	"fmt"
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
)

// ErrInput means the hook's stdin is not a usable event.
var ErrInput = errors.New("malformed hook input")

// maxField bounds a string field kept from the input (a prompt, the last message).
const maxField = 64 << 20

// Input is the part of a hook event that ralph-loop uses. Claude Code, Codex and Qwen Code
// share these field names.
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
	// From tool_input (PreToolUse): Bash's command, the file tools' path.
	Command, FilePath string
}

// DecodeInput reads one event object from r. Fields it does not use (tool inputs and
// responses, which can be huge) are skipped without being held in memory. Known fields of
// the wrong type, a missing hook_event_name, or anything but one JSON object are errors.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	d := jsonstream.NewReader(r, 64<<10)
	fields := map[string]*string{
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
	}
	if k, err := d.Kind(); err != nil || k != '{' {
		if err == io.ErrUnexpectedEOF {
			return in, fmt.Errorf("%w: empty input", ErrInput)
		}
		return in, fmt.Errorf("%w: not a JSON object", ErrInput)
	}
	err := d.Object(func(key []byte) error {
		k, err := d.Kind()
		if err != nil {
			return err
		}
		name := string(key)
		if name == "tool_input" && k == '{' {
			return toolInput(d, &in)
		}
		if name == "stop_hook_active" {
			switch k {
			case 'n':
				return d.Skip()
			case 't', 'f':
				in.StopHookActive, err = d.Bool()
				return err
			}
			return fmt.Errorf("%s is not a boolean", name)
		}
		dst, ok := fields[name]
		if !ok {
			return d.Skip()
		}
		switch k {
		case 'n':
			return d.Skip()
		case '"':
		default:
			return fmt.Errorf("%s is not a string", name)
		}
		v, err := d.String(nil, maxField+1)
		if err != nil {
			return err
		}
		if len(v) > maxField {
			return fmt.Errorf("%s is longer than %d bytes", name, maxField)
		}
		*dst = string(v)
		return nil
	})
	if err != nil {
		return in, fmt.Errorf("%w: %v", ErrInput, err)
	}
	if end, err := d.AtEnd(); err != nil || !end {
		return in, fmt.Errorf("%w: data after the JSON object", ErrInput)
	}
	if in.Event == "" {
		return in, fmt.Errorf("%w: no hook_event_name", ErrInput)
	}
	return in, nil
}

// toolInput takes the fields the PreToolUse guard reads from tool_input; the rest (file
// contents) is skipped.
func toolInput(d *jsonstream.Reader, in *Input) error {
	return d.Object(func(key []byte) error {
		var dst *string
		switch string(key) {
		case "command":
			dst = &in.Command
		case "file_path", "notebook_path":
			dst = &in.FilePath
		default:
			return d.Skip()
		}
		if k, err := d.Kind(); err != nil || k != '"' {
			if err != nil {
				return err
			}
			return d.Skip()
		}
		v, err := d.String(nil, maxField+1)
		if err != nil {
			return err
		}
		if len(v) > maxField {
			return fmt.Errorf("tool_input.%s is longer than %d bytes", key, maxField)
		}
		*dst = string(v)
		return nil
	})
}
