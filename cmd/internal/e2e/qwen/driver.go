package qwen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Env is one isolated world (see e2e.Base) with Qwen Code's user settings.
type Env struct {
	e2e.Base
	Qwen string
}

// userSettings point Qwen Code at the fake (auth type openai) and switch off what would
// reach the network or send requests of its own (the background memory agents send
// tool-bearing requests after a turn). Hooks are not here: "ralph-loop install" adds them.
// They are written as a person may write them and Qwen Code reads them (a byte order mark,
// comments): install keeps those, and Qwen Code loads the hooks it adds.
const userSettings = "\ufeff" + `// offline, for the tests
{
  "security": {"auth": {"selectedType": "openai"}}, // the fake API
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false},
  "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false},
  "ui": {"enableFollowupSuggestions": false}
}
`

// NewEnv lays out an Env under root.
func NewEnv(root, qwen, ralphLoop string) (*Env, error) {
	e := &Env{Qwen: qwen}
	if err := e.Lay("qwen", root, ralphLoop, func() []string { return e.environ("", nil) }, filepath.Join(root, "home", ".qwen")); err != nil {
		return nil, err
	}
	return e, os.WriteFile(e.UserSettings(), []byte(userSettings), 0o644)
}

// UserSettings is the path of Qwen Code's user settings file.
func (e *Env) UserSettings() string { return filepath.Join(e.Home, ".qwen", "settings.json") }

// environ is the environment of qwen and ralph-loop (see e2e.Base.Offline), with the fake
// at apiURL as Qwen Code's OpenAI provider when given.
func (e *Env) environ(apiURL string, extra []string) []string {
	set := []string{"TERM=dumb"}
	if apiURL != "" {
		set = append(set, "OPENAI_API_KEY=dummy-local-key", "OPENAI_BASE_URL="+apiURL, "OPENAI_MODEL=fake-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	}
	return e.Offline([]string{"QWEN", "OPENAI", "GEMINI", "GOOGLE", "DASHSCOPE", "ANTHROPIC", "CLAUDE"}, append(set, extra...)...)
}

// Loop is a loop as "ralph-loop status --json" prints it.
type Loop = e2e.Loop

// Run is one "qwen -p PROMPT --yolo ARGS" in the project: a prompt of the suite the hosts
// share (see e2e.ChatSuite).
type Run = e2e.Prompt

// Headless runs qwen headless against a fake serving r.Script, with stdin closed.
func (e *Env) Headless(ctx context.Context, r Run) (*e2e.Ran, error) {
	return e2e.RunHeadless(ctx, "qwen", r.Script, func(ctx context.Context, fakeURL string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, e.Qwen, append([]string{"-p", r.Prompt, "--yolo"}, r.Args...)...)
		cmd.Dir, cmd.Env = e.Project, e.environ(fakeURL, r.Env)
		return cmd
	}, nil)
}
