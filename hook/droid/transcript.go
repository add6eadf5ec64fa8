package droid

import (
	"bufio"
	"bytes"
	"io"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
)

// Transcript reads Factory Droid's transcript: Claude Code's scanner reads the agent's
// messages (lines of type "message"), and a second pass finds a /cancel-ralph typed while the
// agent worked. Factory Droid hands such a message to the agent within the turn (expanded,
// after the next tool result) and never to UserPromptSubmit (seen with 0.215.0): it is
// reported as queued, so that the loop pauses at the stop for the user to confirm it.
type Transcript struct{}

// steeredCancel is how the transcript holds the expansion of a /cancel-ralph handed to the
// agent: a user text block that starts with it (a tool result quoting the command file is a
// string, not such a block).
var steeredCancel = []byte(`{"type":"text","text":"` + notificationOpenJSON + inject.CommandTag("/cancel-ralph"))

// notificationOpenJSON is notificationOpen as JSON writes it.
const notificationOpenJSON = `<system-notification>\n`

// Scan reads the transcript at path from offset.
func (Transcript) Scan(path string, offset int64, opt transcript.Options) (transcript.Result, error) {
	res, err := transcript.ScanFile(path, offset, opt)
	if err != nil {
		return res, err
	}
	start := offset
	if start < 0 || start > res.Offset {
		start = 0 // the scan started over (a replaced file)
	}
	n, err := countSteered(path, start, res.Offset)
	if err != nil {
		return res, err
	}
	for range n {
		res.Queue = append(res.Queue, transcript.QueueOp{Op: "enqueue", Content: "/cancel-ralph"})
	}
	return res, nil
}

// OffsetAfter finds where the lines written after t start.
func (Transcript) OffsetAfter(path string, t time.Time) (int64, error) {
	return transcript.OffsetAfter(path, t)
}

// countSteered counts the lines of [start, end) of the file that hold a steered cancel,
// reading through a fixed buffer (lines can be megabytes).
func countSteered(path string, start, end int64) (int, error) {
	f, _, err := transcript.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), 64<<10)
	n, found := 0, false
	var carry []byte // the end of the last piece of a long line, for a match across pieces
	for {
		piece, err := r.ReadSlice('\n')
		buf := append(carry, piece...)
		if bytes.Contains(buf, steeredCancel) {
			found = true
		}
		switch {
		case err == bufio.ErrBufferFull:
			keep := min(len(buf), len(steeredCancel)-1)
			carry = append(carry[:0], buf[len(buf)-keep:]...)
			continue
		case err == io.EOF:
			return n, nil // a last line without its newline is still being written
		case err != nil:
			return n, err
		}
		if found {
			n++
		}
		found, carry = false, carry[:0]
	}
}
