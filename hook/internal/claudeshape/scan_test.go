package claudeshape

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

const captured = "../../../testdata/claude/"

const ts1 = "2026-01-01T00:00:01.000Z"

func scanString(t *testing.T, s string, opt transcript.Options) transcript.Result {
	t.Helper()
	res, err := Scan(strings.NewReader(s), 0, opt)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return res
}

func TestCapturedJSONBlock(t *testing.T) {
	// Real transcript: Bash tool call, "I created x.txt." (blocked), then the promise. The
	// user's prompt and the stop-hook feedback both contain <promise>DONE</promise>.
	data, err := os.ReadFile(captured + "transcript.json-block.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := scanString(t, string(data), transcript.Options{Token: "DONE"})
	if !res.Found {
		t.Error("promise in the final assistant message not found")
	}
	if got := strings.Join(res.ToolIDs, ","); got != "toolu_b0baef8041794ac78548c824" {
		t.Errorf("ToolIDs = %q", got)
	}
	if res.Offset != int64(len(data)) || res.Bad != 0 || res.Lines != bytes.Count(data, []byte("\n")) {
		t.Errorf("Offset %d Lines %d Bad %d; file has %d bytes, %d lines", res.Offset, res.Lines, res.Bad, len(data), bytes.Count(data, []byte("\n")))
	}

	// Up to (not including) the final assistant line, only user, system and API lines hold
	// the marker: none of them counts.
	final := bytes.Index(data, []byte(`"text":"All work is complete.`))
	cut := int64(bytes.LastIndexByte(data[:final], '\n') + 1)
	res = scanString(t, string(data[:cut]), transcript.Options{Token: "DONE"})
	if res.Found {
		t.Error("marker in the user's prompt or the stop-hook feedback was counted")
	}
	if !bytes.Contains(data[:cut], []byte("<promise>DONE</promise>")) {
		t.Fatal("test premise: the marker should appear before the final message")
	}
}

func TestCapturedExit2(t *testing.T) {
	data, err := os.ReadFile(captured + "transcript.exit2-block.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := scanString(t, string(data), transcript.Options{Token: "DONE"})
	if !res.Found || len(res.ToolIDs) != 1 || res.Bad != 0 {
		t.Errorf("Found %v ToolIDs %v Bad %d", res.Found, res.ToolIDs, res.Bad)
	}
}

func TestCapturedPromiseThenTool(t *testing.T) {
	// Real transcript: "Early <promise>DONE</promise> text" and a tool call in one message,
	// then a final message of two text blocks; last_assistant_message was "Second block".
	data, err := os.ReadFile(captured + "transcript.promise-then-tool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := scanString(t, string(data), transcript.Options{Token: "DONE", Last: "Second block"})
	if !res.Found {
		t.Error("promise followed by a tool call in the same message not found")
	}
	if !res.SawLast {
		t.Error("SawLast false although the final text block is in the file")
	}
	res = scanString(t, string(data), transcript.Options{Token: "DONE", Last: "Something else"})
	if res.SawLast {
		t.Error("SawLast true for a message that is not in the file")
	}
}

func TestTimeWindow(t *testing.T) {
	data, err := os.ReadFile(captured + "transcript.json-block.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The promise line is stamped 22:16:17.000; the tool call 22:16:16.593.
	after := time.Date(2026, 11, 21, 22, 16, 17, 0, time.UTC)
	res := scanString(t, string(data), transcript.Options{Token: "DONE", TextAfter: after, ToolsAfter: after})
	if res.Found || len(res.ToolIDs) != 0 {
		t.Errorf("after %v: Found %v ToolIDs %v; want nothing", after, res.Found, res.ToolIDs)
	}
	before := time.Date(2026, 11, 21, 22, 16, 16, 600_000_000, time.UTC)
	res = scanString(t, string(data), transcript.Options{Token: "DONE", TextAfter: before, ToolsAfter: before})
	if !res.Found || len(res.ToolIDs) != 0 {
		t.Errorf("after %v: Found %v ToolIDs %v; want the promise and no tool", before, res.Found, res.ToolIDs)
	}
}

// Synthetic lines in Claude Code's shape.
func assistant(ts string, blocks ...string) string {
	return `{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","content":[` +
		strings.Join(blocks, ",") + `]},"type":"assistant","uuid":"u","timestamp":"` + ts + `"}` + "\n"
}

func text(s string) string { return `{"type":"text","text":"` + s + `"}` }
func toolUse(id string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"echo <promise>DONE</promise>"}}`
}
func thinking(s string) string { return `{"type":"thinking","thinking":"` + s + `","signature":"x"}` }
func user(s string) string {
	return `{"type":"user","message":{"role":"user","content":"` + s + `"},"timestamp":"2026-01-01T00:00:09Z"}` + "\n"
}
func toolResult(n int) string {
	return `{"parentUuid":"p","isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` +
		strings.Repeat("<promise>DONE</promise>", n/23+1) + `"}]},"timestamp":"2026-01-01T00:00:03Z","toolUseResult":{}}` + "\n"
}

func TestWhatCounts(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		found bool
		tools int
	}{
		{"plain text", assistant(ts1, text("done <promise>DONE</promise>")), true, 0},
		{"escaped marker", assistant(ts1, text(`done \u003cpromise\u003eDONE\u003c/promise\u003e`)), true, 0},
		{"promise then tool", assistant(ts1, text("<promise>DONE</promise>"), toolUse("t1")), true, 1},
		{"thinking", assistant(ts1, thinking("<promise>DONE</promise>")), false, 0},
		{"tool input", assistant(ts1, toolUse("t1")), false, 1},
		{"user prompt", user("<promise>DONE</promise>"), false, 0},
		{"tool result", toolResult(1000), false, 0},
		{"split across blocks", assistant(ts1, text("<promise>DO"), text("NE</promise>")), false, 0},
		{"bare token", assistant(ts1, text("DONE")), false, 0},
		{"content string", `{"type":"assistant","message":{"role":"assistant","content":"x <promise>DONE</promise>"}}` + "\n", true, 0},
		{"text before type", `{"message":{"role":"assistant","content":[{"text":"<promise>DONE</promise>","type":"text"}]},"type":"assistant"}` + "\n", true, 0},
		{"thinking-typed block with text key", `{"message":{"role":"assistant","content":[{"text":"<promise>DONE</promise>","type":"thinking"}]},"type":"assistant"}` + "\n", false, 0},
		{"sidechain", `{"isSidechain":true,"message":{"role":"assistant","content":[{"type":"text","text":"<promise>DONE</promise>"}]},"type":"assistant"}` + "\n", false, 0},
		{"api blob with assistant role", `{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"text","text":"<promise>DONE</promise>"}]}}` + "\n", false, 0},
		{"system line", `{"type":"system","content":"<promise>DONE</promise>"}` + "\n", false, 0},
		{"attachment first", `{"attachment":{"text":"<promise>DONE</promise>"},"type":"attachment"}` + "\n", false, 0},
		{"no type", `{"message":{"role":"assistant","content":[{"type":"text","text":"<promise>DONE</promise>"}]}}` + "\n", false, 0},
		{"server tool", assistant(ts1, `{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}`), false, 1},
	}
	for _, tt := range tests {
		res := scanString(t, tt.lines, transcript.Options{Token: "DONE"})
		if res.Found != tt.found || len(res.ToolIDs) != tt.tools || res.Bad != 0 {
			t.Errorf("%s: Found %v ToolIDs %v Bad %d; want %v, %d tools", tt.name, res.Found, res.ToolIDs, res.Bad, tt.found, tt.tools)
		}
	}
}

func TestMalformedLinesDoNotHideOthers(t *testing.T) {
	lines := "not json\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"cut` + "\n" +
		"\x00\xff\xfe garbage\n" +
		`{"type":"assistant"} trailing` + "\n" +
		"[1,2,3]\n" +
		strings.Repeat("[", 5000) + "\n" +
		assistant(ts1, text("<promise>DONE</promise>"), toolUse("t9"))
	for name, r := range map[string]func(string) *strings.Reader{"whole": strings.NewReader} {
		res, err := Scan(iotest.HalfReader(r(lines)), 0, transcript.Options{Token: "DONE"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || len(res.ToolIDs) != 1 || res.Bad != 6 || res.Lines != 7 || res.Offset != int64(len(lines)) {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

func TestHugeLines(t *testing.T) {
	big := toolResult(8 << 20)
	write := assistant(ts1, `{"type":"tool_use","id":"w1","name":"Write","input":{"content":"`+strings.Repeat(`x\"y`, 2<<20)+`"}}`)
	longText := assistant(ts1, text(strings.Repeat("words ", 1<<20)+"<promise>DONE</promise>"))
	res := scanString(t, big+write+longText, transcript.Options{Token: "DONE"})
	if !res.Found || strings.Join(res.ToolIDs, ",") != "w1" || res.Bad != 0 {
		t.Errorf("Found %v ToolIDs %v Bad %d", res.Found, res.ToolIDs, res.Bad)
	}
}

func TestPartialLastLine(t *testing.T) {
	done := assistant(ts1, text("<promise>DONE</promise>"))
	full := assistant(ts1, text("first")) + done
	cut := len(full) - 10
	res := scanString(t, full[:cut], transcript.Options{Token: "DONE"})
	if res.Found || res.Offset != int64(len(full)-len(done)) {
		t.Fatalf("partial: Found %v Offset %d, want false %d", res.Found, res.Offset, len(full)-len(done))
	}
	// The next scan starts at the partial line and sees it whole.
	rest, err := Scan(strings.NewReader(full[res.Offset:]), res.Offset, transcript.Options{Token: "DONE"})
	if err != nil || !rest.Found || rest.Offset != int64(len(full)) {
		t.Fatalf("rest: %+v %v", rest, err)
	}
	// A complete object without its newline is not consumed either.
	res = scanString(t, strings.TrimSuffix(full, "\n"), transcript.Options{Token: "DONE"})
	if res.Found || res.Offset != int64(len(full)-len(done)) {
		t.Fatalf("no final newline: Found %v Offset %d", res.Found, res.Offset)
	}
}

func TestScanFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	one := assistant(ts1, text("working"), toolUse("a"))
	two := assistant("2026-01-01T00:00:05Z", text("<promise>DONE</promise>"))
	if err := os.WriteFile(path, []byte(one), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ScanFile(path, 0, transcript.Options{Token: "DONE"})
	if err != nil || res.Found || res.Offset != int64(len(one)) || len(res.ToolIDs) != 1 {
		t.Fatalf("first scan: %+v %v", res, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(two)
	f.Close()
	next, err := ScanFile(path, res.Offset, transcript.Options{Token: "DONE"})
	if err != nil || !next.Found || len(next.ToolIDs) != 0 || next.Lines != 1 {
		t.Fatalf("second scan: %+v %v", next, err)
	}
	// An offset past the end (the file was replaced) starts over.
	os.WriteFile(path, []byte(two), 0o600)
	again, err := ScanFile(path, 10_000, transcript.Options{Token: "DONE"})
	if err != nil || !again.Found || again.Offset != int64(len(two)) {
		t.Fatalf("after truncation: %+v %v", again, err)
	}
	if _, err := ScanFile(filepath.Join(dir, "missing"), 0, transcript.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ScanFile(dir, 0, transcript.Options{}); !errors.Is(err, transcript.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
}

// A transcript truncated while it is read (the host rewrote it): the scan stops at the last
// complete line it got, without an error, and the next scan starts over.
func TestTruncatedWhileRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	one := assistant(ts1, text("first"))
	os.WriteFile(path, []byte(one+assistant(ts1, text("<promise>DONE</promise>"))+assistant(ts1, text("third"))), 0o600)
	f, size, err := transcript.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, int64(len(one)+20)); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(io.LimitReader(f, size), 0, transcript.Options{Token: "DONE"})
	if err != nil || res.Found || res.Offset != int64(len(one)) || res.Lines != 1 {
		t.Fatalf("%+v, %v", res, err)
	}
	again, err := ScanFile(path, size, transcript.Options{Token: "DONE"})
	if err != nil || again.Offset != int64(len(one)) {
		t.Fatalf("next scan after truncation: %+v, %v", again, err)
	}
}

// With SkipToUser, the agent text before the first user line (the end of an iteration
// already decided, written late) does not count, and a marker in it is reported apart
// (LateFound). A scan that ends before a user line says it is still skipping, and so does
// a scan that goes on from there; once a user line is read, text counts again.
func TestLateText(t *testing.T) {
	late := assistant(ts1, text("Finished: <promise>DONE</promise>")) + assistant(ts1, text("Summary."))
	next := user("Stop hook feedback") + assistant(ts1, text("Nothing more."))
	res := scanString(t, late+next, transcript.Options{Token: "DONE", SkipToUser: true, Last: "Summary."})
	if res.Found || !res.LateFound || res.SawLast || res.Skipping {
		t.Errorf("late text then the next: Found %v LateFound %v SawLast %v Skipping %v; want false true false false", res.Found, res.LateFound, res.SawLast, res.Skipping)
	}
	res = scanString(t, late+next, transcript.Options{Token: "DONE"})
	if !res.Found || res.LateFound {
		t.Errorf("without SkipToUser: Found %v LateFound %v; want true false", res.Found, res.LateFound)
	}

	// With LateUntil, text stamped by then is late whatever user lines come first (the
	// iteration's tool results can be late too), and text stamped after it counts.
	until, _ := time.Parse(time.RFC3339, "2026-01-01T00:00:02Z")
	res = scanString(t, toolResult(10)+late+user("Stop hook feedback")+assistant("2026-01-01T00:00:05Z", text("Nothing more.")),
		transcript.Options{Token: "DONE", SkipToUser: true, LateUntil: until, Last: "Nothing more."})
	if res.Found || !res.LateFound || !res.SawLast {
		t.Errorf("stamped: Found %v LateFound %v SawLast %v; want false true true", res.Found, res.LateFound, res.SawLast)
	}
	res = scanString(t, toolResult(10)+assistant("2026-01-01T00:00:05Z", text("<promise>DONE</promise>")),
		transcript.Options{Token: "DONE", SkipToUser: true, LateUntil: until})
	if !res.Found || res.LateFound {
		t.Errorf("stamped after: Found %v LateFound %v; want true false", res.Found, res.LateFound)
	}

	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(late), 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := ScanFile(path, 0, transcript.Options{Token: "DONE", SkipToUser: true})
	if err != nil || first.Found || !first.LateFound || !first.Skipping {
		t.Fatalf("the late text alone: %+v %v; want LateFound, still skipping", first, err)
	}
	more, err := ScanFile(path, first.Offset, transcript.Options{Token: "DONE", SkipToUser: first.Skipping})
	if err != nil || !more.Skipping || more.Lines != 0 {
		t.Fatalf("nothing more yet: %+v %v; want still skipping", more, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(assistant(ts1, text("also late <promise>DONE</promise>")) + next + assistant(ts1, text("<promise>DONE</promise>"))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	more, err = ScanFile(path, first.Offset, transcript.Options{Token: "DONE", SkipToUser: first.Skipping})
	if err != nil || !more.Found || !more.LateFound || more.Skipping {
		t.Errorf("the rest: %+v %v; want the late marker and the next iteration's", more, err)
	}
}

// TestFailedStops: what Claude Code 2.1.332 records of a stop's hooks (a system line of
// subtype stop_hook_summary; this test's lines are shaped on one captured when a process of
// the agent's SIGKILLed ralph-loop's Stop hook): a failed hook of ralph-loop's (its command
// ends with the install mark) is a stop that went through undecided; one that did not fail,
// another program's that failed, and other system lines are not.
func TestFailedStops(t *testing.T) {
	ours := `b= e=Stop; command -v ralph-loop >/dev/null && exec ralph-loop hook --host claude; exit 0 # ralph-loop hook`
	summary := func(cmds []string, failed string) string {
		var infos []string
		for _, c := range cmds {
			infos = append(infos, `{"command":`+quote(c)+`,"durationMs":40}`)
		}
		return `{"parentUuid":"p","isSidechain":false,"type":"system","subtype":"stop_hook_summary","hookCount":` + itoa(len(cmds)) +
			`,"hookInfos":[` + strings.Join(infos, ",") + `],"hookErrors":["Failed with non-blocking status code: No stderr output"],` +
			`"failedHookErrorIndexes":` + failed + `,"hookAdditionalContext":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,` +
			`"level":"suggestion","timestamp":"` + ts1 + `","uuid":"u"}` + "\n"
	}
	for _, tc := range []struct {
		name string
		in   string
		want int
	}{
		{"ours failed", summary([]string{ours}, "[0]"), 1},
		{"ours answered", summary([]string{ours}, "[]"), 0},
		{"another hook failed", summary([]string{"python3 lint.py", ours}, "[0]"), 0},
		{"ours failed beside another", summary([]string{"python3 lint.py", ours}, "[1]"), 1},
		{"two stops", summary([]string{ours}, "[0]") + summary([]string{ours}, "[0]"), 2},
		{"another system line", `{"type":"system","subtype":"local_command","content":"x","failedHookErrorIndexes":[0],"hookInfos":[{"command":` + quote(ours) + `}]}` + "\n", 0},
	} {
		if got := scanString(t, tc.in, transcript.Options{Token: "DONE"}).FailedStops; got != tc.want {
			t.Errorf("%s: %d failed stops, want %d", tc.name, got, tc.want)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(n int) string { return strconv.Itoa(n) }

// ScanFile scans the transcript at path from offset (see transcript.ScanWith).
func ScanFile(path string, offset int64, opt transcript.Options) (transcript.Result, error) {
	return transcript.ScanWith(path, offset, opt, Scan)
}
