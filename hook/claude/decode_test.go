package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
)

// TestSkillShellLine: the shell line of a skill or a command (Claude Code 2.1.332's
// PreSkillShellCommand) is a shell command for the guard, whoever invoked it, and a denial
// is answered in the event's own name.
func TestSkillShellLine(t *testing.T) {
	for _, name := range []string{"PreSkillShellCommand.skill.json", "PreSkillShellCommand.command.json"} {
		b, err := os.ReadFile(filepath.Join("../../testdata/claude", name))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Host{}.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != hook.ToolCheck || ev.ToolKind != hook.ShellTool || !strings.HasPrefix(ev.Command, "echo hello-from-") {
			t.Errorf("%s: kind %v, tool kind %v, command %q; want a shell command to check", name, ev.Kind, ev.ToolKind, ev.Command)
		}
		var out bytes.Buffer
		if _, err := (Host{}).Encode(&out, nil, ev, hook.Reply{Deny: true, DenyReason: "no"}); err != nil {
			t.Fatal(err)
		}
		if want := `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no"}}`; strings.TrimSpace(out.String()) != want {
			t.Errorf("%s: denial %s, want %s", name, out.String(), want)
		}
	}
}

// A completed call of a tool that writes files is told as one (the stall breaker's
// progress without git); a shell call, or a write that failed, is not.
func TestToolUsedKind(t *testing.T) {
	for _, c := range []struct {
		file string
		want hook.ToolKind
	}{
		{"PostToolUse.Write.json", hook.WriteTool},
		{"PostToolUse.Bash.json", hook.OtherTool},
		{"PostToolUseFailure.Bash.json", hook.OtherTool},
	} {
		data, err := os.ReadFile(filepath.Join("../../testdata/claude", c.file))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Host{}.Decode(bytes.NewReader(data))
		if err != nil || ev.Kind != hook.ToolUsed || ev.ToolKind != c.want {
			t.Errorf("%s: kind %v tool %v, %v; want ToolUsed %v", c.file, ev.Kind, ev.ToolKind, err, c.want)
		}
	}
	failed := `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Edit","tool_use_id":"t","error":"x"}`
	if ev, err := (Host{}).Decode(strings.NewReader(failed)); err != nil || ev.ToolKind != hook.OtherTool {
		t.Errorf("a failed Edit: tool %v, %v", ev.ToolKind, err)
	}
}
