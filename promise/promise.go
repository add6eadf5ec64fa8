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
	ErrTooLong = errors.New("completion promise is longer than 256 bytes") // MaxTokenBytes
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

// Mode says where in the agent's text the marker counts.
type Mode string

// Modes. The default counts the marker anywhere in a text block (a marker quoted in prose
// counts too); the stricter ones count it only alone on its line, or only at the end of a
// text block (nothing but white space after it).
const (
	Anywhere Mode = "anywhere"
	OwnLine  Mode = "line"
	AtEnd    Mode = "end"
)

// ParseMode reads a Mode by name; "" is Anywhere.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Anywhere:
		return Anywhere, nil
	case OwnLine, AtEnd:
		return Mode(s), nil
	}
	return "", fmt.Errorf("%q is not one of anywhere, line, end", s)
}

// ContainsMode reports whether text holds the exact marker for token where mode says it
// counts. It is the definition the streaming Matcher follows.
func ContainsMode(text, token string, mode Mode) bool {
	// "" is Anywhere: the default.
	marker := Marker(token)
	switch mode {
	case OwnLine:
		for _, line := range strings.Split(text, "\n") {
			if strings.Trim(line, " \t\r") == marker {
				return true
			}
		}
		return false
	case AtEnd:
		return strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), marker)
	}
	return strings.Contains(text, marker)
}

// maxOther bounds the text of a different token reported by Other.
const maxOther = MaxTokenBytes

// Other returns the first <promise>X</promise> in text whose X is not token (X on one
// line, at most MaxTokenBytes long), and whether there is one. It is the definition the
// streaming Matcher's Other follows.
func Other(text, token string) (string, bool) {
	const open, closing = "<promise>", "</promise>"
	i := 0
	for {
		k := strings.Index(text[i:], open)
		if k < 0 {
			return "", false
		}
		start := i + k + len(open)
		j := start
		for j < len(text) && text[j] != '<' && text[j] != '\n' && j-start <= maxOther {
			j++
		}
		switch {
		case j-start > maxOther:
			i = j
		case j == len(text):
			return "", false
		case text[j] == '\n':
			i = j + 1
		case strings.HasPrefix(text[j:], closing):
			if x := text[start:j]; x != token {
				return x, true
			}
			i = j + len(closing)
		default:
			i = j
		}
	}
}

// Matcher looks for the marker in text that arrives in pieces, holding no more than the
// marker's length of it. The zero value matches nothing; use NewMatcher.
type Matcher struct {
	marker  []byte
	tail    []byte // the last len(marker)-1 bytes written, for markers split across writes
	scratch []byte
	found   bool

	// The stricter modes match byte by byte (KMP).
	mode      Mode
	fail      []int
	j         int  // marker bytes matched
	lineBlank bool // only blanks since the last newline (or the start)
	markBlank bool // the line was blank where the current partial match starts
	pending   bool // a marker that counts if only blanks follow (to the newline, or the end)

	other otherFinder
	token string
}

// NewMatcherMode returns a Matcher for the marker of token, counted where mode says ("" is
// Anywhere).
func NewMatcherMode(token string, mode Mode) *Matcher {
	if mode == "" {
		mode = Anywhere
	}
	m := []byte(Marker(token))
	mt := &Matcher{
		marker:    m,
		tail:      make([]byte, 0, len(m)),
		scratch:   make([]byte, 0, 2*len(m)),
		mode:      mode,
		lineBlank: true,
		token:     token,
	}
	if mode != Anywhere {
		mt.fail = failure(m)
	}
	return mt
}

// failure is the KMP failure function of p.
func failure(p []byte) []int {
	f := make([]int, len(p)+1)
	f[0] = -1
	k := -1
	for i := 0; i < len(p); i++ {
		for k >= 0 && p[k] != p[i] {
			k = f[k]
		}
		k++
		f[i+1] = k
	}
	return f
}

