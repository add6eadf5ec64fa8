package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestIsHookCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/ralph-loop hook --host claude":          true,
		"'/opt/my tools/ralph-loop' hook --host claude":         true,
		HookCommand("/a b/c'd/ralph-loop"):                      true,
		"ralph-loop hook --host claude":                         true,
		"/usr/bin/ralph-loop hook --host codex":                 false,
		"/usr/bin/ralph-loop-old hook --host claude":            false,
		"/usr/bin/ralph-loop hook --host claude --verbose":      false,
		"bash -c 'ralph-loop hook --host claude'":               false,
		"python3 tap.py /usr/bin/ralph-loop hook --host claude": false,
	} {
		if got := IsHookCommand(cmd); got != want {
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

func TestPlanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Scope: ScopeProject, Dir: dir, Binary: "/bin/ralph-loop", Now: time.Now()}
	p, err := Claude(opt)
	if err != nil || !p.Changed() {
		t.Fatalf("plan: %+v %v", p, err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	if p, _ := Claude(opt); p.Changed() {
		t.Fatalf("second install changes: %+v", p.Changes)
	}
	u, err := UninstallClaude(opt)
	if err != nil || !u.Changed() {
		t.Fatalf("uninstall plan: %+v %v", u, err)
	}
	if err := u.Apply(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if strings.TrimSpace(string(data)) != "{}" {
		t.Fatalf("after uninstall: %s", data)
	}
	if u, _ := UninstallClaude(opt); u.Changed() {
		t.Fatalf("second uninstall changes: %+v", u.Changes)
	}
}

func TestPlanRefusesOddSettings(t *testing.T) {
	for _, content := range []string{`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"env":"x"}`} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
		os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(content), 0o644)
		if _, err := Claude(Options{Scope: ScopeProject, Dir: dir, Binary: "/bin/ralph-loop"}); err == nil {
			t.Errorf("install into %s succeeded", content)
		}
	}
	if _, err := Claude(Options{Scope: ScopeProject, Dir: t.TempDir(), Binary: "relative/ralph-loop"}); err == nil {
		t.Error("relative binary path accepted")
	}
}
