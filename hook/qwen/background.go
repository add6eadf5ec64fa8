package qwen

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/state"
)

var _ hook.BackgroundReader = Transcript

// Background returns the session's background shells that still run. Qwen Code 0.24.4's
// Stop event lists only its background subagents (background_tasks); a command the agent
// runs with is_background is kept in a registry of its own, which Qwen Code mirrors into a
// status file beside the command's output:
// <base>/tmp/<project hash>/background-shells/<session>/shell-<id>.status, {"id", "status":
// running|completed|failed|cancelled, "command", "pid", "startTime", …}, where <base> holds
// the chat recording too (<base>/projects/<project>/chats/<session>.jsonl, the transcript
// path). A shell counts while its file says running and its process is there (a file a
// killed Qwen Code left behind names a process that is gone). The agent can write these
// files: one that says running buys it no more than a real background command does (a
// wait, bounded by --max-wait).
func (chat) Background(path, session string) []state.Task {
	if state.ValidSessionID(session) != nil {
		return nil
	}
	chats := filepath.Dir(path)
	projects := filepath.Dir(filepath.Dir(chats))
	if filepath.Base(chats) != "chats" || filepath.Base(projects) != "projects" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(projects), "tmp", "*", "background-shells", session, "shell-*.status"))
	var out []state.Task
	for _, f := range files {
		if t, ok := runningShell(f); ok {
			out = append(out, t)
		}
	}
	return out
}

// runningShell reads a background shell's status file: the shell as a task, and whether it
// still runs.
func runningShell(file string) (state.Task, bool) {
	f, err := os.Open(file)
	if err != nil {
		return state.Task{}, false
	}
	defer f.Close()
	var st struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Command string `json:"command"`
		PID     int    `json:"pid"`
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil || json.Unmarshal(data, &st) != nil || st.Status != "running" {
		return state.Task{}, false
	}
	if st.PID > 0 {
		if _, err := proc.Read(st.PID); err != nil && !errors.Is(err, proc.ErrUnsupported) {
			return state.Task{}, false
		}
	}
	return state.Task{ID: st.ID, Kind: "shell", Command: st.Command}, true
}
