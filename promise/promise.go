// Package promise finds an exact <promise>TOKEN</promise> marker in agent output.
//
// Matching is byte for byte: no trimming, no case folding, no whitespace normalisation on
// either side, and the tags are part of the marker, so a bare TOKEN never counts.
package promise

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTokenBytes is the longest completion promise token accepted.
const MaxTokenBytes = 256

// Errors returned by Validate.
var (
	ErrEmpty   = errors.New("completion promise is empty")
	ErrTooLong = fmt.Errorf("completion promise is longer than %d bytes", MaxTokenBytes)
	ErrBadChar = errors.New("completion promise may not contain '<', '>', newlines or control characters")
	ErrBadUTF8 = errors.New("completion promise is not valid UTF-8")
)

// Validate reports whether token can be used as a completion promise.
func Validate(token string) error {
	switch {
	case token == "":
		return ErrEmpty
	case len(token) > MaxTokenBytes:
		return ErrTooLong
	case !utf8.ValidString(token):
		return ErrBadUTF8
	}
	for _, r := range token {
		if r == '<' || r == '>' || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ErrBadChar
		}
	}
	return nil
}

// Marker returns the exact text the agent must output: <promise>TOKEN</promise>.
func Marker(token string) string {
	return "<promise>" + token + "</promise>"
}

// Contains reports whether text holds the exact marker for token.
func Contains(text, token string) bool {
	return strings.Contains(text, Marker(token))
}

// Matcher looks for the marker in text that arrives in pieces, holding no more than the
// marker's length of it. The zero value matches nothing; use NewMatcher.
type Matcher struct {
	marker  []byte
	tail    []byte // the last len(marker)-1 bytes written, for markers split across writes
	scratch []byte
	found   bool
}

// NewMatcher returns a Matcher for the marker of token.
func NewMatcher(token string) *Matcher {
	m := []byte(Marker(token))
	return &Matcher{
		marker:  m,
		tail:    make([]byte, 0, len(m)),
		scratch: make([]byte, 0, 2*len(m)),
	}
}

// Write feeds the next piece of text. It never fails.
func (m *Matcher) Write(p []byte) (int, error) {
	if m.found || len(m.marker) == 0 || len(p) == 0 {
		return len(p), nil
	}
	k := len(m.marker) - 1
	if len(m.tail) > 0 {
		// A marker that starts in the tail and ends in p.
		n := min(len(p), k)
		m.scratch = append(append(m.scratch[:0], m.tail...), p[:n]...)
		if bytes.Contains(m.scratch, m.marker) {
			m.found = true
			return len(p), nil
		}
	}
	if bytes.Contains(p, m.marker) {
		m.found = true
		return len(p), nil
	}
	if len(p) >= k {
		m.tail = append(m.tail[:0], p[len(p)-k:]...)
	} else {
		m.scratch = append(append(m.scratch[:0], m.tail...), p...)
		if len(m.scratch) > k {
			m.scratch = m.scratch[len(m.scratch)-k:]
		}
		m.tail = append(m.tail[:0], m.scratch...)
	}
	return len(p), nil
}

// Found reports whether the marker has appeared since the last Reset.
func (m *Matcher) Found() bool { return m.found }

// Reset forgets everything written, so that a marker must lie within one piece of text
// (one text block) to count.
func (m *Matcher) Reset() {
	m.tail = m.tail[:0]
	m.found = false
}
