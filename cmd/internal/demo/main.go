// Command demo plays one scripted Claude Code session with ralph-loop installed: the real
// Claude Code CLI, offline, against a scripted model. The agent tries to stop without the
// promise, then claims the promise without doing anything, then does the work and keeps its
// promise; the demo prints what happened and "ralph-loop status" for the session.
//
// Run it with "make demo".
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The scripted session is e2e.DemoScript (the npm package's test plays it too).
var script, prompt = e2e.DemoScript, e2e.DemoPrompt

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo: error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	claude, err := e2e.InstallClaude(ctx, os.Stderr)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ralph-loop-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ralph, err := e2e.BuildRalphLoop(ctx, dir)
	if err != nil {
		return err
	}
	env, err := e2e.NewEnv(dir, claude, ralph)
	if err != nil {
		return err
	}
	if err := env.Install(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "ralph-loop demo: the real Claude Code %s, offline, against a scripted model\n", e2e.Claude.Version)
	fmt.Fprintf(w, "(ralph-loop install --host claude --scope project put its hooks in %s/.claude/settings.json)\n\n", env.Project)
	res, err := env.Run(ctx, e2e.Session{Script: script, Prompts: []string{prompt}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-8s %s\n", "you", prompt)
	for _, line := range timeline(res) {
		fmt.Fprintln(w, line)
	}
	out, err := env.RalphLoopCmd(ctx, "status", "--session", res.SessionID)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n$ ralph-loop status --session %s\n%s", res.SessionID, out)
	if res.ExitCode != 0 {
		return fmt.Errorf("claude exited with %d: %s", res.ExitCode, res.Stderr)
	}
	return nil
}

// timeline turns claude's stream-json output into one line per thing that happened.
func timeline(res *e2e.Result) []string {
	var out []string
	add := func(who, format string, a ...any) {
		out = append(out, fmt.Sprintf("%-8s %s", who, fmt.Sprintf(format, a...)))
	}
	// Claude Code prints the feedback sent to the agent before the hook's notice: show
	// them the other way round, as they happen.
	var told []string
	for _, m := range res.Lines {
		switch m["type"] {
		case "system":
			if m["subtype"] == "informational" {
				s := fmt.Sprint(m["content"])
				for _, p := range []string{"UserPromptSubmit says: ", "Stop says: "} {
					s = strings.TrimPrefix(s, p)
				}
				add("hook", "%s", s)
				out, told = append(out, told...), nil
			}
		case "assistant":
			for _, b := range blocks(m) {
				switch b["type"] {
				case "text":
					add("agent", "%s", b["text"])
				case "tool_use":
					in, _ := b["input"].(map[string]any)
					arg := in["command"]
					if arg == nil {
						arg = in["file_path"]
					}
					add("agent", "→ %s %v", b["name"], arg)
				}
			}
		case "user":
			for _, b := range blocks(m) {
				switch b["type"] {
				case "tool_result":
					add("tool", "← %s", firstLine(fmt.Sprint(b["content"])))
				case "text":
					if f, ok := strings.CutPrefix(fmt.Sprint(b["text"]), "Stop hook feedback:\n"); ok {
						told = append(told, fmt.Sprintf("%-8s   the agent is told: %s", "", firstLine(f)))
					}
				}
			}
		}
	}
	return append(out, told...)
}

func blocks(m map[string]any) []map[string]any {
	msg, _ := m["message"].(map[string]any)
	raw, _ := msg["content"].([]any)
	var out []map[string]any
	for _, b := range raw {
		if bm, ok := b.(map[string]any); ok {
			out = append(out, bm)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
