package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
)

// TestTrustHashCodex checks TrustHash against the currentHash that the real Codex 0.169.0
// reported ("codex app-server", hooks/list) for these handlers.
func TestTrustHashCodex(t *testing.T) {
	for _, c := range []struct {
		h    Handler
		want string
	}{
		{Handler{Event: "PreToolUse", Matcher: "Bash", Command: "/usr/local/bin/ralph-loop hook --host codex", Timeout: 10},
			"sha256:052934694a74ba9c004e68e184dc44624758845efef91a40b495db86f9782a97"},
		{Handler{Event: "UserPromptSubmit", Command: "/usr/local/bin/ralph-loop hook --host codex", Timeout: 10},
			"sha256:5e594b0c6bc6f8c7fb894382fddd8a9ce23d08c3f784fc3d44c85e29abcc6c56"},
		// No timeout (Codex hashes its default, 600), a quote, a backslash, non-ASCII and
		// U+2028, which serde_json writes as they are.
		{Handler{Event: "Stop", Command: "'/a b/ralph-loop' hook --host codex <\u2028é\"x\\"},
			"sha256:5cdcd0b0a90d832017d41740740a5329864b7c0c5fc098f4221b34ce35c551ff"},
	} {
		if got := TrustHash(c.h); got != c.want {
			t.Errorf("TrustHash(%+v) = %s, want %s", c.h, got, c.want)
		}
	}
	if got := TrustKey("/h/.codex/hooks.json", "UserPromptSubmit", 1, 0); got != "/h/.codex/hooks.json:user_prompt_submit:1:0" {
		t.Errorf("TrustKey = %q", got)
	}
	// A matcher on an event without matchers is not hashed.
	if TrustHash(Handler{Event: "Stop", Matcher: "*", Command: "x"}) != TrustHash(Handler{Event: "Stop", Command: "x"}) {
		t.Error("Stop's matcher changed the hash")
	}
}

func TestRetrust(t *testing.T) {
	ours := func(cmd string) bool { return strings.HasSuffix(cmd, "hook --host codex") }
	user := `{"type":"command","command":"my-linter"}`
	rl := `{"type":"command","command":"/bin/ralph-loop hook --host codex","timeout":900}`
	// The user's Stop hook after ralph-loop's, trusted by the user; ralph-loop's untrusted.
	before, err := Handlers("/h/hooks.json", []byte(`{"hooks":{"Stop":[{"hooks":[`+rl+`]},{"hooks":[`+user+`]}]}}`), ours)
	if err != nil || len(before) != 2 || !before[0].Ours || before[1].Ours {
		t.Fatalf("%+v %v", before, err)
	}
	config, _ := SetTrust("", []TrustEntry{before[1]})
	// Reinstalled: ralph-loop's group now comes last.
	after, _ := Handlers("/h/hooks.json", []byte(`{"hooks":{"Stop":[{"hooks":[`+user+`]},{"hooks":[`+rl+`]}]}}`), ours)
	got, err := Retrust(config, before, after)
	if err != nil {
		t.Fatal(err)
	}
	h := TrustedHashes(got)
	if h["/h/hooks.json:stop:0:0"] != before[1].Hash || h["/h/hooks.json:stop:1:0"] != after[1].Hash || len(h) != 2 {
		t.Errorf("after reinstall: %v\n%s", h, got)
	}
	if again, _ := Retrust(got, after, after); again != got {
		t.Errorf("a second run changed config.toml:\n%s", again)
	}
	// Uninstalled: only the user's hook and its trust are left.
	left, _ := Handlers("/h/hooks.json", []byte(`{"hooks":{"Stop":[{"hooks":[`+user+`]}]}}`), ours)
	got, _ = Retrust(got, after, left)
	if h := TrustedHashes(got); h["/h/hooks.json:stop:0:0"] != before[1].Hash || len(h) != 1 {
		t.Errorf("after uninstall: %v\n%s", h, got)
	}
	if got, _ = Retrust(got, left, nil); len(TrustedHashes(got)) != 1 {
		t.Errorf("the user's trust was removed with a file that is not ralph-loop's: %s", got)
	}
}

func TestSetTrust(t *testing.T) {
	e := []TrustEntry{{Key: "/h/hooks.json:stop:0:0", Hash: "sha256:new"}, {Key: `/w "q"/hooks.json:pre_tool_use:0:0`, Hash: "sha256:b"}}
	config := "model = \"m\" # comment\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:old\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n"
	got, err := SetTrust(config, e)
	if err != nil {
		t.Fatal(err)
	}
	want := "model = \"m\" # comment\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:new\"\nenabled = true\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n" +
		"[hooks.state.\"/w \\\"q\\\"/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:b\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again, _ := SetTrust(got, e); again != got {
		t.Errorf("a second SetTrust changed the file:\n%s", again)
	}
	h := TrustedHashes(got)
	if h[e[0].Key] != "sha256:new" || h[e[1].Key] != "sha256:b" || len(h) != 2 {
		t.Errorf("TrustedHashes = %v", h)
	}
	removed, err := RemoveTrust(got, []string{e[0].Key, e[1].Key})
	if err != nil {
		t.Fatal(err)
	}
	wantRemoved := "model = \"m\" # comment\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\nenabled = true\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n"
	if removed != wantRemoved {
		t.Errorf("RemoveTrust:\n%q\nwant\n%q", removed, wantRemoved)
	}
	fresh, _ := SetTrust("", e[:1])
	if back, _ := RemoveTrust(fresh, []string{e[0].Key}); back != "" {
		t.Errorf("install then uninstall on an empty file left %q", back)
	}
	renamed, _ := RenameTrust(got, map[string]string{e[0].Key: "/h/hooks.json:stop:1:0"})
	if h := TrustedHashes(renamed); h["/h/hooks.json:stop:1:0"] != "sha256:new" || h[e[0].Key] != "" {
		t.Errorf("RenameTrust: %v", h)
	}
}

