package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/inject"
)

func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/opencode", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every event the plugin sent under opencode 1.18.33 decodes to what the engine needs.
func TestDecodeCaptures(t *testing.T) {
	tests := []struct {
		file  string
		kind  hook.Kind
		check func(t *testing.T, ev hook.Event)
	}{
		{"command.execute.before.json", hook.Prompt, func(t *testing.T, ev hook.Event) {
			if ev.Prompt != `/ralph-loop "Create x.txt containing hi" --max-iterations 5` {
				t.Errorf("prompt %q", ev.Prompt)
			}
		}},
		{"command.execute.before.cancel.json", hook.Prompt, func(t *testing.T, ev hook.Event) {
			if ev.Prompt != "/cancel-ralph" {
				t.Errorf("prompt %q", ev.Prompt)
			}
		}},
		{"chat.message.json", hook.Prompt, func(t *testing.T, ev hook.Event) {
			if ev.Prompt != "thanks, now something else" {
				t.Errorf("prompt %q", ev.Prompt)
			}
		}},
		{"chat.message.typed-command.json", hook.Prompt, nil},
		// The continuation a blocked stop sent comes back as a user message: not the user's.
		{"chat.message.continuation.json", hook.Ignored, nil},
		{"session.idle.no-promise.json", hook.Stop, func(t *testing.T, ev hook.Event) {
			if !ev.HasText || ev.Text != "I'm done." {
				t.Errorf("text %q (%v)", ev.Text, ev.HasText)
			}
		}},
		{"session.idle.promise.json", hook.Stop, func(t *testing.T, ev hook.Event) {
			want := "Let me actually do it.\n\nLet me end this loop.\n\nx.txt is written. <promise>DONE</promise>"
			if ev.Text != want {
				t.Errorf("text %q, want %q", ev.Text, want)
			}
		}},
		{"session.idle.empty.json", hook.Stop, func(t *testing.T, ev hook.Event) {
			if !ev.HasText || ev.Text != "" {
				t.Errorf("text %q (%v)", ev.Text, ev.HasText)
			}
		}},
		{"tool.execute.before.json", hook.ToolCheck, func(t *testing.T, ev hook.Event) {
			if ev.ToolKind != hook.ShellTool || ev.Command != "echo hi > x.txt" || ev.ToolUseID != "call_fake_1" {
				t.Errorf("tool %+v", ev)
			}
		}},
		{"tool.execute.after.json", hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.ToolUseID != "call_fake_1" || ev.ToolName != "bash" || ev.Rejected {
				t.Errorf("tool %+v", ev)
			}
		}},
		{"session.deleted.json", hook.SessionEnd, nil},
		// Esc in the TUI: the turn ends on an interrupt, no stop; the stopped call did no work.
		{"session.error.aborted.json", hook.Halted, func(t *testing.T, ev hook.Event) {
			if !ev.Interrupted || ev.Error != "" {
				t.Errorf("interrupted %v, error %q; want the user's Esc", ev.Interrupted, ev.Error)
			}
		}},
		{"tool.execute.after.aborted.json", hook.ToolUsed, func(t *testing.T, ev hook.Event) {
			if ev.ToolUseID != "call_fake_1" || !ev.Aborted {
				t.Errorf("call %q, aborted %v; want the call stopped", ev.ToolUseID, ev.Aborted)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ev, err := Host{}.Decode(bytes.NewReader(load(t, tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != tt.kind || ev.SessionID == "" || ev.Cwd != "/WORK/project" || ev.Key == "" {
				t.Fatalf("decoded %+v; want kind %v with session, cwd and key", ev, tt.kind)
			}
			if tt.check != nil {
				tt.check(t, ev)
			}
		})
	}
}

// A call is taken for stopped by the user only as opencode reports one: a shell command with
// no exit status whose output ends with opencode's words; an error of another name is a
// halt of the turn, not the user's.
func TestDecodeStopped(t *testing.T) {
	for _, c := range []struct {
		name, in string
		aborted  bool
	}{
		{"killed, opencode's words", `{"failed":true,"tail":"x\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>"}`, true},
		{"the words printed by a command that exited", `{"failed":false,"tail":"<shell_metadata>\nUser aborted the command\n</shell_metadata>"}`, false},
		{"killed by the timeout", `{"failed":true,"tail":"<shell_metadata>\nshell tool terminated command after exceeding timeout 120000 ms.\n</shell_metadata>"}`, false},
		{"another tool", `{"failed":true,"tool":"read","tail":"<shell_metadata>\nUser aborted the command\n</shell_metadata>"}`, false},
	} {
		in := `{"hook":"tool.execute.after","sessionID":"s","tool":"bash","callID":"c",` + strings.TrimPrefix(c.in, "{")
		ev, err := Host{}.Decode(strings.NewReader(in))
		if err != nil || ev.Aborted != c.aborted {
			t.Errorf("%s: aborted %v (%v), want %v", c.name, ev.Aborted, err, c.aborted)
		}
	}
	ev, err := Host{}.Decode(strings.NewReader(`{"hook":"session.error","sessionID":"s","error":"APIError"}`))
	if err != nil || ev.Kind != hook.Halted || ev.Interrupted || ev.Error != "APIError" {
		t.Errorf("a model error: %+v (%v); want a halt on the error", ev, err)
	}
}

// The text of the turn the plugin sends counts, across a message the user sent while it
// ran; synthetic parts and the user's own text do not.
func TestIterationText(t *testing.T) {
	in := `{"hook":"session.idle","sessionID":"ses_1","directory":"/p","messages":[
		{"role":"user","parts":[{"text":"ralph-loop: iteration 2/5 <promise>DONE</promise>"}]},
		{"role":"assistant","parts":[{"text":"first"},{"text":"<promise>DONE</promise>","synthetic":true}]},
		{"role":"user","parts":[{"text":"also this"}]},
		{"role":"assistant","parts":[{"text":""},{"text":"second"}]}]}`
	ev, err := Host{}.Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Text != "first\n\nsecond" {
		t.Errorf("text %q, want %q", ev.Text, "first\n\nsecond")
	}
}

func TestDecodeBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"not JSON":       "hello",
		"array":          "[]",
		"no session":     `{"hook":"session.idle","messages":[]}`,
		"session number": `{"hook":"session.idle","sessionID":7}`,
		"messages":       `{"hook":"session.idle","sessionID":"s","messages":"x"}`,
		"no callID":      `{"hook":"tool.execute.after","sessionID":"s","tool":"bash"}`,
		"two objects":    `{"sessionID":"s"}{"sessionID":"s"}`,
	} {
		if _, err := (Host{}).Decode(strings.NewReader(in)); !errors.Is(err, hook.ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
	// An event the engine does not handle, or a tool whose arguments are not an object, is
	// not an error.
	for _, in := range []string{`{"hook":"session.compacted","sessionID":"s"}`, `{"hook":"tool.execute.before","sessionID":"s","tool":"bash","args":[1]}`} {
		if _, err := (Host{}).Decode(strings.NewReader(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestEncode(t *testing.T) {
	stop := hook.Event{Kind: hook.Stop}
	prompt := hook.Event{Kind: hook.Prompt}
	command := hook.Event{Kind: hook.Prompt, Name: hookCommand}
	tool := hook.Event{Kind: hook.ToolCheck}
	tests := []struct {
		name string
		ev   hook.Event
		rep  hook.Reply
		want string
	}{
		{"nothing", stop, hook.Reply{}, ""},
		{"continue", stop, hook.Reply{Block: true, Reason: "go on <&>", Notice: "iteration 2/5"}, `{"continue":"go on <&>","notice":"iteration 2/5"}` + "\n"},
		{"allowed with a notice", stop, hook.Reply{Notice: "done"}, `{"notice":"done"}` + "\n"},
		{"armed", prompt, hook.Reply{Context: "the contract", Notice: "armed"}, `{"append":"the contract","notice":"armed"}` + "\n"},
		{"refused", prompt, hook.Reply{Block: true, Reason: "bad flag"}, `{"replace":` + hosttest.JSON(inject.RelayRefusal("bad flag")) + `,"notice":"bad flag"}` + "\n"},
		{"denied", tool, hook.Reply{Deny: true, DenyReason: "no"}, `{"deny":"no"}` + "\n"},
		{"failed", stop, hook.Reply{Notice: "ralph-loop: error: x", Failed: true}, `{"error":"ralph-loop: error: x"}` + "\n"},
		{"a deny on a stop is nothing", stop, hook.Reply{Deny: true, DenyReason: "no"}, ""},
		// The cancel's answer: the command is dropped before it becomes a message, the
		// answer a toast; typed as text (chat.message), or under "opencode run", it cannot be.
		{"cancel answered", command, hook.Reply{Block: true, Reason: "ralph loop cancelled at iteration 2/5", Answered: true},
			`{"drop":true,"notice":"ralph loop cancelled at iteration 2/5"}` + "\n"},
		{"cancel answered as text", prompt, hook.Reply{Block: true, Reason: "no active ralph loop in this session", Answered: true},
			`{"replace":` + hosttest.JSON(inject.RelayRefusal("no active ralph loop in this session")) + `,"notice":"no active ralph loop in this session"}` + "\n"},
		{"cancel answered under run", hook.Event{Kind: hook.Prompt, Name: hookCommand, CannotLoop: "run"}, hook.Reply{Block: true, Reason: "x", Answered: true},
			`{"replace":` + hosttest.JSON(inject.RelayRefusal("x")) + `,"notice":"x"}` + "\n"},
		{"a refused command is relayed", command, hook.Reply{Block: true, Reason: "bad flag"},
			`{"replace":` + hosttest.JSON(inject.RelayRefusal("bad flag")) + `,"notice":"bad flag"}` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		code, err := Host{}.Encode(&b, io.Discard, tt.ev, tt.rep)
		if err != nil || code != 0 || b.String() != tt.want {
			t.Errorf("%s: %q, exit %d, %v; want %q", tt.name, b.String(), code, err, tt.want)
		}
	}
}

// The plugin install writes is a JavaScript module node accepts, with every placeholder
// filled, at both scopes (skipped where node is not installed).
func TestPluginSyntax(t *testing.T) {
	needJS(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	for _, tt := range []struct {
		binary, scope string
		portable      bool
	}{{`/opt/a "b"/ralph-loop`, "user", false}, {"", "project", true}} {
		src := Plugin(tt.binary, tt.scope, tt.portable)
		for _, ph := range []string{"__BINARY__", "__SCOPE__", "__MISSING__"} {
			if strings.Contains(src, ph) {
				t.Errorf("%s: %s is left", tt.scope, ph)
			}
		}
		path := filepath.Join(t.TempDir(), "ralph-loop.mjs")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
			t.Errorf("%s: node --check: %v\n%s", tt.scope, err, out)
		}
	}
}

// TestDecodeToolKinds: what opencode's tools do, from their arguments (synthetic payloads in
// the shape of tool.execute.before.json; opencode 1.18's apply_patch takes patchText, bash a
// workdir).
func TestDecodeToolKinds(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"
	for _, c := range []struct {
		tool string
		args map[string]any
		want hook.Event
	}{
		{"apply_patch", map[string]any{"patchText": patch}, hook.Event{ToolKind: hook.PatchTool, Patch: patch}},
		{"patch", map[string]any{"patchText": patch}, hook.Event{ToolKind: hook.PatchTool, Patch: patch}},
		{"bash", map[string]any{"command": "ls", "workdir": "/w/sub"}, hook.Event{ToolKind: hook.ShellTool, Command: "ls", ToolDir: "/w/sub"}},
		{"write", map[string]any{"filePath": "/w/x", "content": "x"}, hook.Event{ToolKind: hook.WriteTool, FilePath: "/w/x"}},
		{"read", map[string]any{"filePath": "/w/x"}, hook.Event{}},
	} {
		in, _ := json.Marshal(map[string]any{"hook": "tool.execute.before", "sessionID": "ses_1", "directory": "/w", "tool": c.tool,
			"callID": "call_1", "args": c.args})
		ev, err := Host{}.Decode(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if ev.ToolKind != c.want.ToolKind || ev.Patch != c.want.Patch || ev.Command != c.want.Command || ev.ToolDir != c.want.ToolDir ||
			ev.FilePath != c.want.FilePath || ev.ToolName != c.tool {
			t.Errorf("%s: got %+v", c.tool, ev)
		}
	}
}

func TestServerPorts(t *testing.T) {
	for u, want := range map[string]string{"http://127.0.0.1:41234/": "[41234]", "http://localhost:4096": "[4096]", "": "[]", "http://x/": "[]"} {
		if got := fmt.Sprint(serverPorts(u)); got != want {
			t.Errorf("serverPorts(%q) = %s, want %s", u, got, want)
		}
	}
}

// Kilo's plugin is opencode's: every event it sent under Kilo 7.7.7 decodes as the event of
// the same name captured under opencode (one in a session with Kilo's own /goal, which
// opencode has not, as the command's event, with the goal), and Kilo's names are its own.
func TestKiloCaptures(t *testing.T) {
	for _, c := range hosttest.LoadAll(t, "../../testdata/kilo/*.json", 16) {
		f, b := c.Path, c.Data
		name := filepath.Base(f)
		ev, err := Kilo.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		as := name
		if name == "command.execute.before.goal.json" {
			as = "command.execute.before.json"
			if g := ev.Goal; g == nil || g.Text != "Create x.txt containing hi" || !g.Paused {
				t.Errorf("%s: goal %+v, want the paused goal", name, g)
			}
		} else if ev.Goal != nil {
			t.Errorf("%s: a goal %+v", name, ev.Goal)
		}
		want, err := Host{}.Decode(bytes.NewReader(load(t, as)))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != want.Kind || ev.ToolKind != want.ToolKind || ev.Name != want.Name {
			t.Errorf("%s: kind %v/%v %q, want %v/%v %q as under opencode", name, ev.Kind, ev.ToolKind, ev.Name, want.Kind, want.ToolKind, want.Name)
		}
	}
	if Kilo.Name() != "kilo" || Kilo.Installer().Name != "kilo" || Kilo.Facts(func(string) string { return "" }, "/p").CLI != "kilo" {
		t.Errorf("Kilo's names: %q, %q", Kilo.Name(), Kilo.Installer().Name)
	}
}

// "opencode run" cannot hold a loop, nor can "kilo run" (it may exit before the
// continuation's turn): a prompt from either says so; a prompt from elsewhere does not.
func TestRunCannotLoop(t *testing.T) {
	for _, tt := range []struct {
		h    Host
		run  bool
		want string
	}{{Host{}, true, "opencode run exits when the agent first stops, so a loop cannot go on there; start it in the opencode TUI, or in a session of opencode serve (opencode run --attach to a running server works too)"}, {Kilo, true, "kilo run can exit before the loop's next turn starts, so a loop cannot be relied on there; start it in the Kilo TUI, or in a session of kilo serve (kilo run --attach to a running server works too)"}, {Host{}, false, ""}, {Kilo, false, ""}} {
		in := fmt.Sprintf(`{"hook":"chat.message","sessionID":"s","prompt":"/ralph-loop x","run":%v}`, tt.run)
		ev, err := tt.h.Decode(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if ev.CannotLoop != tt.want {
			t.Errorf("%s run=%v: CannotLoop %q, want %q", tt.h.Name(), tt.run, ev.CannotLoop, tt.want)
		}
	}
}

// The guard keeps the programs opencode's plugins run (install.Target.Binaries): the path a
// user's plugin holds, as written (a link is kept as the link), and for a project's the
// ralph-loop found on PATH.
func TestPluginBinaries(t *testing.T) {
	b := hosttest.NewBinaries(t, "ralph-loop")
	for _, h := range []Host{{}, Kilo} {
		b.InstallBoth(t, h.Installer())
	}
}

// Plugin is opencode's plugin for a scope: it runs binary, or at a shared scope the
// ralph-loop on PATH.
func Plugin(binary, scope string, portable bool) string {
	return plugin(Words, binary, scope, portable)
}