// Write feeds the next piece of text. It never fails.
func (m *Matcher) Write(p []byte) (int, error) {
	if len(m.marker) == 0 || len(p) == 0 {
		return len(p), nil
	}
	m.other.write(p, m.token)
	if m.mode != Anywhere {
		m.writeStrict(p)
		return len(p), nil
	}
	if m.found {
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

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// writeStrict matches p byte by byte for the stricter modes.
func (m *Matcher) writeStrict(p []byte) {
	for _, c := range p {
		if m.pending && !isBlank(c) {
			if c == '\n' && m.mode == OwnLine {
				m.found = true
			}
			if c != '\n' || m.mode == OwnLine {
				m.pending = false
			}
		}
		for m.j >= 0 && m.marker[m.j] != c {
			m.j = m.fail[m.j]
			m.markBlank = false // a match that falls back starts after a '<'
		}
		m.j++
		if m.j == 1 {
			m.markBlank = m.lineBlank
		}
		if m.j == len(m.marker) {
			if m.mode == AtEnd || m.markBlank {
				m.pending = true
			}
			m.j = m.fail[m.j]
			m.markBlank = false
		}
		switch {
		case c == '\n':
			m.lineBlank = true
		case !isBlank(c):
			m.lineBlank = false
		}
	}
}

// Found reports whether the marker has appeared, where it counts, since the last Reset.
// In the stricter modes it is judged on the text written so far, as if it ended here.
func (m *Matcher) Found() bool { return m.found || m.pending }

// Other returns the first different token seen in <promise> tags since the last Reset.
func (m *Matcher) Other() (string, bool) { return m.other.found, m.other.ok }

// Reset forgets everything written, so that a marker must lie within one piece of text
// (one text block) to count.
func (m *Matcher) Reset() {
	m.tail = m.tail[:0]
	m.found = false
	m.j, m.lineBlank, m.markBlank, m.pending = 0, true, false, false
	m.other = otherFinder{}
}

// otherFinder follows Other over text that arrives in pieces.
type otherFinder struct {
	state   int // 0 seeking "<promise>", 1 collecting the token, 2 matching "</promise>"
	k       int // bytes of the tag matched
	content []byte
	found   string
	ok      bool
}

const otherOpen, otherClose = "<promise>", "</promise>"

func (o *otherFinder) write(p []byte, token string) {
	if o.ok {
		return
	}
	for i := 0; i < len(p); i++ {
		if o.state == 0 && o.k == 0 {
			// Skip to the next '<' fast: prose holds few.
			n := bytes.IndexByte(p[i:], '<')
			if n < 0 {
				return
			}
			i += n
		}
		o.step(p[i], token)
		if o.ok {
			return
		}
	}
}

func (o *otherFinder) step(c byte, token string) {
	switch o.state {
	case 0:
		if c == otherOpen[o.k] {
			o.k++
			if o.k == len(otherOpen) {
				o.state, o.k, o.content = 1, 0, o.content[:0]
			}
			return
		}
		o.k = 0
		if c == '<' {
			o.k = 1
		}
	case 1:
		switch {
		case c == '<':
			o.state, o.k = 2, 1
		case c == '\n':
			o.state, o.k = 0, 0
		case len(o.content) >= maxOther:
			o.state, o.k = 0, 0
			o.step(c, token)
		default:
			o.content = append(o.content, c)
		}
	case 2:
		if c == otherClose[o.k] {
			o.k++
			if o.k == len(otherClose) {
				if string(o.content) != token {
					o.found, o.ok = string(o.content), true
				}
				o.state, o.k = 0, 0
			}
			return
		}
		// Not a closing tag: start over at this byte, or at the '<' if nothing else of
		// the tag matched (it may open another marker).
		wasLT := o.k == 1
		o.state, o.k = 0, 0
		if wasLT {
			o.k = 1
		}
		o.step(c, token)
	}
}
