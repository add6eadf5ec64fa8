package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// The same event delivered to a second hook process counts once, even when that process
// starts only after the first has decided (a loaded machine), as long as the transcript has
// not grown since; an identical event after new transcript lines is a new event.
func TestDuplicate(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(tr, []byte("{\"a\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	decided := time.Unix(1000, 0)
	l := &state.Loop{LastKey: "k", LastKeyAt: decided, Transcript: state.TranscriptPos{Path: tr, Offset: 8}}
	before, after := decided.Add(-time.Millisecond), decided.Add(50*time.Millisecond)
	for _, tt := range []struct {
		name    string
		key     string
		started time.Time
		grow    bool
		want    bool
	}{
		{"other event", "j", before, false, false},
		{"no key", "", before, false, false},
		{"second process started before the decision", "k", before, false, true},
		{"second process started after the decision, transcript unchanged", "k", after, false, true},
		{"same input after new transcript lines", "k", after, true, false},
		{"started before, transcript grown meanwhile", "k", before, true, true},
	} {
		if tt.grow {
			if err := os.WriteFile(tr, []byte("{\"a\":1}\n{\"b\":2}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(tr, []byte("{\"a\":1}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := duplicate(l, tt.key, tt.started); got != tt.want {
			t.Errorf("%s: duplicate = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Without a known transcript, only the start time tells.
	l.Transcript = state.TranscriptPos{Offset: -1}
	if duplicate(l, "k", after) {
		t.Error("no transcript: a hook started after the decision taken for a duplicate")
	}
}
