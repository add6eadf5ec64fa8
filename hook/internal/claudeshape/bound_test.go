package claudeshape

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/internal/sparsefile"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

// A hole in the transcript (the agent ran "truncate -s +1T" on it) is never read: the scan
// skips it, reads the lines the host appended after it, and ends at the file's end. It used
// to read every zero byte of the hole (10–20 s for 4 GB; a terabyte, hours).
func TestScanSkipsHoles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	before := assistant(ts1, text("working"))
	after := assistant(ts1, text("done <promise>DONE</promise>"))
	const hole = 1 << 40
	sparsefile.Write(t, path, before, hole, after)
	res, err := ScanFile(path, 0, transcript.Options{Token: "DONE", Last: "done <promise>DONE</promise>"})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(before)) + hole + int64(len(after))
	if !res.Found || !res.SawLast || res.Offset != size {
		t.Errorf("found %v, saw the last message %v, offset %d; want the line after the hole read, offset %d", res.Found, res.SawLast, res.Offset, size)
	}
}

// A scan reads at most transcript.Options.MaxRead bytes and says where it stopped (Cut); scans from
// there read the rest, and together they find what one scan of the whole file finds.
func TestScanBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var lines []string
	for i := range 40 {
		lines = append(lines, assistant(ts1, text(fmt.Sprintf("line %d %s", i, strings.Repeat("x", 1000)))))
	}
	lines = append(lines, assistant(ts1, text("<promise>DONE</promise>"), toolUse("toolu_last")))
	whole := strings.Join(lines, "")
	if err := os.WriteFile(path, []byte(whole), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := transcript.Options{Token: "DONE", MaxRead: 10 << 10}
	var all transcript.Result
	scans := 0
	for off := int64(0); ; scans++ {
		res, err := ScanFile(path, off, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Read > opt.MaxRead {
			t.Errorf("scan %d read %d bytes, more than the bound %d", scans, res.Read, opt.MaxRead)
		}
		if res.Cut == (res.Offset == int64(len(whole))) || res.InLine {
			t.Fatalf("scan %d: cut %v, in a line %v, at %d of %d", scans, res.Cut, res.InLine, res.Offset, len(whole))
		}
		if res.Offset <= off && res.Cut {
			t.Fatalf("scan %d made no progress from %d", scans, off)
		}
		all.Merge(res)
		if !res.Cut {
			break
		}
		off = res.Offset
	}
	if scans < 3 || !all.Found || all.Lines != len(lines) || strings.Join(all.ToolIDs, ",") != "toolu_last" || all.Bad != 0 {
		t.Errorf("%d scans: found %v, %d lines, %d malformed, tools %v; want 4 or more scans that read all %d lines", scans+1, all.Found, all.Lines, all.Bad, all.ToolIDs, len(lines))
	}
}

// A line longer than the bound is skipped, from where the first scan stopped to its end,
// counted malformed; the lines after it are read.
func TestScanLineOverBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := assistant(ts1, text("<promise>DONE</promise>"+strings.Repeat("y", 50000)))
	next := assistant(ts1, text("after"), toolUse("toolu_after"))
	os.WriteFile(path, []byte(long+next), 0o600)
	opt := transcript.Options{Token: "DONE", MaxRead: 10 << 10}
	res, err := ScanFile(path, 0, opt)
	if err != nil || !res.Cut || !res.InLine || res.Offset < opt.MaxRead/2 || res.Offset > opt.MaxRead || res.Found || res.Lines != 0 {
		t.Fatalf("first scan: %+v, %v; want cut inside the long line near %d, nothing counted", res, err, opt.MaxRead)
	}
	for i := 0; res.InLine && i < 10; i++ {
		opt.InLine = true
		res, err = ScanFile(path, res.Offset, opt)
		if err != nil {
			t.Fatal(err)
		}
	}
	if res.InLine || res.Cut || res.Bad != 1 || res.Offset != int64(len(long+next)) || strings.Join(res.ToolIDs, ",") != "toolu_after" {
		t.Fatalf("skipping the long line: %+v; want it skipped, counted malformed, and the line after it read", res)
	}
}

