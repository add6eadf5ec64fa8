package main

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ralph-loop/ralph-loop/inject"
)

// What status and log print comes from the state and from repositories (tasks, check
// commands, reasons, paths): a repository's settings or a task could hide or rewrite what a
// terminal shows (OSC sequences, cursor moves, screen clears, bidi overrides). Text output
// goes through a terminalWriter, JSON output through escapeJSON.

// terminalWriter passes text to w with every control character escaped as
// inject.Printable does, except the newlines and tabs of the layout itself.
type terminalWriter struct {
	w    io.Writer
	part []byte // an incomplete UTF-8 sequence at the end of the last write
}

func newTerminalWriter(w io.Writer) *terminalWriter { return &terminalWriter{w: w} }

func (t *terminalWriter) Write(p []byte) (int, error) {
	data := append(t.part, p...)
	t.part = nil
	// Hold back a rune cut by the end of this write.
	if i := lastRuneStart(data); i >= 0 && !utf8.FullRune(data[i:]) && len(data)-i < utf8.UTFMax {
		t.part = append([]byte(nil), data[i:]...)
		data = data[:i]
	}
	var b bytes.Buffer
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\n\t")
		if i < 0 {
			b.WriteString(inject.Printable(string(data)))
			break
		}
		b.WriteString(inject.Printable(string(data[:i])))
		b.WriteByte(data[i])
		data = data[i+1:]
	}
	if _, err := t.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lastRuneStart is the index of the first byte of the last rune in p, -1 if none.
func lastRuneStart(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	return -1
}

// escapeJSON escapes in encoded JSON the characters encoding/json leaves raw that a
// terminal acts on: DEL, the C1 controls, zero-width and bidi controls. They can only occur
// inside strings, where \uXXXX means the same.
func escapeJSON(data []byte) []byte {
	var b bytes.Buffer
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if hidden(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.Write(data[:n])
		}
		data = data[n:]
	}
	return b.Bytes()
}

func hidden(r rune) bool {
	return r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e ||
		r >= 0x2066 && r <= 0x2069 || r == 0xfeff || r == 0x2028 || r == 0x2029
}
