package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testHost is a Claude-like host for the planner's tests (the real descriptors live in the
// host packages, which import this one).
func testHost() *Target {
	return &Target{
		Name:  "claude",
		Title: "Test Host",
		Host:  testCode{},
		Scopes: []Scope{
			{Name: ScopeUser, Base: UserBase, Settings: "settings.json", CommandsDir: "commands"},
			{Name: ScopeProject, Base: ProjectBase, Settings: ".test/settings.json", CommandsDir: ".test/commands", Shared: true},
			{Name: ScopeLocal, Base: ProjectBase, Settings: ".test/settings.local.json", CommandsDir: ".test/commands"},
		},
		Events: []Event{
			{Name: "SessionStart", Timeout: 10 * time.Second, Notice: Always, Kind: SessionEvent},
			{Name: "UserPromptSubmit", Timeout: 10 * time.Second, Notice: IfRalph, Kind: PromptEvent},
			{Name: "PreToolUse", Matcher: "Bash", Timeout: 10 * time.Second, Kind: ToolEvent},
			{Name: "Stop", Timeout: 900 * time.Second, Kind: StopEvent},
		},
		Settings: []Setting{{Path: []string{"env", "CAP"}, Value: "1000"}},
	}
}

// testCode is testHost's code: a user directory, command files and a protocol.
type testCode struct{}

var (
	_ Encoder      = testCode{}
	_ CommandFiler = testCode{}
)

func (testCode) UserDir(getenv func(string) string) (string, error) {
	return HomeDir(getenv, ".test")
}

func (testCode) Commands(string) []File {
	return []File{{Name: "ralph-loop.md", Content: "---\ndescription: ours\n---\nbody\n", Mark: "\ndescription: ours\n"}}
}

// Encode is Claude Code's protocol, in brief: a block, and a notice as systemMessage.
func (testCode) Encode(_ Event, r Reply) Encoded {
	m := map[string]string{}
	if r.Block {
		m["decision"], m["reason"] = "block", r.Reason
	}
	if r.Notice != "" {
		m["systemMessage"] = r.Notice
	}
	if len(m) == 0 {
		return Encoded{}
	}
	b, _ := json.Marshal(m)
	return Encoded{Stdout: string(b) + "\n"}
}

func TestIsHookCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/ralph-loop hook --host claude":          true,
		"'/opt/my tools/ralph-loop' hook --host claude":         true,
		HookCommand("/a b/c'd/ralph-loop", "claude"):            true,
		"ralph-loop hook --host claude":                         true,
		"/opt/x/my-ralph-loop hook --host claude":               true,
		"/usr/bin/ralph-loop hook --host codex":                 false,
		"/usr/bin/ralph-loop-old hook --host claude":            false,
		"/usr/bin/ralph-loop hook --host claude --verbose":      false,
		"bash -c 'ralph-loop hook --host claude'":               false,
		"python3 tap.py /usr/bin/ralph-loop hook --host claude": false,
	} {
		if got := IsHookCommand(cmd, "claude"); got != want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestJSONKeepsOrderAndValues(t *testing.T) {
	src := `{"z":1,"a":{"y":[true,false,null,1.50,"s\u00e9<>&"],"b":{}},"m":[]}`
	v, err := parseJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := string(encodeJSON(v))
	want := "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [\n      true,\n      false,\n      null,\n      1.50,\n      \"sé<>&\"\n    ],\n    \"b\": {}\n  },\n  \"m\": []\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{"", "{", `{"a":1}{}`, `{"a":}`} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("parseJSON(%q) succeeded", bad)
		}
	}
}

func opts(t *testing.T, scope, dir string) Options {
	home := t.TempDir()
	return Options{Scope: scope, Dir: dir, Binary: "/bin/ralph-loop", StateDir: filepath.Join(home, "state"), KeepDir: filepath.Join(home, "keep"), Now: time.Now(),
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}}
}

func do(t *testing.T, inst *Target, o Options, install bool) *Plan {
	t.Helper()
	p, err := inst.Do(t.Context(), o, install, false)
	if err != nil {
		t.Fatalf("install=%v: %v", install, err)
	}
	return p
}

func TestPlanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeProject, dir)
	if p := do(t, h, o, true); !p.Changed() {
		t.Fatalf("first install changes nothing")
	}
	if p := do(t, h, o, true); p.Changed() {
		t.Fatalf("second install changes: %s", describe(p))
	}
	if u := do(t, h, o, false); !u.Changed() {
		t.Fatalf("uninstall changes nothing")
	}
	if _, err := os.Stat(filepath.Join(dir, ".test")); !os.IsNotExist(err) {
		t.Fatalf("uninstall left .test behind: %v", err)
	}
	if u := do(t, h, o, false); u.Changed() {
		t.Fatalf("second uninstall changes: %s", describe(u))
	}
}

