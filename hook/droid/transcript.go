package droid

import (
	"bytes"
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/claudeshape"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// Transcript reads Factory Droid's transcript: Claude Code's scanner reads the agent's
// messages (lines of type "message"), and a second pass finds a /cancel-ralph typed while the
// agent worked. Factory Droid hands such a message to the agent within the turn (expanded,
// after the next tool result) and never to UserPromptSubmit (seen with 0.215.0): it is
// reported as queued, so that the loop pauses at the stop for the user to confirm it.
var Transcript = transcript.Reader(scan)

// steeredCancel is how the transcript holds the expansion of a /cancel-ralph handed to the
// agent: a user text block that starts with it (a tool result quoting the command file is a
// string, not such a block).
var steeredCancel = lazy.Value[[]byte]{Make: func() []byte {
	return []byte(`{"type":"text","text":"` + notificationOpenJSON + inject.CommandTag("/cancel-ralph"))
}}

// notificationOpenJSON is notificationOpen as JSON writes it.
const notificationOpenJSON = `<system-notification>\n`

// scan reads the transcript's lines from r, whose first byte is at offset base, with
// claudeshape.Scan. The steered cancels are counted in the same pass, from the bytes the scan
// reads: a line counts once its newline has been read (the scan consumes every complete line
// it reads).
func scan(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	var c steered
	res, err := claudeshape.Scan(io.TeeReader(r, &c), base, opt)
	for range c.n {
		res.Queue = append(res.Queue, transcript.QueueOp{Op: "enqueue", Content: "/cancel-ralph"})
	}
	return res, err
}

// steered counts the lines written to it that hold a steered cancel, reading them in
// pieces (lines can be megabytes): a line counts once its newline is written.
type steered struct {
	n     int
	found bool   // the line being written holds one
	carry []byte // the end of the line so far, for a match across pieces
	buf   []byte
}

func (s *steered) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		piece := p
		if i >= 0 {
			piece = p[:i]
		}
		if !s.found {
			s.buf = append(append(s.buf[:0], s.carry...), piece...)
			s.found = bytes.Contains(s.buf, steeredCancel.Get())
			keep := min(len(s.buf), len(steeredCancel.Get())-1)
			s.carry = append(s.carry[:0], s.buf[len(s.buf)-keep:]...)
		}
		if i < 0 {
			break
		}
		if s.found {
			s.n++
		}
		s.found, s.carry = false, s.carry[:0]
		p = p[i+1:]
	}
	return total, nil
}
