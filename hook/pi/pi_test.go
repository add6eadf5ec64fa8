package pi

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

func decodeFile(t *testing.T, name string, fields map[string]any) hook.Event {
	t.Helper()
	in := hosttest.Load(t, filepath.Join("../../testdata/pi", name))
	if fields != nil {
		in = hosttest.Patch(in, fields)
	}
	ev, err := Host{}.Decode(bytes.NewReader(in))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ev
}

// TestDecode reads each captured event as the engine needs it.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		file   string
		fields map[string]any
		kind   hook.Kind
		check  func(t *testing.T, ev hook.Event)
	}{
		{"command.json", nil, hook.Prompt, func(t *testing.T, ev hook.Event) {
			if ev.Prompt != `/ralph-loop "Create x.txt containing hi" --max-iterations 5` || ev.CannotLoop != "" || ev.InTurn {
				t.Errorf("prompt %q, cannot loop %q, in turn %v", ev.Prompt, ev.CannotLoop, ev.InTurn)
			}
		}},
		// pi -p: the extension has no UI, and pi exits at the first agent_end.
		{"command.json", map[string]any{"noUI": true}, hook.Prompt, func(t *testing.T, ev hook.Event) {
			if !strings.Contains(ev.CannotLoop, "pi -p") {
				t.Errorf("cannot loop %q, want it to name pi -p", ev.CannotLoop)
			}
		}},
		{"input.busy.json", nil, hook.Prompt, func(t *testing.T, ev hook.Event) {
			if ev.Prompt != "Also check the README." || !ev.InTurn {
				t.Errorf("prompt %q, in turn %v; want the message, typed while the agent worked", ev.Prompt, ev.InTurn)
			}
		}},
		// A message an extension sent is not the user's.
		{"input.busy.json", map[string]any{"source": "extension"}, hook.Ignored, nil},
		{"agent_end.no-promise.json", nil, hook.Stop, func(t *testing.T, ev hook.Event) {
			if !ev.HasText || ev.Text != "I'm done." || len(ev.Usage) != 1 || ev.Usage[0].Model != "fake-model" {
				t.Errorf("text %q (%v), usage %+v", ev.Text, ev.HasText, ev.Usage)
			}
		}},
		{"agent_end.promise.json", nil, hook.Stop, func(t *testing.T, ev hook.Event) {
			if !strings.HasSuffix(ev.Text, "x.txt is written. <promise>DONE</promise>") || strings.Contains(ev.Text, "ralph-loop: iteration") {
				t.Errorf("text %q: want the agent's messages only", ev.Text)
			}
			var total float64
			for _, r := range ev.Usage {
				if !r.HasCost {
					t.Errorf("record %+v without pi's cost", r)
				}
				total += r.Cost
			}
			if len(ev.Usage) != 4 || total <= 0 {
				t.Errorf("usage %+v, want 4 priced replies", ev.Usage)
			}
		}},
		// A run that ended on an error, or that the user stopped (Esc), is no stop: the loop
		// waits for the user's next message, who is told so.
		{"agent_end.error.json", nil, hook.Halted, func(t *testing.T, ev hook.Event) {
			if ev.Interrupted || ev.HasText {
				t.Errorf("interrupted %v, text %q; want the error's halt", ev.Interrupted, ev.Text)
			}
		}},
		{"agent_end.aborted.json", nil, hook.Halted, func(t *testing.T, ev hook.Event) {
			if !ev.Interrupted || ev.HasText {
				t.Errorf("interrupted %v, text %q; want the user's Esc", ev.Interrupted, ev.Text)
			}
		}},
		{"tool_call.json", nil, hook.ToolCheck, func(t *testing.T, ev hook.Event) {
			if ev.ToolKind != hook.ShellTool || ev.Command != "echo hi > x.txt" || ev.ToolUseID == "" {
				t.Errorf("%+v", ev)
			}
		}},
		{"tool_call.write.json", nil, hook.ToolCheck, func(t *testing.T, ev hook.Event) {
			if ev.ToolKind != hook.WriteTool || ev.FilePath != "/WORK/home/notes.txt" {
				t.Errorf("write of %q (kind %v), want ~ as pi expands it", ev.FilePath, ev.ToolKind)
			}
		}},
		{"tool_call.write.json", map[string]any{"args.path": "@src/a.go"}, hook.ToolCheck, func(t *testing.T, ev hook.Event) {
			if ev.FilePath != "src/a.go" {
				t.Errorf("write of %q, want pi's leading @ dropped", ev.FilePath)
			}
		}},
		{"tool_call.write.json", map[string]any{"tool": "read"}, hook.ToolCheck, func(t *testing.T, ev hook.Event) {
			if ev.ToolKind != hook.OtherTool {
				t.Errorf("read judged as kind %v", ev.ToolKind)
			}
		}},
		{"tool_result.json", nil, hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.ToolUseID != "call_fake_2" || ev.Aborted {
				t.Errorf("tool use id %q, aborted %v", ev.ToolUseID, ev.Aborted)
			}
		}},
		// Esc while the call ran: it did no work.
		{"tool_result.aborted.json", nil, hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.ToolUseID != "call_fake_1" || !ev.Aborted {
				t.Errorf("tool use id %q, aborted %v; want the call stopped", ev.ToolUseID, ev.Aborted)
			}
		}},
		{"tool_result.aborted.json", map[string]any{"tail": "partial output\n\nOperation aborted"}, hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if !ev.Aborted {
				t.Error("a file tool's call stopped by Esc taken for one that did its work")
			}
		}},
		// A command's own output, or a failure of its own, is no Esc: pi's status line comes
		// after the output, and only an error result ends with it.
		{"tool_result.aborted.json", map[string]any{"failed": false}, hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.Aborted {
				t.Error("a call that succeeded, printing \"Command aborted\", taken for a stopped one")
			}
		}},
		{"tool_result.aborted.json", map[string]any{"tail": "Command aborted\n\nCommand exited with code 1"}, hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.Aborted {
				t.Error("a call that failed by itself taken for a stopped one")
			}
		}},
		{"session_start.json", nil, hook.SessionStart, func(t *testing.T, ev hook.Event) {
			if ev.Source != "startup" {
				t.Errorf("source %q", ev.Source)
			}
		}},
		{"session_shutdown.json", nil, hook.SessionEnd, nil},
		{"session_shutdown.json", map[string]any{"reason": "reload"}, hook.Ignored, nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			ev := decodeFile(t, c.file, c.fields)
			if ev.Kind != c.kind {
				t.Fatalf("kind %v, want %v", ev.Kind, c.kind)
			}
			if c.check != nil {
				c.check(t, ev)
			}
		})
	}
}

