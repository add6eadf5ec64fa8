package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginFiles keeps the committed plugin what PluginFiles makes of it (make generate
// rewrites it).
func TestPluginFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for name, want := range PluginFiles() {
		p := filepath.Join(root, filepath.FromSlash(name))
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v (make generate writes it)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date (make generate rewrites it); it should read:\n%s", name, want)
		}
		if strings.HasSuffix(name, ".json") && !json.Valid(got) {
			t.Errorf("%s is not valid JSON", name)
		}
	}
	// Nothing else in the plugin's directory: a file left behind would ship with it.
	want := PluginFiles()
	_ = filepath.WalkDir(filepath.Join(root, PluginDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if _, ok := want[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s is in the plugin but not made by PluginFiles", rel)
		}
		return nil
	})
}

// The plugin's hooks are the events install writes, each running the portable command
// (which the installer recognises as its own) with install's timeout.
func TestPluginHooks(t *testing.T) {
	var h struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int64  `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(PluginFiles()[PluginDir+"/hooks/hooks.json"], &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Hooks) != len(Installer.Events) {
		t.Errorf("%d events in the plugin, install writes %d", len(h.Hooks), len(Installer.Events))
	}
	for _, ev := range Installer.Events {
		groups := h.Hooks[ev.Name]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: %d groups, want one with one hook", ev.Name, len(groups))
			continue
		}
		g := groups[0]
		if g.Matcher != ev.Matcher || g.Hooks[0].Type != "command" || g.Hooks[0].Timeout != int64(ev.Timeout.Seconds()) {
			t.Errorf("%s: %+v", ev.Name, g)
		}
		if cmd := g.Hooks[0].Command; !Installer.Ours(cmd, nil) || !strings.Contains(cmd, "command -v ralph-loop") {
			t.Errorf("%s runs %q, not the portable command", ev.Name, cmd)
		}
	}
}
