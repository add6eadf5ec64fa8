package hosts_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosts"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/spend"
)

// usageCases are the captured transcripts with model usage in them, and what they used
// (counted independently of the scanners, from the JSON).
var usageCases = []struct {
	host, file string
	replies    int
	tokens     int64
	model      string
}{
	// Claude Code writes a reply's blocks on separate lines, each with the reply's usage.
	{"claude", "claude/transcript.json-block.jsonl", 3, 8464, "claude-opus-5-5"},
	{"claude", "claude/transcript.exit2-block.jsonl", 3, 8436, "claude-opus-5-5"},
	{"claude", "claude/transcript.promise-then-tool.jsonl", 2, 5476, "claude-opus-5-5"},
	{"codex", "codex/rollout.loop3.jsonl", 6, 660, "fake-model"},
	// Gemini CLI appends a record again when its tokens change.
	{"gemini", "gemini/chat.block-once.jsonl", 3, 45, "gemini-2.5-flash"},
	{"copilot", "copilot/transcript.events.jsonl", 3, 45, "fake-model"},
	// Qwen Code's chat file of a loop ended by --max-tokens (cmd/internal/e2e/qwen).
	{"qwen", "qwen/chat.budget.jsonl", 4, 9200, "fake-model"},
}

func tally(rs []spend.Record) (int64, string) {
	var n int64
	model := ""
	for _, r := range rs {
		n += r.Total()
		model = r.Model
	}
	return n, model
}

// TestTranscriptUsage: each host's transcript scan reads what the model used, each reply
// once, and the same when the scan is cut at any line (a stop reading part of a reply's
// lines, the next stop the rest).
func TestTranscriptUsage(t *testing.T) {
	for _, c := range usageCases {
		h, _ := hosts.Lookup(c.host)
		tr := h.Facts(func(string) string { return "" }, t.TempDir()).Transcript.Read
		path := filepath.Join("../../testdata", c.file)
		res, err := tr.Scan(path, 0, transcript.Options{Token: "DONE"})
		if err != nil {
			t.Fatalf("%s %s: %v", c.host, c.file, err)
		}
		if n, m := tally(res.Usage); len(res.Usage) != c.replies || n != c.tokens || m != c.model {
			t.Errorf("%s %s: got %d replies, %d tokens, model %q; want %d, %d, %q", c.host, c.file, len(res.Usage), n, m, c.replies, c.tokens, c.model)
		}
		data, _ := os.ReadFile(path)
		for cut := bytes.IndexByte(data, '\n') + 1; cut > 0 && cut < len(data); {
			first, err := tr.Scan(path, 0, transcript.Options{Token: "DONE", Limit: int64(cut)})
			if err != nil {
				t.Fatal(err)
			}
			rest, err := tr.Scan(path, first.Offset, transcript.Options{Token: "DONE", UsageSeen: first.UsageID, Model: first.Model})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := tally(first.Usage)
			b, _ := tally(rest.Usage)
			if a+b != c.tokens {
				t.Errorf("%s %s cut at byte %d: %d + %d tokens, want %d", c.host, c.file, cut, a, b, c.tokens)
			}
			next := bytes.IndexByte(data[cut:], '\n')
			if next < 0 {
				break
			}
			cut += next + 1
		}
	}
}

// TestTranscriptReplaced: a transcript shorter than where the last scan ended (replaced or
// truncated) is read again from its start, on every host.
func TestTranscriptReplaced(t *testing.T) {
	for _, c := range usageCases {
		h, _ := hosts.Lookup(c.host)
		tr := h.Facts(func(string) string { return "" }, t.TempDir()).Transcript.Read
		path := filepath.Join("../../testdata", c.file)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Scan(path, fi.Size()+100, transcript.Options{Token: "DONE"})
		if err != nil {
			t.Fatalf("%s %s: %v", c.host, c.file, err)
		}
		if n, _ := tally(res.Usage); len(res.Usage) != c.replies || n != c.tokens || res.Offset != fi.Size() {
			t.Errorf("%s %s scanned from past its end: %d replies, %d tokens, offset %d; want it read again: %d, %d, %d",
				c.host, c.file, len(res.Usage), n, res.Offset, c.replies, c.tokens, fi.Size())
		}
	}
}
