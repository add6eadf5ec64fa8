package hosts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/hook/install/installtest"
)

// settingsCase is a user's settings file written by hand, in one of the layouts people use.
// %E is an event the host's hooks file knows, %U a user's hook entry for it (in the host's
// shape), %N a hook group or entry in one line.
type settingsCase struct {
	name string
	text string
	// comments: the file has comments (hosts that read them only); commas: a comma after
	// a last element (likewise); bom: it starts with a byte order mark (likewise).
	comments, commas, bom bool
}

var settingsCases = []settingsCase{
	{name: "tabs-oneline-escapes-no-newline", text: "{\n\t\"model\": \"caf\\u00e9\",\n\t\"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": []},\n\t\"env\": {\"FOO\": \"b\\u00e4r\"},\n\t\"hooks\": {\n\t\t\"%E\": [%U]\n\t}\n}"},
	{name: "crlf-four-spaces", text: "{\r\n    \"theme\": \"dark\",\r\n    \"hooks\": {\r\n        \"%E\": [\r\n            %U\r\n        ]\r\n    }\r\n}\r\n"},
	{name: "minified", text: `{"a":1,"hooks":{"%E":[%U]},"z":[1,2,3]}`},
	{name: "empty-object", text: "{}"},
	{name: "no-hooks-final-newline", text: "{\n  \"includeCoAuthoredBy\": false\n}\n"},
	{name: "empty-lists", text: "{\n  \"env\": {},\n  \"hooks\": {\n    \"%E\": []\n  },\n  \"a\": { }\n}\n"},
	{name: "empty-hooks", text: "{\n  \"hooks\": {},\n  \"x\": null\n}\n"},
	{name: "comments", comments: true, text: "// my settings\n{\n  /* theme */ \"theme\": \"dark\", // dark is better\n  \"hooks\": {\n    \"%E\": [\n      %U // mine\n    ]\n  }\n}\n"},
	{name: "trailing-comma", commas: true, text: "{\n  \"hooks\": {\n    \"%E\": [\n      %U,\n    ]\n  }\n}\n"},
	{name: "comment-after-last", comments: true, text: "{\n  \"hooks\": {\n    \"%E\": [\n      %U // mine\n    ]\n  } // end\n}"},
	{name: "bom-crlf", bom: true, text: "\ufeff{\r\n  \"theme\": \"dark\"\r\n}\r\n"},
}

// userEntry is a hook of the user's for an event, in the host's shape.
func userEntry(inst *install.Target) string {
	key := "command"
	if len(inst.CommandKeys) > 0 {
		key = inst.CommandKeys[0]
	}
	e := fmt.Sprintf(`{"type": "command", %q: "echo caf\u00e9 >> /tmp/log"}`, key)
	if inst.Shape == install.Nested {
		return `{"hooks": [` + e + `]}`
	}
	return e
}

// TestInstallEditsInPlace: on every host and every scope with a settings file, install into
// a file written by hand keeps every byte of it (it only adds), and uninstall gives the
// file back byte for byte; a file with comments or a BOM is kept as it is by a host that
// reads one and refused, saying why, by a host that does not.
func TestInstallEditsInPlace(t *testing.T) {
	for _, h := range Installers() {
		for _, s := range h.Scopes {
			if s.Settings == "" {
				continue
			}
			for _, c := range settingsCases {
				t.Run(h.Name+"/"+s.Name+"/"+c.name, func(t *testing.T) {
					testInPlace(t, h, s, c)
				})
			}
		}
	}
}

func testInPlace(t *testing.T, inst *install.Target, s install.Scope, c settingsCase) {
	home, project, stateDir := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "PATH": ""}
	o := install.Options{Scope: s.Name, Dir: project, Getenv: func(k string) string { return env[k] },
		Binary: "/opt/ralph/ralph-loop", StateDir: stateDir, Now: time.Unix(1e9, 0)}
	path := inst.SettingsFile(s.Name, project, o.Getenv)
	orig := strings.NewReplacer("%E", inst.Events[len(inst.Events)-1].Name, "%U", userEntry(inst)).Replace(c.text)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := inst.Do(context.Background(), o, true, false)
	if c.comments && !inst.Syntax.Comments || c.commas && !inst.Syntax.Commas || c.bom && !inst.Syntax.BOM {
		if err == nil || !strings.Contains(err.Error(), inst.Title+" does not read") {
			t.Fatalf("install into a file %s cannot read: err = %v, want a refusal naming the host", inst.Title, err)
		}
		if got, _ := os.ReadFile(path); string(got) != orig {
			t.Fatalf("a refused install changed the file:\n%s", got)
		}
		return
	}
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	installed, _ := os.ReadFile(path)
	if !installtest.OnlyAdded([]byte(orig), installed) {
		t.Errorf("install changed more than it added:\n--- before\n%s\n--- after\n%s", orig, installed)
	}
	if c.bom && !bytes.HasPrefix(installed, []byte("\ufeff")) {
		t.Errorf("install dropped the byte order mark")
	}
	if n := strings.Count(string(installed), "hook --host "+inst.Name); n != len(inst.Events) {
		t.Errorf("installed file has %d of ralph-loop's hooks, want %d:\n%s", n, len(inst.Events), installed)
	}
	if strings.Contains(orig, "\r\n") && strings.Count(string(installed), "\n") != strings.Count(string(installed), "\r\n") {
		t.Errorf("install mixed line endings into a CRLF file:\n%q", installed)
	}
	if strings.Contains(orig, "\t") && strings.Contains(string(installed), "\n  ") {
		t.Errorf("install indented with spaces in a file indented with tabs:\n%s", installed)
	}
	if p, err := inst.Do(context.Background(), o, true, false); err != nil || p.Changed() {
		t.Fatalf("second install: changed %v, err %v", p != nil && p.Changed(), err)
	}
	if _, err := inst.Do(context.Background(), o, false, false); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if string(got) != orig {
		t.Errorf("uninstall did not give the file back:\n--- before\n%q\n--- after\n%q", orig, got)
	}
}
