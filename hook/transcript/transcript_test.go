package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOffsetAfter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	lines := []string{
		assistant("2026-01-01T00:00:01Z", text("a")),
		`{"type":"last-prompt"}` + "\n", // no timestamp
		assistant("2026-01-01T00:00:02Z", text(strings.Repeat("b", 200000))),
		assistant("2026-01-01T00:00:03Z", text("c")),
		`{"type":"atis-latch"}` + "\n",
		assistant("2026-01-01T00:00:04Z", text("d")),
	}
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600)
	at := func(i int) int64 { return int64(len(strings.Join(lines[:i], ""))) }
	tests := []struct {
		t    time.Time
		want int64
	}{
		{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{time.Date(2026, 1, 1, 0, 0, 1, 500, time.UTC), at(1)},
		{time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC), at(3)},
		{time.Date(2026, 1, 1, 0, 0, 3, 1, time.UTC), at(4)},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), at(6)},
	}
	for _, tt := range tests {
		got, err := OffsetAfter(path, tt.t)
		if err != nil || got != tt.want {
			t.Errorf("OffsetAfter(%v) = %d, %v; want %d", tt.t, got, err, tt.want)
		}
	}
}

func assistant(ts string, blocks ...string) string {
	return `{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","content":[` +
		strings.Join(blocks, ",") + `]},"type":"assistant","uuid":"u","timestamp":"` + ts + `"}` + "\n"
}

func text(s string) string { return `{"type":"text","text":"` + s + `"}` }
