package main

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/claude"
)

const root = "../../.."

// TestGeneratedFilesCurrent fails when a generated file is stale: the committed file is not
// what "make generate" makes of the code now (or a stray file is in the plugin).
func TestGeneratedFilesCurrent(t *testing.T) {
	files, dirs, err := generated(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: %v (make generate writes it)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make generate", name)
		}
	}
	for _, name := range strays(root, dirs, files) {
		t.Errorf("%s is in the plugin's directory but no generated file: make generate removes it", name)
	}
}

// TestGeneratedFilesMarked: each generated file is marked linguist-generated in
// .gitattributes, under the header line; the one generated section has the header above it.
func TestGeneratedFilesMarked(t *testing.T) {
	files, _, err := generated(root)
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := os.ReadFile(filepath.Join(root, ".gitattributes"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(attrs), "# "+Header+"\n") {
		t.Errorf(".gitattributes lacks the line # %s", Header)
	}
	for name, data := range files {
		if name == claude.PluginVersionsFile {
			continue // a record kept, that generate adds to
		}
		if name == usageDoc {
			if !bytes.Contains(data, []byte(flagMark+"| flag |")) {
				t.Errorf("%s: the flag table has no %q above it", name, flagMark)
			}
			continue
		}
		if !markedGenerated(string(attrs), name) {
			t.Errorf("%s is not marked linguist-generated in .gitattributes", name)
		}
	}
	if markedGenerated(string(attrs), usageDoc) {
		t.Errorf("%s is marked generated, but only its flag table is", usageDoc)
	}
}

// markedGenerated reports whether a line of .gitattributes gives name linguist-generated
// (patterns anchored with "/", "dir/**" or a path.Match pattern).
func markedGenerated(attrs, name string) bool {
	for _, line := range strings.Split(attrs, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || !strings.Contains(line, " linguist-generated") {
			continue
		}
		pat := strings.TrimPrefix(f[0], "/")
		if dir, ok := strings.CutSuffix(pat, "/**"); ok && strings.HasPrefix(name, dir+"/") {
			return true
		}
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// TestWithFlagTable: the table is replaced from its head to the first blank line, the mark
// put above it once, the rest of the document kept.
func TestWithFlagTable(t *testing.T) {
	doc := "# Usage\n\nintro\n\n| flag | default | meaning |\n|---|---|---|\n| `--old` | none | gone |\n\nafter\n"
	got, err := withFlagTable([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := withFlagTable(got)
	if !bytes.Equal(got, again) {
		t.Errorf("a second run changed the document:\n%s\n---\n%s", got, again)
	}
	s := string(got)
	if !strings.HasPrefix(s, "# Usage\n\nintro\n\n"+flagMark+"| flag |") || !strings.HasSuffix(s, "|\n\nafter\n") ||
		strings.Contains(s, "--old") || !strings.Contains(s, "`--max-iterations N`") {
		t.Errorf("withFlagTable:\n%s", s)
	}
	if _, err := withFlagTable([]byte("no table\n")); err == nil {
		t.Error("a document without a flag table was accepted")
	}
}

// TestPluginVersion: -plugin-version gives the plugin a release's number: the versions file
// gains it, and the manifests generate writes say it. A number that does not come after the
// plugin's is refused, and changes nothing.
func TestPluginVersion(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{claude.PluginVersionsFile, usageDoc} {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(tmp, filepath.Dir(filepath.FromSlash(name))), 0o755)
		os.WriteFile(filepath.Join(tmp, filepath.FromSlash(name)), data, 0o644)
	}
	if err := pluginVersion(tmp, claude.PluginVersion()); err == nil {
		t.Errorf("-plugin-version %s, the plugin's own: no error", claude.PluginVersion())
	}
	if err := pluginVersion(tmp, "99.0.0"); err != nil {
		t.Fatal(err)
	}
	files, _, err := generated(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{".claude-plugin/marketplace.json", claude.PluginDir + "/.claude-plugin/plugin.json"} {
		if !strings.Contains(string(files[m]), `"version": "99.0.0"`) {
			t.Errorf("%s after -plugin-version 99.0.0:\n%s", m, files[m])
		}
	}
	if v := string(files[claude.PluginVersionsFile]); !strings.HasSuffix(v, "\n99.0.0 "+claude.PluginSum()+"\n") {
		t.Errorf("%s after -plugin-version 99.0.0 ends:\n%s", claude.PluginVersionsFile, v)
	}
}
