package install

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/ralph-loop/ralph-loop/hook/install/installtest"
)

// FuzzEditInPlace: for any settings file a host with comments and a BOM reads, install's edit
// adds only bytes (every byte of the file stays, in order), the result reads back as the
// planner's value, and uninstall's edit gives the file back byte for byte.
func FuzzEditInPlace(f *testing.F) {
	for _, s := range []string{
		"{}", "{ }", "{\n}\n", `{"a":1}`, "{\n\t\"a\": [1, 2],\n\t\"hooks\": {}\n}",
		"\ufeff{\r\n  \"env\": {\"X\": \"\\u00e9\"}\r\n}\r\n",
		"// c\n{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"command\": \"x\"}]}, // mine\n    ],\n  },\n}",
		"{\"hooks\":{\"Stop\":[]},\"env\":{}}",
		"{\n  \"a\": 1 // last\n}",
		"[1]", `{"hooks": {"Stop": {}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := testHost()
		h.Syntax = Syntax{Comments: true, BOM: true}
		doc, v, err := parseDoc(data, h.Syntax, h.Title)
		if err != nil {
			return
		}
		spread := emptyOnLines(doc.root.Clone())
		obj, ok := v.(*object)
		if !ok {
			return
		}
		if had, err := h.removeHooks(obj, nil, false); had || err != nil {
			return // ralph-loop's hooks already there, or a shape install refuses
		}
		orig, err := plainValue(data)
		if err != nil {
			t.Fatalf("parseDoc read it but plainValue does not: %v", err)
		}
		rec := &Record{Kept: h.present(obj)}
		if _, _, err := h.addHooks(obj, "/bin/ralph-loop", "/keep/hooks/claude.sh", Scope{Name: ScopeUser}, rec, nil); err != nil {
			return
		}
		if _, err := h.addSettings(obj, rec); err != nil {
			return
		}
		doc.patch(orig, obj)
		installed := doc.pack()
		doc2, v2, err := parseDoc(installed, h.Syntax, h.Title)
		if err != nil {
			t.Fatalf("install wrote a file that does not read back: %v\n%q", err, installed)
		}
		if !sameJSON(v2, obj) {
			t.Fatalf("install wrote a different value:\n%q\nwant %s", installed, encodeJSON(obj))
		}
		if !installtest.OnlyAdded(data, installed) {
			t.Fatalf("install changed more than it added:\n%q\n%q", data, installed)
		}
		obj2 := v2.(*object)
		orig2, _ := plainValue(installed)
		if _, err := h.removeHooks(obj2, rec, true); err != nil {
			t.Fatal(err)
		}
		h.removeSettings(obj2, rec)
		doc2.patch(orig2, obj2)
		if back := doc2.pack(); !bytes.Equal(back, data) && !spread {
			t.Fatalf("uninstall did not give the file back:\n%q\n%q", data, back)
		}
	})
}

// emptyOnLines reports whether the file had an empty object or list spread over lines
// ("{\n}"): filled by install, it reads as "{}" filled would, and comes back as "{}".
func emptyOnLines(v hujson.Value) bool {
	found := false
	var walk func(v *hujson.Value)
	walk = func(v *hujson.Value) {
		switch t := v.Value.(type) {
		case *hujson.Object:
			if len(t.Members) == 0 && bytes.ContainsRune(t.AfterExtra, '\n') {
				found = true
			}
			for i := range t.Members {
				walk(&t.Members[i].Value)
			}
		case *hujson.Array:
			if len(t.Elements) == 0 && bytes.ContainsRune(t.AfterExtra, '\n') {
				found = true
			}
			for i := range t.Elements {
				walk(&t.Elements[i])
			}
		}
	}
	walk(&v)
	return found
}

// A settings file install cannot use is refused with where the fault is, FILE:LINE:COLUMN
// (the column in bytes, from 1), as .ralph/settings.json's faults are said.
func TestSettingsErrorsSayWhere(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"a": 1,, }`, ":1:9: not valid JSON (invalid character ','"},
		{"{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}", ":3:13: not valid JSON (a comma after the last member of an object or list, which Test Host does not read)"},
		{"{\n  \"a\": \"x // y\",\n  // mine\n  \"b\": 1\n}", ":3:3: not valid JSON (a comment, which Test Host does not read)"},
		{"\n  [1]", ":2:3: the settings are not a JSON object"},
		{"{\n  \"hooks\": 3}", ":2:12: hooks is not a JSON object"},
		{`{"hooks": {"Stop": {}}}`, ":1:20: hooks.Stop is not a JSON array"},
		{`{"env": []}`, ":1:9: env is not a JSON object"},
	} {
		dir := t.TempDir()
		h := testHost()
		path := localSettings(t, dir, c.text)
		_, err := h.Do(t.Context(), opts(t, ScopeLocal, dir), true, false)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, path+c.want)
		}
	}
}
