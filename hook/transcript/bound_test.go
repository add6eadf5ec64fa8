package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/sparsefile"
)

// OffsetAfter reads back at most its bound, saying so with ErrBound and the earliest line
// it could tell was written after the time; it skips holes, each ending a line.
func TestOffsetAfterBound(t *testing.T) {
	dir := t.TempDir()
	old := assistant("2026-01-01T00:00:01Z", text("old"))
	var news []string
	for range 20 {
		news = append(news, assistant("2026-01-01T00:00:05Z", text(strings.Repeat("n", 1000))))
	}
	path := filepath.Join(dir, "t.jsonl")
	os.WriteFile(path, []byte(old+strings.Join(news, "")), 0o600)
	at := time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC)
	if off, err := offsetAfter(path, at, 1<<20); err != nil || off != int64(len(old)) {
		t.Fatalf("within the bound: %d, %v; want %d", off, err, len(old))
	}
	off, err := offsetAfter(path, at, 5000)
	if !errors.Is(err, ErrBound) || off <= int64(len(old)) || (off-int64(len(old)))%int64(len(news[0])) != 0 {
		t.Fatalf("past the bound: %d, %v; want ErrBound at a later line's start", off, err)
	}

	// Holes are skipped, each ending a line: the time is found before them.
	holed := filepath.Join(dir, "holed.jsonl")
	sparsefile.Write(t, holed, old+news[0][:100], 1<<30, news[0][100:]+strings.Join(news[1:], ""))
	if err := os.Truncate(holed, int64(len(old))+1<<30+int64(len(strings.Join(news, "")))+1<<30); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(holed, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(news[0])
	f.Close()
	off, err = OffsetAfter(holed, at)
	if err != nil || off != int64(len(old)) {
		t.Fatalf("holes: %d, %v; want %d, the line after the old one", off, err, len(old))
	}
}
