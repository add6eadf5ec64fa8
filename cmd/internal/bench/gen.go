package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// gen writes a synthetic transcript in Claude Code's line format (the shapes of the
// captured 2.1.330 transcripts in testdata/claude): user prompts, assistant text, tool_use
// with inputs, tool results with file contents, attachments and bookkeeping lines, each
// stamped with an increasing time.
type gen struct {
	w       *bufio.Writer
	rnd     *rand.Rand
	now     time.Time
	session string
	n       int64 // bytes written
	seq     int
}

func newGen(w io.Writer, session string, start time.Time, seed uint64) *gen {
	return &gen{w: bufio.NewWriterSize(w, 1<<20), rnd: rand.New(rand.NewPCG(seed, 1)), now: start, session: session}
}

func (g *gen) flush() error { return g.w.Flush() }

func (g *gen) stamp() string {
	g.now = g.now.Add(time.Duration(1+g.rnd.IntN(20)) * time.Millisecond)
	return g.now.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) id(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s%024x", prefix, g.seq)
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *gen) line(s string) {
	g.w.WriteString(s)
	g.w.WriteByte('\n')
	g.n += int64(len(s)) + 1
}

// words is prose with the characters that need JSON escapes.
func (g *gen) words(n int) string {
	vocab := []string{"the", "parser", "returns", "an", "error", "when", "input", "is", "empty;", "fixed", "\"quoted\"", "tab\there",
		"line\nbreak", "ünïcödé", "→", "`code`", "$HOME", "tests", "pass", "now", "<b>", "path\\to\\file"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(vocab[g.rnd.IntN(len(vocab))])
		b.WriteByte(' ')
	}
	return b.String()
}

// code is file content of about n bytes.
func (g *gen) code(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "func f%d(x int) string {\n\treturn fmt.Sprintf(\"%%d: %%q\", x, \"v%d\")\n}\n", i, g.rnd.IntN(1000))
	}
	return b.String()
}

func (g *gen) common() string {
	return `"userType":"external","entrypoint":"sdk-cli","cwd":"/WORK/proj","sessionId":"` + g.session + `","version":"2.1.330","gitBranch":"HEAD"`
}

func (g *gen) assistant(blocks string) {
	g.line(`{"parentUuid":"` + g.id("p-") + `","isSidechain":false,"message":{"id":"` + g.id("msg_") +
		`","type":"message","role":"assistant","model":"claude-opus-5-5","content":[` + blocks +
		`],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":2709,"output_tokens":10}},"requestId":"` + g.id("req_") +
		`","type":"assistant","uuid":"` + g.id("u-") + `","timestamp":"` + g.stamp() + `",` + g.common() + `}`)
}

func (g *gen) text(s string) { g.assistant(`{"type":"text","text":` + q(s) + `}`) }

func (g *gen) user(s string) {
	g.line(`{"parentUuid":"` + g.id("p-") + `","isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":` + q(s) +
		`},"uuid":"` + g.id("u-") + `","timestamp":"` + g.stamp() + `",` + g.common() + `}`)
}

func (g *gen) toolUse(name, input string) string {
	id := g.id("toolu_")
	g.assistant(`{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`)
	return id
}

func (g *gen) toolResult(id, content string) {
	g.line(`{"parentUuid":"` + g.id("p-") + `","isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":[{"tool_use_id":"` + id +
		`","type":"tool_result","content":` + q(content) + `,"is_error":false}]},"uuid":"` + g.id("u-") + `","timestamp":"` + g.stamp() +
		`","toolUseResult":{"type":"text","file":{"filePath":"/WORK/proj/f.go","content":` + q(content) + `}},` + g.common() + `}`)
}

func (g *gen) attachment() {
	g.line(`{"parentUuid":"` + g.id("p-") + `","isSidechain":false,"attachment":{"type":"skill_listing","content":` + q(g.words(2000)) +
		`},"type":"attachment","uuid":"` + g.id("u-") + `","timestamp":"` + g.stamp() + `",` + g.common() + `}`)
	g.line(`{"type":"last-prompt","lastPrompt":"continue","sessionId":"` + g.session + `"}`)
}

// turn writes one agent turn of roughly size bytes, mixing text, tool calls with inputs and
// tool results (most of the bytes, as in real sessions), ending with the text last.
func (g *gen) turn(size int64, last string) {
	start := g.n
	g.user(g.words(200))
	g.attachment()
	for g.n-start < size {
		switch g.rnd.IntN(4) {
		case 0:
			g.text(g.words(200 + g.rnd.IntN(2000)))
		case 1:
			content := g.code(1000 + g.rnd.IntN(20000))
			id := g.toolUse("Write", `{"file_path":"/WORK/proj/f.go","content":`+q(content)+`}`)
			g.toolResult(id, "File created successfully at: /WORK/proj/f.go")
		default:
			id := g.toolUse("Bash", `{"command":"cat f.go","description":"read"}`)
			g.toolResult(id, g.code(2000+g.rnd.IntN(60000)))
		}
	}
	g.text(last)
}

// fill writes turns until the transcript has grown by size bytes, the last turn ending with
// the text last.
func (g *gen) fill(size int64, last string) {
	start := g.n
	for g.n-start < size {
		g.turn(min(size-(g.n-start), 256<<10), g.words(100))
	}
	g.text(last)
}

// hugeLine writes one tool result line of about n bytes (Claude Code stores the output
// twice on the line: in the message and in toolUseResult).
func (g *gen) hugeLine(n int) {
	id := g.toolUse("Bash", `{"command":"cat big.log"}`)
	g.toolResult(id, strings.Repeat("0123456789abcdef", n/32))
}
