package claudeshape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
)

// benchLines builds n bytes of transcript lines of one kind.
func benchLines(n int, kind string) []byte {
	prose := strings.Repeat("The parser returns an error when the input is empty; fixed in parse.go, tests pass now. ", 20)
	code := strings.Repeat("func f(x int) string {\n\treturn fmt.Sprintf(\"%d: %q\", x, \"v\")\n}\n", 40)
	var b bytes.Buffer
	for b.Len() < n {
		switch kind {
		case "text":
			t, _ := json.Marshal(prose)
			b.WriteString(assistant(ts1, `{"type":"text","text":`+string(t)+`}`))
		case "code":
			t, _ := json.Marshal(code)
			b.WriteString(assistant(ts1, `{"type":"text","text":`+string(t)+`}`))
		case "tool_use":
			t, _ := json.Marshal(code)
			b.WriteString(assistant(ts1, `{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"f.go","content":`+string(t)+`}}`))
		case "tool_result":
			b.WriteString(toolResult(len(code)))
		}
	}
	return b.Bytes()
}

func benchScan(b *testing.B, kind string) {
	data := benchLines(8<<20, kind)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Scan(bytes.NewReader(data), 0, transcript.Options{Token: "DONE", Last: "x"})
		if err != nil || res.Bad != 0 {
			b.Fatal(err, res.Bad)
		}
	}
}

// Lines that must be decoded: the agent's text, plain prose and code full of escapes.
func BenchmarkScanTextProse(b *testing.B) { benchScan(b, "text") }
func BenchmarkScanTextCode(b *testing.B)  { benchScan(b, "code") }

// Lines that are skipped without decoding: tool inputs (skipped inside the line) and tool
// results (skipped to the newline).
func BenchmarkScanToolUse(b *testing.B)    { benchScan(b, "tool_use") }
func BenchmarkScanToolResult(b *testing.B) { benchScan(b, "tool_result") }
