package cursor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
)

// userHooks is a user's own ~/.cursor/hooks.json, with hooks of their own on the events
// ralph-loop uses too, written as install writes JSON (two-space indentation), so that
// uninstall gives it back byte for byte.
const userHooks = `{
  "version": 1,
  "hooks": {
    "stop": [
      {
        "command": "./hooks/audit.sh",
        "loop_limit": 10
      }
    ],
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ],
    "beforeSubmitPrompt": [
      {
        "command": "./hooks/audit.sh"
      }
    ]
  }
}
`

// hooksFile is the part of a hooks.json the tests read.
type hooksFile struct {
	Version int                         `json:"version"`
	Hooks   map[string][]map[string]any `json:"hooks"`
}

func readHooks(t *testing.T, path string) hooksFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f hooksFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return f
}

func do(t *testing.T, o install.Options, add bool) *install.Plan {
	t.Helper()
	p, err := Installer.Do(context.Background(), o, add, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// User scope: install adds one entry per event to the user's hooks.json, the stop hook with
// a loop_limit that covers any --max-iterations, keeps the user's own hooks where they
// were, writes the command files beside it; a second install changes nothing, and uninstall
// gives back the file as it was, byte for byte, and removes the command files.
func TestInstallUser(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(dir, "home")}
	cursor := filepath.Join(dir, "home", ".cursor")
	if err := os.MkdirAll(cursor, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cursor, "hooks.json")
	if err := os.WriteFile(path, []byte(userHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	o := install.Options{Scope: install.ScopeUser, Getenv: func(k string) string { return env[k] }, Binary: "/opt/bin/ralph-loop",
		StateDir: filepath.Join(dir, "state"), Now: time.Now()}
	do(t, o, true)

	f := readHooks(t, path)
	for _, ev := range Installer.Events {
		list := f.Hooks[ev.Name]
		last := list[len(list)-1]
		if last["command"] != install.BinaryCommand(Installer, ev, "/opt/bin/ralph-loop", "") {
			t.Errorf("%s: %v; want ralph-loop's entry last", ev.Name, list)
		}
		switch ev.Name {
		case "stop":
			if last["loop_limit"] != float64(InstallLoopLimit) || last["timeout"] != float64(StopTimeoutSeconds) {
				t.Errorf("stop entry %v", last)
			}
			if first := list[0]; first["command"] != "./hooks/audit.sh" || first["loop_limit"] != float64(10) {
				t.Errorf("the user's stop hook changed: %v", first)
			}
		case "preToolUse":
			if last["matcher"] != ToolMatcher {
				t.Errorf("preToolUse entry %v", last)
			}
		default:
			if _, ok := last["loop_limit"]; ok || last["timeout"] != float64(10) {
				t.Errorf("%s entry %v", ev.Name, last)
			}
		}
	}
	if f.Version != 1 || len(f.Hooks["afterFileEdit"]) != 1 || len(f.Hooks["beforeSubmitPrompt"]) != 2 {
		t.Errorf("the user's hooks changed: %+v", f)
	}
	if n := LoopLimit(func(k string) string { return env[k] }, ""); n != InstallLoopLimit {
		t.Errorf("LoopLimit after install = %d", n)
	}
	for _, name := range []string{"ralph-loop.md", "ulw-loop.md", "cancel-ralph.md"} {
		data, err := os.ReadFile(filepath.Join(cursor, "commands", name))
		if err != nil || !strings.HasPrefix(string(data), "[ralph-loop command /") {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	if p := do(t, o, true); p.Changed() {
		t.Errorf("a second install changed %v", p.Changes)
	}

	do(t, o, false)
	if data, _ := os.ReadFile(path); string(data) != userHooks {
		t.Errorf("uninstall left\n%s\nwant\n%s", data, userHooks)
	}
	if _, err := os.Stat(filepath.Join(cursor, "commands")); !os.IsNotExist(err) {
		t.Errorf("the commands directory install created is still there: %v", err)
	}
}

// Project scope: .cursor/hooks.json (created, committed) runs the ralph-loop on PATH, says
// so on a machine without it, and goes with the command files at uninstall.
func TestInstallProject(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "p")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": filepath.Join(dir, "home")}
	o := install.Options{Scope: install.ScopeProject, Dir: project, Getenv: func(k string) string { return env[k] },
		StateDir: filepath.Join(dir, "state"), Now: time.Now()}
	p := do(t, o, true)
	var noted bool
	for _, c := range p.Changes {
		noted = noted || strings.Contains(c.Note, "only in a workspace it trusts")
	}
	if !noted {
		t.Errorf("no note on workspace trust: %+v", p.Changes)
	}
	path := filepath.Join(project, ".cursor", "hooks.json")
	f := readHooks(t, path)
	stop := f.Hooks["stop"]
	if len(stop) != 1 || stop[0]["loop_limit"] != float64(InstallLoopLimit) {
		t.Fatalf("stop: %v", stop)
	}
	cmd, _ := stop[0]["command"].(string)
	if !strings.HasPrefix(cmd, "b= e=stop; command -v ralph-loop ") || !strings.Contains(cmd, "RALPH_LOOP_SCOPE=project exec ralph-loop hook --host cursor") {
		t.Errorf("project command %q", cmd)
	}
	if prompt, _ := f.Hooks["beforeSubmitPrompt"][0]["command"].(string); !strings.Contains(prompt, "*ralph*") || !strings.Contains(prompt, ">&2") {
		t.Errorf("the prompt hook does not tell a machine without ralph-loop: %q", prompt)
	}
	if n := LoopLimit(func(k string) string { return env[k] }, project); n != InstallLoopLimit {
		t.Errorf("LoopLimit = %d", n)
	}
	do(t, o, false)
	for _, gone := range []string{path, filepath.Join(project, ".cursor")} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "PATH": filepath.Join(dir, "bin")}
	getenv := func(k string) string { return env[k] }
	if Installer.Detected(getenv) {
		t.Fatal("detected with nothing there")
	}
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "bin", "cursor-agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !Installer.Detected(getenv) {
		t.Error("cursor-agent on PATH: not detected")
	}
	os.Remove(filepath.Join(dir, "bin", "cursor-agent"))
	os.WriteFile(filepath.Join(dir, "bin", "cursor"), []byte("#!/bin/sh\n"), 0o755)
	if !Installer.Detected(getenv) {
		t.Error("cursor on PATH: not detected")
	}
	os.Remove(filepath.Join(dir, "bin", "cursor"))
	os.MkdirAll(filepath.Join(dir, "home", ".cursor"), 0o755)
	if !Installer.Detected(getenv) {
		t.Error("~/.cursor: not detected")
	}
}