func TestPlanRefusesOddSettings(t *testing.T) {
	h := testHost()
	for _, content := range []string{`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"env":"x"}`} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".test"), 0o755)
		os.WriteFile(filepath.Join(dir, ".test", "settings.json"), []byte(content), 0o644)
		if _, err := h.Install(opts(t, ScopeProject, dir)); err == nil {
			t.Errorf("install into %s succeeded", content)
		}
	}
	o := opts(t, ScopeLocal, t.TempDir())
	o.Binary = "relative/ralph-loop"
	if _, err := h.Install(o); err == nil {
		t.Error("relative binary path accepted")
	}
}

func TestPortableCommandNamesNoPath(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeProject, dir)
	o.Binary = "/very/private/path/ralph-loop"
	do(t, h, o, true)
	data, _ := os.ReadFile(filepath.Join(dir, ".test", "settings.json"))
	if strings.Contains(string(data), "/very/private") {
		t.Fatalf("project settings name the installer's path:\n%s", data)
	}
	if !strings.Contains(string(data), "command -v ralph-loop") {
		t.Fatalf("project settings have no portable command:\n%s", data)
	}
}

func describe(p *Plan) string {
	var b strings.Builder
	for _, c := range p.Changes {
		b.WriteString("\n" + c.Describe())
	}
	return b.String()
}

// TestHookFiles: the files through which a host runs the hooks, at every scope, for the
// guard; extra files are relative to the user directory or absolute.
func TestHookFiles(t *testing.T) {
	h := &Target{Name: "h", Host: pluginCode{},
		Scopes: []Scope{{Name: ScopeUser, Base: UserBase, Settings: "settings.json", CommandsDir: "cmds"},
			{Name: ScopeProject, Base: ProjectBase, Settings: ".h/settings.json", CommandsDir: ".h"}}}
	getenv := func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }
	got := fmt.Sprint(h.HookFiles(getenv, "/p", "config.toml", "/etc/h.json"))
	want := "[/home/u/.h/settings.json /home/u/.h/cmds/plugins/p.js /p/.h/settings.json /p/.h/plugins/p.js /home/u/.h/config.toml /etc/h.json]"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(h.HookFiles(getenv, "")); !strings.HasPrefix(got, "[/home/u/.h/settings.json") || strings.Contains(got, "/p/") {
		t.Errorf("no project: %s", got)
	}
}

// pluginCode is the code of a host whose hooks are a plugin of its own.
type pluginCode struct{}

var _ PluginFiler = pluginCode{}

func (pluginCode) UserDir(getenv func(string) string) (string, error) { return HomeDir(getenv, ".h") }
func (pluginCode) Files(CommandSpec) []File                           { return []File{{Name: "plugins/p.js"}} }
func (pluginCode) FileBinary([]byte) (string, bool)                   { return "", false }

// DirFromEnv takes the variable's directory, made absolute, and the home directory's
// otherwise.
func TestDirFromEnv(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	if d, err := DirFromEnv(getenv, "X_HOME", ".x"); err != nil || d != "/home/u/.x" {
		t.Errorf("unset: %q, %v; want /home/u/.x", d, err)
	}
	env["X_HOME"] = "rel/x"
	want, _ := filepath.Abs("rel/x")
	if d, err := DirFromEnv(getenv, "X_HOME", ".x"); err != nil || d != want {
		t.Errorf("X_HOME=rel/x: %q, %v; want %q", d, err, want)
	}
}

// The host's hook script is written into ralph-loop's keep (private, as the keep is) by an
// install at any scope, kept while an install at another scope runs it, and removed with the
// directories install made for it by the last uninstall.
func TestHookScriptWritten(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeUser, dir)
	script := ScriptPath(o.KeepDir, h.Name)
	do(t, h, o, true)
	if data, err := os.ReadFile(script); err != nil || string(data) != h.Script() {
		t.Fatalf("script not written: %v", err)
	}
	for _, p := range []string{script, filepath.Dir(script), o.KeepDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v, %v; want private", p, fi.Mode().Perm(), err)
		}
	}
	p := o
	p.Scope = ScopeProject
	p.Force = true
	do(t, h, p, true)
	do(t, h, o, false)
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("uninstall at user scope removed the script the project's hooks run: %v", err)
	}
	os.WriteFile(script, []byte("# an earlier version's\n"), 0o600)
	if pl := do(t, h, p, true); !pl.Changed() {
		t.Error("install did not bring an earlier script up to date")
	}
	do(t, h, p, false)
	if _, err := os.Stat(o.KeepDir); !os.IsNotExist(err) {
		t.Errorf("the last uninstall left %s: %v", o.KeepDir, err)
	}
}
