package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// The guard keeps the binaries the hooks run (hook-binary-gone.txtar shows why) without
// reading the host's settings at each tool call: the loop records them when it is armed,
// and they are read again only when a file they come from has changed since, until a stop
// records them anew. A binary a settings file names after arming (the user installed at
// another scope) is kept from the first tool call after the change.
func TestHookBinariesRecorded(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, "settings.json")
	bin1, bin2 := filepath.Join(root, "bin1", "ralph-loop"), filepath.Join(root, "bin2", "ralph-loop")
	for _, b := range []string{bin1, bin2} {
		os.MkdirAll(filepath.Dir(b), 0o755)
		os.WriteFile(b, []byte("#!/bin/sh\n"), 0o755)
	}
	os.WriteFile(settings, []byte(bin1), 0o644)
	store := state.NewStore(filepath.Join(root, "state"))
	store.Warn = func(string) {}
	reads := 0
	now := time.Now().Add(-time.Hour)
	send := func(fields map[string]string) Reply {
		t.Helper()
		fields["session"], fields["cwd"] = "s1", root
		in, _ := json.Marshal(fields)
		now = now.Add(time.Second)
		at := now
		var errs bytes.Buffer
		env := Env{Store: store, Now: func() time.Time { return at }, Getenv: func(string) string { return "" }, Stderr: &errs,
			HookBinaries: func(host, dir string) []string {
				reads++
				data, _ := os.ReadFile(settings)
				return strings.Fields(string(data))
			},
			HookStamp: func(host, dir string) string {
				data, _ := os.ReadFile(settings) // a stand-in for the files' status
				return string(data)
			}}
		return handleSaid(t, env, in)
	}
	check := func(cmd string, deny bool, wantReads int) {
		t.Helper()
		if r := send(map[string]string{"kind": "check", "text": cmd, "tool": cmd}); r.Deny != deny || reads != wantReads {
			t.Errorf("%s: deny %v, settings read %d times; want %v, %d", cmd, r.Deny, reads, deny, wantReads)
		}
	}
	send(map[string]string{"kind": "prompt", "text": `/ralph-loop "Fix it" --max-iterations 10`})
	if reads != 1 {
		t.Fatalf("arming read the settings %d times", reads)
	}
	check("rm "+bin1, true, 1)
	check("mv "+filepath.Dir(bin1)+" /tmp/x", true, 1)
	check("rm "+bin2, false, 1)
	check("go test ./...", false, 1)

	os.WriteFile(settings, []byte(bin1+" "+bin2), 0o644) // another scope's hooks run bin2
	check("rm "+bin2, true, 2)
	check("rm "+bin2, true, 3) // not recorded yet: read at each call
	send(map[string]string{"kind": "said", "turn": "g1", "text": "Working."})
	if r := send(map[string]string{"kind": "stop", "turn": "g1"}); !r.Block || reads != 4 {
		t.Fatalf("the stop: block %v, settings read %d times", r.Block, reads)
	}
	check("rm "+bin2, true, 4)
	check("rm "+bin1, true, 4)
}
