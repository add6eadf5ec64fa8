package cursor

import (
	"bytes"
	"encoding/json"
	"math"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/state"
)

// LoopLimitKey is the stop hook entry's field that caps its follow-ups in a row;
// DefaultLoopLimit applies when the entry has none (null: no limit).
const (
	LoopLimitKey     = "loop_limit"
	DefaultLoopLimit = 5
)

// Facts states Cursor's facts for an event. Its cap on blocked stops is the loop_limit of
// ralph-loop's stop hook, which is read from the hooks files; tool calls do not reset
// Cursor's count of follow-ups.
func (Host) Facts(getenv func(string) string, cwd string) hook.Facts {
	project := cwd
	if project == "" {
		project = getenv("CURSOR_PROJECT_DIR")
	}
	return hook.Facts{
		Hooks:    hook.Hooks{Files: func() []string { return Installer.HookFiles(getenv, project) }},
		Words:    Words,
		BlockCap: LoopLimit(getenv, project),
		StopTimeout: func() time.Duration {
			d, _ := Installer.HookTimeout("stop", project, getenv) // 0 (unknown) when none is set
			return d
		},
		ProjectDir: project,
		// The agent's text comes in afterAgentResponse events, which Cursor may still be
		// running when the stop hook starts.
		Transcript: &hook.Transcript{SaidLog: true, Lags: true,
			NoUsage: "Cursor hands its hooks no token counts and keeps no transcript they can read"},
		CLI: "cursor-agent",
	}
}

// LoopLimit is the loop_limit of ralph-loop's stop hook (0: none): the user's hooks file's
// entry, which answers when both are installed (the project's defers to it), else the
// project's; DefaultLoopLimit when neither has one.
func LoopLimit(getenv func(string) string, project string) int {
	for _, scope := range []string{install.ScopeUser, install.ScopeProject} {
		if scope == install.ScopeProject && project == "" {
			continue
		}
		if n, ok := loopLimit(Installer.SettingsFile(scope, project, getenv)); ok {
			return n
		}
	}
	return DefaultLoopLimit
}

// loopLimit reads the loop_limit of ralph-loop's stop hook entry in a hooks file: ok is
// false when the file has no such entry.
func loopLimit(path string) (int, bool) {
	if path == "" {
		return 0, false
	}
	data, err := state.ReadRegular(path, 4<<20)
	if err != nil {
		return 0, false
	}
	var file struct {
		Hooks struct {
			Stop []map[string]json.RawMessage `json:"stop"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &file) != nil {
		return 0, false
	}
	for _, e := range file.Hooks.Stop {
		var cmd string
		if json.Unmarshal(e["command"], &cmd) != nil || !Installer.Ours(cmd, nil) {
			continue
		}
		raw, set := e[LoopLimitKey]
		switch {
		case !set:
			return DefaultLoopLimit, true
		case bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
			return 0, true
		}
		var f float64
		if json.Unmarshal(raw, &f) != nil || f < 0 || math.IsNaN(f) {
			return DefaultLoopLimit, true
		}
		// 0, no follow-up at all, cannot be told from no cap (hook.Facts.BlockCap = 0): it
		// is taken as 1, so the loop's first follow-up is sent, and Cursor drops it.
		return int(math.Max(1, math.Min(math.Floor(f), math.MaxInt32))), true
	}
	return 0, false
}