// A hole ends the line it cuts short (dropped); the file's end in a hole leaves nothing to
// read; the lines the host writes after a hole are read as ever.
func TestScanHoles(t *testing.T) {
	dir := t.TempDir()
	one := assistant(ts1, text("one"), toolUse("toolu_1"))
	two := assistant(ts1, text("<promise>DONE</promise>"), toolUse("toolu_2"))

	// A hole at the end, nothing after it: the next scan starts past it.
	end := filepath.Join(dir, "end.jsonl")
	sparsefile.Write(t, end, one, 1<<30, "")
	res, err := ScanFile(end, 0, transcript.Options{Token: "DONE"})
	if err != nil || res.Offset != int64(len(one))+1<<30 || res.Holes == 0 || res.Cut || strings.Join(res.ToolIDs, ",") != "toolu_1" {
		t.Fatalf("hole at the end: %+v, %v", res, err)
	}

	// A hole inside a line: the line is dropped, its rest after the hole is malformed.
	mid := filepath.Join(dir, "mid.jsonl")
	cut := len(two) / 2
	sparsefile.Write(t, mid, one+two[:cut], 1<<30, two[cut:]+two)
	res, err = ScanFile(mid, 0, transcript.Options{Token: "DONE"})
	if err != nil || res.Cut || !res.Found || res.Bad != 1 || strings.Join(res.ToolIDs, ",") != "toolu_1,toolu_2" {
		t.Fatalf("hole inside a line: %+v, %v; want the line cut short dropped, its rest malformed, the next line read", res, err)
	}

	// Many holes count against the bound: a scan of them stops, and the next goes on.
	many := filepath.Join(dir, "many.jsonl")
	if err := os.WriteFile(many, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(many, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := f.WriteAt([]byte(one), int64(i)<<24); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteAt([]byte(two), 20<<24)
	f.Close()
	opt := transcript.Options{Token: "DONE", MaxRead: 4 * transcript.HoleCost}
	var all transcript.Result
	off := int64(0)
	for i := 0; i < 40; i++ {
		res, err := ScanFile(many, off, opt)
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(res)
		if !res.Cut {
			break
		}
		off = res.Offset
	}
	if !all.Found || len(all.ToolIDs) != 21 || all.Cut {
		t.Fatalf("many holes: found %v, %d tools, cut %v; want all 21 lines read over several scans", all.Found, len(all.ToolIDs), all.Cut)
	}
}

// A scan that skips late text (SkipToUser) goes on past a hole as it was: text after the
// hole counts once a user line before it ended the skipping, and not while it had not.
func TestScanHoleKeepsSkipping(t *testing.T) {
	dir := t.TempDir()
	marker := assistant(ts1, text("<promise>DONE</promise>"))
	ended := filepath.Join(dir, "ended.jsonl")
	sparsefile.Write(t, ended, assistant(ts1, text("late"))+user("Stop hook feedback"), 1<<20, marker)
	res, err := ScanFile(ended, 0, transcript.Options{Token: "DONE", SkipToUser: true})
	if err != nil || !res.Found || res.LateFound {
		t.Errorf("after the user line: Found %v LateFound %v (%v); want the marker counted", res.Found, res.LateFound, err)
	}
	still := filepath.Join(dir, "still.jsonl")
	sparsefile.Write(t, still, assistant(ts1, text("late")), 1<<20, marker)
	res, err = ScanFile(still, 0, transcript.Options{Token: "DONE", SkipToUser: true})
	if err != nil || res.Found || !res.LateFound || !res.Skipping {
		t.Errorf("no user line: Found %v LateFound %v Skipping %v (%v); want the marker late", res.Found, res.LateFound, res.Skipping, err)
	}
}
