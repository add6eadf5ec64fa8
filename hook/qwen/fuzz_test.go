package qwen

import (
	"bytes"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

// FuzzScanUsage feeds the chat-file usage scanner anything, seeded from the captured chat
// file: it never panics, never reads past its input, counts at most one reply a line and
// never a negative number of tokens.
func FuzzScanUsage(f *testing.F) {
	for _, c := range hosttest.LoadAll(f, "../../testdata/qwen/*.jsonl", 1) {
		f.Add(c.Data, "Still thinking.")
	}
	f.Add([]byte(`{"type":"assistant","uuid":"a","usageMetadata":{"promptTokenCount":-5,"cachedContentTokenCount":9,"candidatesTokenCount":1e3}}`+"\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, last string) {
		res, err := ScanUsage(bytes.NewReader(data), 0, transcript.Options{Last: last})
		if err != nil {
			return
		}
		if res.Offset > int64(len(data)) || len(res.Usage) > res.Lines {
			t.Fatalf("offset %d of %d bytes, %d replies in %d lines", res.Offset, len(data), len(res.Usage), res.Lines)
		}
		for _, r := range res.Usage {
			if r.Input < 0 || r.CacheRead < 0 || r.CacheWrite < 0 || r.Output < 0 {
				t.Fatalf("negative tokens: %+v", r)
			}
		}
	})
}
