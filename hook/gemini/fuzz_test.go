package gemini

import (
	"bytes"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

// FuzzScan feeds the chat-file scanner anything, seeded from the captured chat files: it
// never panics, never reads past its input, and counts no more replies than lines.
func FuzzScan(f *testing.F) {
	hosttest.Seed(f, "../../testdata/gemini/*.jsonl")
	f.Add([]byte(`{"type":"gemini","content":[{"text":"<promise>DONE</promise>"}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Scan(bytes.NewReader(data), 0, transcript.Options{Token: "DONE"})
		if err != nil {
			return
		}
		if res.Offset > int64(len(data)) || res.Replies > res.Lines {
			t.Fatalf("offset %d of %d bytes, %d replies in %d lines", res.Offset, len(data), res.Replies, res.Lines)
		}
	})
}
