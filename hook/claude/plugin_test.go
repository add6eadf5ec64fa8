package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestPluginVersion: the plugin's version follows its files. Claude Code updates an
// installed plugin only when the version differs, so files that changed since the last
// version need a new one (make generate adds it); and no two versions share their files.
func TestPluginVersion(t *testing.T) {
	releases, err := ParsePluginReleases(pluginVersions)
	if err != nil {
		t.Fatalf("%s: %v", PluginVersionsFile, err)
	}
	last := releases[len(releases)-1]
	if sum := PluginSum(); sum != last.Sum {
		t.Errorf("the plugin's files changed since version %s (their sum is %s, not %s): make generate gives them a new version", last.Version, sum, last.Sum)
	}
	if PluginVersion() != last.Version {
		t.Errorf("PluginVersion() = %q, want the last of %s, %q", PluginVersion(), PluginVersionsFile, last.Version)
	}
}

func TestParsePluginReleases(t *testing.T) {
	for _, c := range []struct{ name, text, err string }{
		{"ok", "# c\n1.0.2 sha256:a\n1.0.3 sha256:b\n", ""},
		{"down", "1.0.3 sha256:a\n1.0.2 sha256:b\n", "does not follow"},
		{"same", "1.0.2 sha256:a\n1.0.2 sha256:b\n", "does not follow"},
		{"a release's number", "1.0.5 sha256:a\n1.2.0 sha256:a\n1.2.1 sha256:b\n", ""},
		{"down in minor", "1.2.0 sha256:a\n1.1.9 sha256:b\n", "does not follow"},
		{"not X.Y.Z", "1.0 sha256:a\n", "does not follow"},
		{"pre-release", "1.0.3-rc1 sha256:a\n", "does not follow"},
		{"leading zero", "1.0.02 sha256:a\n", "does not follow"},
		{"three fields", "1.0.2 sha256:a x\n", "want VERSION SUM"},
	} {
		_, err := ParsePluginReleases([]byte(c.text))
		if got := fmt.Sprint(err); c.err == "" && err != nil || c.err != "" && !strings.Contains(got, c.err) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
	}
	rs, _ := ParsePluginReleases([]byte("1.0.2 sha256:a\n"))
	if r, added := NextPluginRelease(rs, "sha256:a"); added || r.Version != "1.0.2" {
		t.Errorf("same sum: %v %v, want 1.0.2, not added", r, added)
	}
	if r, added := NextPluginRelease(rs, "sha256:b"); !added || r.Version != "1.0.3" {
		t.Errorf("new sum: %v %v, want 1.0.3, added", r, added)
	}
	// A release of another number: given to the plugin, its files unchanged; the next
	// change of the files raises its patch.
	text, err := WithPluginVersion([]byte("1.0.2 sha256:a\n"), "1.2.0", "sha256:a")
	if err != nil || string(text) != "1.0.2 sha256:a\n1.2.0 sha256:a\n" {
		t.Fatalf("WithPluginVersion: %q, %v", text, err)
	}
	rs, _ = ParsePluginReleases(text)
	if r, added := NextPluginRelease(rs, "sha256:a"); added || r.Version != "1.2.0" {
		t.Errorf("after a release's number: %v %v, want 1.2.0, not added", r, added)
	}
	if r, _ := NextPluginRelease(rs, "sha256:c"); r.Version != "1.2.1" {
		t.Errorf("a change after a release's number: %v, want 1.2.1", r)
	}
	for _, v := range []string{"1.0.2", "1.0.1", "2.0", "v2.0.0"} {
		if _, err := WithPluginVersion([]byte("1.0.2 sha256:a\n"), v, "sha256:a"); err == nil {
			t.Errorf("WithPluginVersion %s after 1.0.2: no error", v)
		}
	}
}

// PluginFiles are the plugin's files at its version (PluginFilesAt).
func PluginFiles() map[string][]byte { return PluginFilesAt(PluginVersion()) }
