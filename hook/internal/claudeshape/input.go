package claudeshape

import (
	"fmt"
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
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
	// Tasks and Crons are Stop's background_tasks and session_crons (Qwen Code's crons,
	// see CronsField): the work in the background and the wake-ups scheduled.
	Tasks []Task
	Crons []Cron
	// Interrupt: the tool call failed because the user stopped it (PostToolUseFailure's
	// is_interrupt).
	Interrupt bool
	// Key identifies the input (a hash of its bytes).
	Key string
}

// Task is one entry of Stop's background_tasks: Claude Code's {id, type, status,
// description, command, agent_type, …}, Qwen Code's {id, status, agent_type, started_at,
// description}.
type Task struct {
	ID, Type, Status, Description, Command, AgentType string
}

// Cron is one entry of Stop's session_crons (Qwen Code: crons): {id, schedule, prompt,
// recurring, …}.
type Cron struct {
	ID, Schedule, Prompt string
}

// MaxTasks bounds the background tasks and crons kept from one event.
const MaxTasks = 64

// InputSpec returns the spec that decodes Claude Code's field names into in; a host adds
// its own fields to it.
func InputSpec(in *Input) *wire.Spec {
	return &wire.Spec{
		Each: map[string]func() *wire.Spec{"background_tasks": in.nextTask, "session_crons": in.nextCron},
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
		Objects: map[string]*wire.Spec{"tool_input": {Loose: map[string]*string{
			"command":       &in.Command,
			"dir_path":      &in.Dir,
			"file_path":     &in.FilePath,
			"notebook_path": &in.FilePath,
		}, Flags: map[string]*bool{"dangerouslyDisableSandbox": &in.Unsandboxed}}},
	}
}

// nextTask is the spec the next entry of background_tasks is read with (nil past MaxTasks).
func (in *Input) nextTask() *wire.Spec {
	if len(in.Tasks) >= MaxTasks {
		return nil
	}
	in.Tasks = append(in.Tasks, Task{})
	t := &in.Tasks[len(in.Tasks)-1]
	return &wire.Spec{Heads: map[string]*string{"id": &t.ID, "type": &t.Type, "status": &t.Status, "description": &t.Description,
		"command": &t.Command, "agent_type": &t.AgentType}}
}

// nextCron is the spec the next entry of session_crons (crons) is read with (nil past
// MaxTasks).
func (in *Input) nextCron() *wire.Spec {
	if len(in.Crons) >= MaxTasks {
		return nil
	}
	in.Crons = append(in.Crons, Cron{})
	c := &in.Crons[len(in.Crons)-1]
	return &wire.Spec{Heads: map[string]*string{"id": &c.ID, "schedule": &c.Schedule, "prompt": &c.Prompt}}
}

// CronsField is Qwen Code's name for session_crons: a host that uses it adds it to its spec.
func (in *Input) CronsField(spec *wire.Spec) { spec.Each["crons"] = in.nextCron }

// FailureMessage is what a StopFailure says of the failure: the provider's message where
// the host gives it (error_details), else the text it showed (last_assistant_message).
func (in *Input) FailureMessage() string {
	if in.ErrorDetails != "" {
		return in.ErrorDetails
	}
	return in.LastAssistantMessage
}

// DecodeWith reads one event object from r into in through spec (nil: InputSpec(in)).
// Fields it does not use (tool inputs and responses, which can be huge) are skipped without
// being held in memory. Known fields of the wrong type, a missing hook_event_name, or
// anything but one JSON object are errors wrapping wire.ErrInput.
func DecodeWith(r io.Reader, in *Input, spec *wire.Spec) error {
	if spec == nil {
		spec = InputSpec(in)
	}
	key, err := wire.Decode(r, spec)
	if err != nil {
		return err
	}
	if in.Event == "" {
		return fmt.Errorf("%w: no hook_event_name", wire.ErrInput)
	}
	in.Key = key
	return nil
}
