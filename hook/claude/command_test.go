package claude_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/hook/claude"
)

// The prompt Claude Code 2.1.330's TUI handed UserPromptSubmit for a bracketed paste of a
// whole long /ralph-loop command: the paste wrapped in <pasted_content id="…">, the closing
// tag carrying the id too.
func TestCommandTextPastedCapture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claude", "UserPromptSubmit.pasted.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Prompt string }
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	c, ok, looksLike := hook.ParseCommand(claude.CommandText(in.Prompt))
	if !ok || looksLike || c.Name != hook.CommandLoop {
		t.Fatalf("ParseCommand = %+v, %v, %v; want %s", c, ok, looksLike, hook.CommandLoop)
	}
	words, err := args.Split(c.Rest)
	if err != nil {
		t.Fatal(err)
	}
	p, err := args.Parse(words, args.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.MaxIterations != 5 {
		t.Errorf("max iterations %d, want 5", p.Config.MaxIterations)
	}
	if strings.Contains(p.Config.Task, "pasted_content") || len(p.Config.Task) != 1009 || !strings.HasSuffix(p.Config.Task, "document") {
		t.Errorf("task of %d bytes ends %q; want the 1,009 bytes pasted, without the wrapper", len(p.Config.Task), p.Config.Task[max(len(p.Config.Task)-60, 0):])
	}
}

func TestCommandText(t *testing.T) {
	tests := []struct {
		prompt        string
		name, rest    string
		ok, looksLike bool
	}{
		{prompt: `/ralph-loop "x" --max-iterations 3`, name: hook.CommandLoop, rest: ` "x" --max-iterations 3`, ok: true},
		{prompt: "  /cancel-ralph", name: hook.CommandCancel, ok: true},
		{prompt: "/ralph-loopy", ok: false},
		{prompt: "\n\n<pasted_content id=\"1\">\n/ralph-loop \"x\"\n</pasted_content id=\"1\">\n", name: hook.CommandLoop, rest: " \"x\"\n", ok: true},
		{prompt: "<pasted_content id=\"1\">/ralph-loop \"x\"</pasted_content>", name: hook.CommandLoop, rest: ` "x"`, ok: true},
		// Text typed after the paste: not only a command.
		{prompt: "<pasted_content id=\"1\">/ralph-loop \"x\"</pasted_content id=\"1\"> and more", looksLike: true},
		{prompt: "<other>\n/ralph-loop \"x\"", looksLike: true},
		{prompt: "please run /ralph-loop later"},
		// A paste of more than the command: not unwrapped, and refused as not recognised.
		{prompt: "<pasted_content id=\"1\">\nsome notes\n/ralph-loop \"x\"\n</pasted_content id=\"1\">", looksLike: true},
		// The plugin's namespace.
		{prompt: "/ralph-loop:ralph-loop fix it --max-iterations 3", name: hook.CommandLoop, rest: " fix it --max-iterations 3", ok: true},
		{prompt: "/ralph-loop:ulw-loop x", name: hook.CommandULW, rest: " x", ok: true},
		{prompt: "/ralph-loop:cancel-ralph", name: hook.CommandCancel, ok: true},
		{prompt: "<pasted_content id=\"2\">/ralph-loop:cancel-ralph</pasted_content id=\"2\">", name: hook.CommandCancel, ok: true},
		{prompt: "/ralph-loop:other"},
		{prompt: "/ralph-loop:ralph-loopy"},
	}
	for _, tt := range tests {
		c, ok, looksLike := hook.ParseCommand(claude.CommandText(tt.prompt))
		if ok != tt.ok || looksLike != tt.looksLike || c.Name != tt.name || (tt.rest != "" && c.Rest != tt.rest) {
			t.Errorf("ParseCommand(CommandText(%q)) = %+v, %v, %v; want %s %q, %v, %v", tt.prompt, c, ok, looksLike, tt.name, tt.rest, tt.ok, tt.looksLike)
		}
	}
}
