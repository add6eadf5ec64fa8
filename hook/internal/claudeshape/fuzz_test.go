package claudeshape

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

// FuzzScan checks that any input scans without error or panic, that the offset always ends
// on a line boundary, and that scanning in two parts at a line boundary gives the same
// result as one scan.
func FuzzScan(f *testing.F) {
	files, _ := filepath.Glob(captured + "transcript.*.jsonl")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// Each captured line on its own, and whole files.
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			f.Add(line, uint(0))
		}
		f.Add(data, uint(len(data)/2))
	}
	f.Add([]byte(assistant(ts1, text("<promise>DONE</promise>"), toolUse("t"))+"broken\n"+toolResult(100)), uint(40))
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		opt := transcript.Options{Token: "DONE", Last: "DONE"}
		whole, err := Scan(bytes.NewReader(data), 0, opt)
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if whole.Offset < 0 || whole.Offset > int64(len(data)) || (whole.Offset > 0 && data[whole.Offset-1] != '\n') {
			t.Fatalf("offset %d is not a line boundary of %d bytes", whole.Offset, len(data))
		}
		c := int(cut % uint(len(data)+1))
		c = bytes.LastIndexByte(data[:c], '\n') + 1
		first, err := Scan(bytes.NewReader(data[:c]), 0, opt)
		if err != nil || first.Offset != int64(c) {
			t.Fatalf("first part: offset %d, want %d (%v)", first.Offset, c, err)
		}
		second, err := Scan(bytes.NewReader(data[c:]), int64(c), opt)
		if err != nil {
			t.Fatalf("second part: %v", err)
		}
		first.Merge(second)
		if first.Offset != whole.Offset || first.Found != whole.Found || first.SawLast != whole.SawLast ||
			first.Lines != whole.Lines || first.Bad != whole.Bad || !slices.Equal(first.ToolIDs, whole.ToolIDs) {
			t.Fatalf("split at %d: %+v, whole: %+v", c, first, whole)
		}
	})
}
