package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookList is the settings' list of hooks for an event, as the test host (Nested) has it:
// each group's first entry's command and timeout.
func hookList(t *testing.T, path, event string) (cmds []string, timeouts []float64) {
	t.Helper()
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string  `json:"command"`
				Timeout float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(settingsOf(t, path)), &f); err != nil {
		t.Fatal(err)
	}
	for _, g := range f.Hooks[event] {
		cmds = append(cmds, g.Hooks[0].Command)
		timeouts = append(timeouts, g.Hooks[0].Timeout)
	}
	return cmds, timeouts
}

// editSettings rewrites the settings file through f, as a user editing it would.
func editSettings(t *testing.T, path string, f func(s string) string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(f(settingsOf(t, path))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Install again (after an upgrade, from another path, to add a host) keeps what the user
// changed in ralph-loop's hooks: a Stop timeout raised (as ralph-loop's own warning tells
// them to) stays, one lowered below ralph-loop's is put back, saying so; and ralph-loop's
// hook stays where it was among the user's own, before them or after.
func TestReinstallKeepsYours(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	path := filepath.Join(dir, ".test", "settings.local.json")
	mine := `{"type": "command", "command": "notify-send done"}`
	localSettings(t, dir, `{"hooks": {"Stop": [{"hooks": [`+mine+`]}]}}`)
	do(t, h, o, true)
	cmds, _ := hookList(t, path, "Stop")
	if len(cmds) != 2 || cmds[0] != "notify-send done" {
		t.Fatalf("first install: %q, want the user's hook then ralph-loop's", cmds)
	}
	// The user raises the Stop timeout, and moves ralph-loop's hook before their own.
	editSettings(t, path, func(s string) string {
		var v map[string]any
		json.Unmarshal([]byte(s), &v)
		stop := v["hooks"].(map[string]any)["Stop"].([]any)
		stop[0], stop[1] = stop[1], stop[0]
		stop[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["timeout"] = 1800
		b, _ := json.MarshalIndent(v, "", "  ")
		return string(b)
	})
	for _, bin := range []string{"/bin/ralph-loop", "/usr/local/bin/ralph-loop"} {
		o.Binary = bin
		p := do(t, h, o, true)
		cmds, timeouts := hookList(t, path, "Stop")
		if len(cmds) != 2 || !strings.Contains(cmds[0], "b="+bin+" ") || cmds[1] != "notify-send done" {
			t.Errorf("install from %s: %q, want ralph-loop's hook still first", bin, cmds)
		}
		if timeouts[0] != 1800 {
			t.Errorf("install from %s: Stop timeout %v, want the user's 1800 kept", bin, timeouts[0])
		}
		if bin != "/bin/ralph-loop" && !strings.Contains(strings.Join(p.Changes[0].What, "\n"), "keeps your Stop timeout of 1800 s") {
			t.Errorf("install from %s does not say it kept the timeout: %q", bin, p.Changes[0].What)
		}
	}
	// Lowered below ralph-loop's 900 s (the checks would be cut short): put back, saying so.
	editSettings(t, path, func(s string) string { return strings.Replace(s, `"timeout": 1800`, `"timeout": 5`, 1) })
	p := do(t, h, o, true)
	if _, timeouts := hookList(t, path, "Stop"); timeouts[0] != 900 {
		t.Errorf("a lowered timeout: %v, want ralph-loop's 900 back", timeouts[0])
	}
	if !strings.Contains(strings.Join(p.Changes[0].What, "\n"), "Stop timeout 5 s raised to 900 s") {
		t.Errorf("install does not say it raised the timeout: %q", p.Changes[0].What)
	}
}

// A settings file the user made read-only (chmod 444) is refused, saying so and how to go
// on, and left as it was; one that needs no change is not.
func TestReadOnlySettingsRefused(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	path := localSettings(t, dir, `{"model": "opus"}`)
	os.Chmod(path, 0o444)
	_, err := h.Do(t.Context(), o, true, false)
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "chmod u+w") {
		t.Errorf("install into a read-only settings file: err = %v, want a refusal", err)
	}
	if s := settingsOf(t, path); s != `{"model": "opus"}` {
		t.Errorf("the read-only file changed:\n%s", s)
	}
	os.Chmod(path, 0o644)
	do(t, h, o, true)
	os.Chmod(path, 0o444)
	if p := do(t, h, o, true); p.Changed() {
		t.Errorf("a second install into the same, read-only, file changed it")
	}
	if _, err := h.Do(t.Context(), o, false, false); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("uninstall from a read-only settings file: err = %v, want a refusal", err)
	}
}

// Each change to the settings file is said, one line each: the hooks added, brought up to
// date or taken out, the settings set or taken out.
func TestInstallSaysWhatChanged(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	lines := func(p *Plan) string { return strings.Join(p.Changes[0].What, "\n") }
	if got := lines(do(t, h, o, true)); got != "adds ralph-loop's hooks for 4 events\nsets env.CAP" {
		t.Errorf("install says:\n%s", got)
	}
	o.Binary = "/opt/ralph-loop"
	if got := lines(do(t, h, o, true)); got != "replaces ralph-loop's hooks for 4 events (now running /opt/ralph-loop)" {
		t.Errorf("install from another binary says:\n%s", got)
	}
	if got := lines(do(t, h, o, false)); got != "takes out ralph-loop's hooks for 4 events\ntakes out env.CAP" {
		t.Errorf("uninstall says:\n%s", got)
	}
}
