package hosttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The helpers a host's Fixture is made of: its captured payloads, its transcript lines,
// its replies.

// ClaudePayload is the payload captured from a host of Claude Code's shape in
// testdata/<host>/<name> (from the host package's directory), for session s: its
// session_id, cwd and transcript_path set, with fields (see Patch).
func ClaudePayload(t testing.TB, host, name string, s Session, fields map[string]any) []byte {
	fields["session_id"], fields["cwd"], fields["transcript_path"] = s.ID, s.Cwd, s.Transcript
	return Patch(Load(t, filepath.Join("../../testdata", host, name)), fields)
}

// AppendJSONL appends each value as a JSON line to the file at path, making its directory
// and the file when they are not there (a transcript as its host writes it).
func AppendJSONL(t testing.TB, path string, lines ...any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadReply decodes a hook's JSON stdout into out, for a host whose hooks answer with exit
// code 0: ok is false for no reply (empty stdout) and for an error (another exit code,
// stdout that is not JSON).
func ReadReply(stdout []byte, code int, out any) (ok bool, err error) {
	if code != 0 {
		return false, fmt.Errorf("exit code %d", code)
	}
	if len(stdout) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		return false, err
	}
	return true, nil
}

// Captured is one captured file: its path and its content.
type Captured struct {
	Path string
	Data []byte
}

// LoadAll reads the captured files that match pattern (as filepath.Glob, from the host
// package's directory), failing the test when there are fewer than least.
func LoadAll(t testing.TB, pattern string, least int) []Captured {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) < least {
		t.Fatalf("captured files missing: %d match %s (%v), want %d or more", len(paths), pattern, err, least)
	}
	var out []Captured
	for _, p := range paths {
		out = append(out, Captured{p, Load(t, p)})
	}
	return out
}

// Seed adds every captured file that matches pattern to a fuzz target's corpus (one
// argument: the file's content), failing when none does.
func Seed(f *testing.F, pattern string) {
	f.Helper()
	for _, c := range LoadAll(f, pattern, 1) {
		f.Add(c.Data)
	}
}
