package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/state"
)

// paragraph returns the paragraph of doc (blank-line separated) that starts with start.
func paragraph(t *testing.T, doc, start string) string {
	t.Helper()
	data, err := os.ReadFile("../../" + doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(string(data), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(p), start) {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	t.Fatalf("%s has no paragraph starting %q", doc, start)
	return ""
}

// jsonKeys are the JSON keys of a struct type's fields.
func jsonKeys(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// TestUsageJSONKeys: docs/usage.md names every key of status --json (a loop's, its events'
// and its pause's), so a key added to the code is documented.
func TestUsageJSONKeys(t *testing.T) {
	p := paragraph(t, "docs/usage.md", "`status` prints a table of loops")
	for _, k := range jsonKeys(reflect.TypeOf(loopView{})) {
		if !strings.Contains(p, "`"+k+"`") {
			t.Errorf("docs/usage.md does not name status --json's key %q", k)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(eventView{}), reflect.TypeOf(pauseView{}), reflect.TypeOf(ownerView{}), reflect.TypeOf(checkpointsView{}),
		reflect.TypeOf(waitView{}), reflect.TypeOf(state.Task{})} {
		for _, k := range jsonKeys(typ) {
			if !regexp.MustCompile(`\{[^}]*"` + k + `"[^}]*\}`).MatchString(p) {
				t.Errorf("docs/usage.md does not name status --json's key %q (of %s)", k, typ.Name())
			}
		}
	}
}

// TestInstallEvents: docs/install.md names, in each host's paragraph, every hook event
// install writes for it.
func TestInstallEvents(t *testing.T) {
	for _, h := range hosts.Installers() {
		if len(h.Events) == 0 {
			continue // a plugin or an extension, not hook entries
		}
		start := h.Title + ":"
		if h.Name == "claude" || h.Name == "codex" {
			start = "What install writes for " + h.Title + ":"
		}
		if h.Name == "cursor" {
			start = h.Title + " ("
		}
		p := paragraph(t, "docs/install.md", start)
		for _, ev := range h.Events {
			if !strings.Contains(p, "`"+ev.Name+"`") {
				t.Errorf("docs/install.md's paragraph on %s does not name the event %s", h.Title, ev.Name)
			}
		}
	}
}

// TestUsageSessionVariables: docs/usage.md's sentence on start's session names each host's
// session variable, and every host that has none.
func TestUsageSessionVariables(t *testing.T) {
	p := paragraph(t, "docs/usage.md", "`start` arms a loop")
	_, without, ok := strings.Cut(p, "prints the prompt contract.")
	if !ok {
		t.Fatal("docs/usage.md: no sentence after start's prompt contract")
	}
	without, _, _ = strings.Cut(without, "put no session id")
	for _, h := range hosts.All {
		v := sessionEnv(h)
		name := strings.TrimPrefix(hosts.Title(h), "GitHub ")
		switch {
		case v != "" && !strings.Contains(p, "`$"+v+"` in "+name):
			t.Errorf("docs/usage.md does not name %s's session variable $%s", name, v)
		case v == "" && !strings.Contains(without, name):
			t.Errorf("docs/usage.md does not say that %s puts no session id in the agent's shell", name)
		}
	}
}