// TestBadInput: what is not the extension's event is refused as input.
func TestBadInput(t *testing.T) {
	for _, in := range []string{``, `[]`, `{}`, `{"hook":"tool_result","sessionID":"s"}`, `{"hook":"agent_end","sessionID":"s","messages":{}}`} {
		if _, err := (Host{}).Decode(strings.NewReader(in)); err == nil {
			t.Errorf("%q decoded", in)
		}
	}
}

// TestEncode: the engine's replies in the extension's words.
func TestEncode(t *testing.T) {
	for _, c := range []struct {
		kind hook.Kind
		rep  hook.Reply
		want string
	}{
		{hook.Stop, hook.Reply{Block: true, Reason: "go on", Notice: "n"}, `{"continue":"go on","notice":"n"}`},
		{hook.Prompt, hook.Reply{Block: true, Reason: "cancelled"}, `{"refuse":"cancelled"}`},
		{hook.Prompt, hook.Reply{Context: "the contract", Notice: "armed"}, `{"send":"the contract","notice":"armed"}`},
		{hook.SessionStart, hook.Reply{Context: "the contract"}, `{"send":"the contract"}`},
		{hook.ToolCheck, hook.Reply{Deny: true, DenyReason: "no"}, `{"deny":"no"}`},
		{hook.Stop, hook.Reply{Failed: true, Notice: "ralph-loop: error: x"}, `{"error":"ralph-loop: error: x"}`},
		{hook.Stop, hook.Reply{}, ``},
	} {
		var out bytes.Buffer
		if code, err := (Host{}).Encode(&out, nil, hook.Event{Kind: c.kind}, c.rep); code != 0 || err != nil {
			t.Fatalf("%+v: exit %d, %v", c.rep, code, err)
		}
		if got := strings.TrimSpace(out.String()); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.rep, got, c.want)
		}
	}
}