func TestSetTrustRefuses(t *testing.T) {
	for _, config := range []string{
		"hooks = { state = {} }\n",
		"[hooks]\nstate = { \"k\" = { trusted_hash = \"x\" } }\n",
		"[hooks.state]\n\"/h/hooks.json:stop:0:0\" = { trusted_hash = \"x\" }\n",
		"hooks.state.\"k\".trusted_hash = \"x\"\n",
	} {
		if _, err := SetTrust(config, []TrustEntry{{Key: "k", Hash: "h"}}); err == nil {
			t.Errorf("SetTrust edited %q", config)
		}
	}
	// A multi-line string that looks like a table is text.
	config := "instructions = \"\"\"\n[hooks.state]\nx = 1\n\"\"\"\n"
	if _, err := SetTrust(config, []TrustEntry{{Key: "k", Hash: "h"}}); err != nil {
		t.Errorf("a multi-line string was read as TOML: %v", err)
	}
}

func TestStopTimeout(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"},{"type":"command","command":"/b/ralph-loop hook --host codex","timeout":900}]}]}}`), 0o644)
	env := map[string]string{"CODEX_HOME": home}
	f := Host{}.Facts(func(k string) string { return env[k] }, t.TempDir())
	if d := f.StopTimeout(); d != 900*time.Second {
		t.Errorf("StopTimeout = %v", d)
	}
	env["CODEX_HOME"] = t.TempDir()
	if d := f.StopTimeout(); d != 600*time.Second {
		t.Errorf("StopTimeout without hooks = %v, want Codex's default", d)
	}
}

func TestScanRollout(t *testing.T) {
	path := "../../testdata/codex/rollout.loop3.jsonl"
	res, err := ScanFile(path, 0, transcript.Options{Token: "DONE", Last: "Iteration 3 finished. <promise>DONE</promise>"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !res.Found || !res.SawLast || res.Offset != int64(len(data)) || res.Bad != 0 || res.Lines != 41 {
		t.Errorf("got %+v", res)
	}
	if strings.Join(res.ToolIDs, ",") != "call_fake_1,call_fake_2,call_fake_3" {
		t.Errorf("tool ids %v", res.ToolIDs)
	}
	// Up to the second assistant message: no promise yet (the user's prompt and the hook's
	// continuations do not count).
	cut := int64(strings.Index(string(data), `"ordinal":27,`))
	cut = int64(strings.LastIndexByte(string(data[:cut]), '\n') + 1)
	res, err = ScanFile(path, 0, transcript.Options{Token: "DONE", Limit: cut, Last: "Iteration 2 finished."})
	if err != nil || res.Found || !res.SawLast || len(res.ToolIDs) != 2 {
		t.Errorf("first two iterations: %+v %v", res, err)
	}
	// A marker only in the user's prompt is not the model's.
	user := `{"timestamp":"2026-11-21T22:32:04.286Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<promise>DONE</promise>"}]}}` + "\n"
	if res, _ := Scan(strings.NewReader(user), 0, transcript.Options{Token: "DONE"}); res.Found {
		t.Error("the user's text counted")
	}
	// Keys in any order; a malformed line is skipped and counted; an unfinished line waits.
	lines := `{"payload":{"content":[{"text":"ok <promise>DONE</promise>","type":"output_text"}],"role":"assistant","type":"message"},"type":"response_item"}` + "\n" +
		`{"type":"response_item","payload":{` + "\n" +
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}}`
	res, err = Scan(strings.NewReader(lines), 0, transcript.Options{Token: "DONE", Mode: promise.Mode("")})
	if err != nil || !res.Found || res.Bad != 1 || res.Lines != 2 {
		t.Errorf("got %+v %v", res, err)
	}
}

// FuzzScan checks that any rollout scans without panicking, consuming only whole lines.
func FuzzScan(f *testing.F) {
	data, err := os.ReadFile("../../testdata/codex/rollout.loop3.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<promise>DONE</promise>"}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Scan(strings.NewReader(string(data)), 0, transcript.Options{Token: "DONE", Last: "x"})
		if err != nil {
			return
		}
		if res.Offset > int64(len(data)) || (res.Offset > 0 && data[res.Offset-1] != '\n') {
			t.Fatalf("offset %d of %d", res.Offset, len(data))
		}
	})
}

// ScanFile scans the rollout at path from offset (see transcript.ScanWith: a missing file
// is an error wrapping fs.ErrNotExist, an offset past the end starts over).
func ScanFile(path string, offset int64, opt transcript.Options) (transcript.Result, error) {
	return transcript.ScanWith(path, offset, opt, Scan)
}
