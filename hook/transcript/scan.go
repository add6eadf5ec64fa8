package transcript

import (
	"bytes"
	"errors"
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
)

// NextLine reads the next line of d with line, which reads one line (its end included),
// and judges line's error as every scanner does. ok: the line was read. A line that line
// found is not one the scanner wants (an error wrapping skip), or that is not JSON it can
// read (counted in res.Bad), is passed over unread: ok is false. Either way the line is
// counted in res.Lines and res.Offset (d's first byte is at offset base) moves past it.
// more is false at the end of what is written, a line still being written included (it is
// read by the next scan), with the error that ends the scan, if any.
func NextLine(d *jsonstream.Reader, base int64, res *Result, skip error, line func() error) (more, ok bool, err error) {
	if end, err := d.AtEnd(); end || err != nil {
		return false, false, err
	}
	switch err := line(); {
	case err == nil:
		ok = true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return false, false, nil
	case errors.Is(err, skip) || IsSyntax(err):
		if d.SkipLine() != nil {
			return false, false, nil
		}
		if !errors.Is(err, skip) {
			res.Bad++
		}
	default:
		return false, false, err
	}
	res.Lines++
	res.Offset = base + d.Offset()
	return true, ok, nil
}

// Tail tells whether a text value, streamed by in pieces, is the end of the host's last
// message (Options.Last): a transcript whose text block ends it has caught up with the
// stop.
type Tail struct {
	last, buf []byte
	ok        bool
}

// NewTail compares texts with last.
func NewTail(last string) *Tail { return &Tail{last: []byte(last)} }

// Reset starts a text value.
func (t *Tail) Reset() { t.buf, t.ok = t.buf[:0], len(t.last) > 0 }

// Write adds a piece of the text value.
func (t *Tail) Write(p []byte) {
	if !t.ok {
		return
	}
	if len(t.buf)+len(p) > len(t.last) {
		t.ok = false
		return
	}
	t.buf = append(t.buf, p...)
}

// Ends reports whether the text value written since Reset, not empty, ends the last
// message.
func (t *Tail) Ends() bool { return t.ok && len(t.buf) > 0 && bytes.HasSuffix(t.last, t.buf) }