// TestEvents: the events "ralph-loop hook --help" lists for pi are exactly those the
// extension passes on.
func TestEvents(t *testing.T) {
	hosttest.SameEvents(t, extensionSource, `base\("([^"]+)"`, Host{}.Events())
}

// TestExtension: install writes the extension with its binary, its scope and the loop
// commands, as valid JavaScript for node where node is installed.
func TestExtension(t *testing.T) {
	src := Extension("/opt/bin/ralph-loop", "user", false)
	for _, want := range []string{`const BINARY = "/opt/bin/ralph-loop"`, `const SCOPE = "user"`, extensionMark, `"cancel-ralph":`} {
		if !strings.Contains(src, want) {
			t.Errorf("the extension lacks %q", want)
		}
	}
	if strings.Contains(src, "__") {
		t.Errorf("a placeholder is left: %q", regexp.MustCompile(`__[A-Z_]+__`).FindString(src))
	}
	if p := Extension("/opt/bin/ralph-loop", "project", true); !strings.Contains(p, `const BINARY = "ralph-loop"`) {
		t.Errorf("the project's extension does not run the ralph-loop on PATH")
	}
	var m map[string]string
	line := regexp.MustCompile(`const COMMANDS = (\{.*\})`).FindStringSubmatch(src)
	if line == nil || json.Unmarshal([]byte(line[1]), &m) != nil || len(m) != 3 {
		t.Errorf("the commands: %q", line)
	}
}

// TestExtensionSyntax: the extension install writes is a module node accepts. It runs in make
// e2e's tier (RALPH_JS=1: make test starts no node), and skips where node is not installed.
func TestExtensionSyntax(t *testing.T) {
	if os.Getenv("RALPH_JS") != "1" {
		t.Skip("the JavaScript tests run with RALPH_JS=1 (make e2e)")
	}
	src := Extension("/opt/bin/ralph-loop", "user", false)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the extension's syntax is not checked")
	}
	path := filepath.Join(t.TempDir(), "ralph-loop.mjs")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Errorf("node --check: %v\n%s", err, out)
	}
}

// TestExtensionBinaries: the guard keeps the programs pi's extensions run
// (install.Target.Binaries): the path a user's extension holds, as written (a link is kept as
// the link), and for a project's the ralph-loop found on PATH; a file in the extension's
// place that is not ralph-loop's, or names no program, names nothing.
func TestExtensionBinaries(t *testing.T) {
	b := hosttest.NewBinaries(t, "rl")
	b.InstallBoth(t, Installer)
	getenv, project, onPath := b.Getenv, b.Project, b.OnPath

	user := filepath.Join(b.Home, ".pi", "agent", ExtensionFile)
	ours, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"another extension":        "const BINARY = \"/opt/other\"\nexport default function () {}\n",
		"ours with no BINARY line": strings.Replace(string(ours), "\nconst BINARY = ", "\nconst PROGRAM = ", 1),
		"ours with an empty one":   regexp.MustCompile(`(?m)^const BINARY = .*$`).ReplaceAllString(string(ours), `const BINARY = ""`),
	} {
		if err := os.WriteFile(user, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, want := Installer.Binaries(getenv, project), []string{onPath}; !slices.Equal(got, want) {
			t.Errorf("%s in the user's extension's place: got %q, want %q", name, got, want)
		}
	}
}
