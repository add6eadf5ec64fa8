package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The signed Stop blocks 9 times, then lets the stop through; a promise at the end of the
// transcript lets it through at once; a state whose signature does not verify is an error,
// at the Stop and at the check.
func TestSignedStop(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, "transcript.jsonl")
	if err := os.WriteFile(transcript, []byte(`{"text":"Not done yet."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"transcript_path":` + `"` + transcript + `"}`)
	state := filepath.Join(dir, "state")
	os.Mkdir(state, 0o700)
	blocks := 0
	for range 12 {
		var out bytes.Buffer
		if err := signedStop(state, in, &out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), `"decision":"block"`) {
			blocks++
		}
	}
	if blocks != 9 {
		t.Errorf("%d stops blocked, want 9", blocks)
	}
	if _, _, err := readState(state, false); err != nil {
		t.Errorf("the check: %v", err)
	}

	fresh := filepath.Join(dir, "fresh")
	os.Mkdir(fresh, 0o700)
	os.WriteFile(transcript, []byte(`{"text":"All set. <promise>DONE</promise>"}`+"\n"), 0o600)
	var out bytes.Buffer
	if err := signedStop(fresh, in, &out); err != nil || out.Len() != 0 {
		t.Errorf("a promised stop: %q, %v; want it let through", out.String(), err)
	}

	os.WriteFile(filepath.Join(state, "state.json"), []byte(`{"count":0,"mac":"00"}`), 0o600)
	if err := signedStop(state, in, &out); err == nil {
		t.Error("a forged state was taken by the stop")
	}
	if _, _, err := readState(state, false); err == nil {
		t.Error("a forged state was taken by the check")
	}
}
