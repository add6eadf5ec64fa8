// Package jsonstream reads JSON from a stream piece by piece, so that a caller can take the
// few fields it needs and skip the rest without ever holding a large value in memory.
//
// In line mode (for JSONL files) a raw newline ends the current line: it is never whitespace
// inside a value, every read stops at it with ErrLineEnd, and SkipLine resumes after it. One
// broken line therefore never swallows the next.
//
// Skipping is lenient: Skip checks brackets and strings, not the finer grammar of numbers and
// literals. Values that are read (strings, booleans, objects, arrays) are checked strictly.
package jsonstream

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Errors reported by Reader. Read errors of the underlying reader are passed through, and the
// end of input inside a value is io.ErrUnexpectedEOF.
var (
	ErrSyntax  = errors.New("invalid JSON")
	ErrLineEnd = errors.New("line ends inside a JSON value")
	ErrTooDeep = errors.New("JSON nested too deeply")
)

// MaxDepth bounds the nesting of objects and arrays.
const MaxDepth = 1000

// maxKey is the number of bytes of an object key that are kept; longer keys are truncated,
// which can never make them equal to a shorter key a caller looks for.
const maxKey = 256

// Reader reads JSON values from a byte stream through a fixed-size buffer.
type Reader struct {
	src   io.Reader
	buf   []byte
	r, w  int   // unread input is buf[r:w]
	lim   int   // line mode: index of the first '\n' in buf[r:w], or w if none is buffered
	base  int64 // stream offset of buf[0]
	err   error // sticky error of src (io.EOF at the end)
	lines bool
	depth int
	keys  [][]byte // one key buffer per nesting level
	out   []byte   // decoded string pieces
	str   []byte   // StringVar's value
	esc   [utf8.UTFMax]byte
}

// NewReader returns a Reader for one or more JSON documents in src, buffering size bytes.
func NewReader(src io.Reader, size int) *Reader {
	return newReader(src, size, false)
}

// NewLineReader returns a Reader for JSONL: one JSON value per line.
func NewLineReader(src io.Reader, size int) *Reader {
	return newReader(src, size, true)
}

func newReader(src io.Reader, size int, lines bool) *Reader {
	if size < 64 {
		size = 64
	}
	return &Reader{src: src, buf: make([]byte, size), lines: lines}
}

// Offset returns the stream offset of the next unread byte.
func (d *Reader) Offset() int64 { return d.base + int64(d.r) }

// fill moves unread input to the front of the buffer and reads more after it. It returns
// false if no byte was added.
func (d *Reader) fill() bool {
	if d.err != nil {
		return false
	}
	if d.r > 0 {
		n := copy(d.buf, d.buf[d.r:d.w])
		d.base += int64(d.r)
		d.lim -= d.r
		d.w = n
		d.r = 0
	}
	if d.w == len(d.buf) {
		return false
	}
	old := d.w
	for i := 0; i < 100 && d.w == old && d.err == nil; i++ {
		n, err := d.src.Read(d.buf[d.w:])
		d.w += n
		if err != nil {
			d.err = err
		}
	}
	if d.lim == old {
		d.findLim(old)
	}
	return d.w > old
}

// findLim sets lim to the first newline at or after from.
func (d *Reader) findLim(from int) {
	d.lim = d.w
	if !d.lines {
		return
	}
	if i := bytes.IndexByte(d.buf[from:d.w], '\n'); i >= 0 {
		d.lim = from + i
	}
}

// avail returns the buffered input up to the end of the current line, reading more when none
// is buffered. It is empty at a line end and at the end of input.
func (d *Reader) avail() []byte {
	if d.r == d.w {
		d.fill()
	}
	return d.buf[d.r:d.lim]
}

// ensure tries to make n bytes of the current line available.
func (d *Reader) ensure(n int) []byte {
	for d.lim-d.r < n && d.lim == d.w && d.fill() {
	}
	return d.buf[d.r:d.lim]
}

// endErr explains why avail returned nothing.
func (d *Reader) endErr() error {
	if d.lim < d.w {
		return ErrLineEnd
	}
	if d.err == nil || d.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return d.err
}

// peek skips whitespace and returns the next byte without consuming it.
func (d *Reader) peek() (byte, error) {
	for {
		s := d.avail()
		if len(s) == 0 {
			return 0, d.endErr()
		}
		for i, c := range s {
			switch c {
			case ' ', '\t', '\r', '\n': // '\n' is never inside s in line mode
			default:
				d.r += i
				return c, nil
			}
		}
		d.r += len(s)
	}
}

// AtEnd skips whitespace (and, outside line mode, newlines) and reports whether the input is
// exhausted. A read error other than io.EOF is returned.
func (d *Reader) AtEnd() (bool, error) {
	_, err := d.peek()
	switch {
	case err == nil, err == ErrLineEnd:
		return false, nil
	case err == io.ErrUnexpectedEOF:
		return true, nil
	}
	return false, err
}

// Kind returns the first byte of the next value ('{', '[', '"', 't', 'f', 'n', or a digit or
// '-') without consuming it.
func (d *Reader) Kind() (byte, error) { return d.peek() }

func (d *Reader) expect(c byte) error {
	got, err := d.peek()
	if err != nil {
		return err
	}
	if got != c {
		return ErrSyntax
	}
	d.r++
	return nil
}

func (d *Reader) push() error {
	d.depth++
	if d.depth > MaxDepth {
		return ErrTooDeep
	}
	return nil
}

// Object reads an object, calling fn for each member with its key (valid only until fn
// returns). fn must consume the member's value, with Skip if nothing else. An error from fn
// stops the read and is returned as is.
func (d *Reader) Object(fn func(key []byte) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if err := d.push(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	for len(d.keys) < d.depth {
		d.keys = append(d.keys, make([]byte, 0, 32))
	}
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		d.r++
		return nil
	}
	for {
		key, err := d.String(d.keys[d.depth-1][:0], maxKey)
		if err != nil {
			return err
		}
		d.keys[d.depth-1] = key
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		c, err := d.peek()
		if err != nil {
			return err
		}
		d.r++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			return ErrSyntax
		}
	}
}

// Array reads an array, calling fn once per element; fn must consume the element.
func (d *Reader) Array(fn func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if err := d.push(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		d.r++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		c, err := d.peek()
		if err != nil {
			return err
		}
		d.r++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return ErrSyntax
		}
	}
}

// Is reports whether the next value is of kind k (its first byte, see Kind). A value of
// another kind is skipped: Is is false, with the error of reading it.
func (d *Reader) Is(k byte) (bool, error) {
	got, err := d.peek()
	if err != nil {
		return false, err
	}
	if got != k {
		return false, d.Skip()
	}
	return true, nil
}

// OptString reads a string value as String does; a value of another kind is skipped, and
// dst is returned as it is.
func (d *Reader) OptString(dst []byte, limit int) ([]byte, error) {
	if ok, err := d.Is('"'); !ok {
		return dst, err
	}
	return d.String(dst, limit)
}

// StringVar reads a string value of at most limit bytes (see String) into *dst; a value of
// another kind is skipped, and *dst is left as it is.
func (d *Reader) StringVar(dst *string, limit int) error {
	if ok, err := d.Is('"'); !ok {
		return err
	}
	v, err := d.String(d.str[:0], limit)
	d.str = v
	*dst = string(v)
	return err
}

// String reads a string, appending at most limit decoded bytes of it to dst; the rest is
// read and dropped. A negative limit keeps everything.
func (d *Reader) String(dst []byte, limit int) ([]byte, error) {
	start := len(dst)
	err := d.StringTo(func(p []byte) {
		if limit >= 0 {
			if room := limit - (len(dst) - start); room < len(p) {
				p = p[:max(room, 0)]
			}
		}
		dst = append(dst, p...)
	})
	return dst, err
}

// StringTo reads a string and passes its decoded bytes to emit in pieces (of up to the
// buffer size), which are valid only during the call. Invalid UTF-8 is passed through as
// is; lone surrogate escapes become U+FFFD.
func (d *Reader) StringTo(emit func([]byte)) error {
	if err := d.expect('"'); err != nil {
		return err
	}
	if d.out == nil {
		d.out = make([]byte, 0, len(d.buf))
	}
	out := d.out[:0]
	put := func(p []byte) {
		if len(out)+len(p) > cap(out) {
			if len(out) > 0 {
				emit(out)
				out = out[:0]
			}
			if len(p) > cap(out) {
				emit(p)
				return
			}
		}
		out = append(out, p...)
	}
	done := func(err error) error {
		if len(out) > 0 {
			emit(out)
		}
		d.out = out[:0]
		return err
	}
	// A string without escapes (most keys, short values, plain prose) is found whole with
	// IndexByte and copied. From its first escape on, a string is decoded byte by byte: code
	// has an escape every few bytes, where one pass beats a call per run.
	bytewise := false
	for {
		s := d.avail()
		if len(s) == 0 {
			return done(d.endErr())
		}
		i := 0
		if !bytewise {
			q := bytes.IndexByte(s, '"')
			lim := q
			if q < 0 {
				lim = len(s)
			}
			if b := bytes.IndexByte(s[:lim], '\\'); b >= 0 {
				lim, q, bytewise = b, -1, true
			}
			put(s[:lim])
			i = lim
			if q >= 0 {
				d.r += q + 1
				return done(nil)
			}
		}
		buf, w := out[:cap(out)], len(out)
		for i < len(s) {
			c := s[i]
			switch c {
			case '"':
				out = buf[:w]
				d.r += i + 1
				return done(nil)
			case '\\':
				if i+1 >= len(s) || s[i+1] == 'u' {
					goto general // an escape across the buffer's end, or \u
				}
				if c = unescape[s[i+1]]; c == 0 {
					out = buf[:w]
					d.r += i
					return done(ErrSyntax)
				}
				i++
			}
			i++
			if w == len(buf) {
				emit(buf[:w])
				w = 0
			}
			buf[w] = c
			w++
		}
	general:
		out = buf[:w]
		d.r += i
		if i < len(s) {
			if err := d.escape(put); err != nil {
				return done(err)
			}
		}
	}
}

// unescape maps the byte after a backslash to what it stands for (0: not a simple escape).
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape sequence at the current backslash.
func (d *Reader) escape(emit func([]byte)) error {
	s := d.ensure(2)
	if len(s) < 2 {
		return d.endErr()
	}
	var c byte
	switch s[1] {
	case '"', '\\', '/':
		c = s[1]
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate pairs with an escaped low one that follows; anything else
			// becomes U+FFFD, as encoding/json does.
			lo, ok := rune(0), false
			if s := d.ensure(6); r < 0xdc00 && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				lo, ok = parseHex4(s[2:6])
			}
			if ok && 0xdc00 <= lo && lo < 0xe000 {
				d.r += 6
				r = utf16.DecodeRune(r, lo)
			} else {
				r = utf8.RuneError
			}
		}
		emit(utf8.AppendRune(d.esc[:0], r))
		return nil
	default:
		return ErrSyntax
	}
	d.r += 2
	d.esc[0] = c
	emit(d.esc[:1])
	return nil
}

// hex4 reads \uXXXX at the current position.
func (d *Reader) hex4() (rune, error) {
	s := d.ensure(6)
	if len(s) < 6 {
		return 0, d.endErr()
	}
	r, ok := parseHex4(s[2:6])
	if !ok {
		return 0, ErrSyntax
	}
	d.r += 6
	return r, nil
}

func parseHex4(s []byte) (rune, bool) {
	var r rune
	for _, c := range s {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Bool reads true or false.
func (d *Reader) Bool() (bool, error) {
	if _, err := d.peek(); err != nil {
		return false, err
	}
	s := d.ensure(5)
	switch {
	case bytes.HasPrefix(s, []byte("true")):
		d.r += 4
		return true, nil
	case bytes.HasPrefix(s, []byte("false")):
		d.r += 5
		return false, nil
	}
	return false, ErrSyntax
}

// Skip reads and discards one value of any kind.
func (d *Reader) Skip() error {
	depth := 0
	for {
		c, err := d.peek()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			d.r++
			if err := d.skipString(); err != nil {
				return err
			}
		case '{', '[':
			if depth++; d.depth+depth > MaxDepth {
				return ErrTooDeep
			}
			d.r++
			continue
		case '}', ']':
			if depth == 0 {
				return ErrSyntax
			}
			depth--
			d.r++
		case ',', ':':
			if depth == 0 {
				return ErrSyntax
			}
			d.r++
			continue
		default:
			if err := d.skipScalar(); err != nil {
				return err
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// skipString discards the rest of a string whose opening quote has been read.
func (d *Reader) skipString() error {
	escaped := false // the previous piece ended with a backslash
	for {
		s := d.avail()
		if len(s) == 0 {
			return d.endErr()
		}
		i := 0
		if escaped {
			i, escaped = 1, false
		}
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case '"':
				d.r += i + 1
				return nil
			}
			i++
		}
		escaped = i > len(s)
		d.r += len(s)
	}
}

// skipScalar discards a number or a literal.
func (d *Reader) skipScalar() error {
	n := 0
	for {
		s := d.avail()
		i := 0
		for i < len(s) && isScalarByte(s[i]) {
			i++
		}
		d.r += i
		n += i
		if i < len(s) || len(s) == 0 {
			break
		}
	}
	if n == 0 {
		return ErrSyntax
	}
	return nil
}

// Number reads a number's text (at most 64 bytes), appended to dst. It checks only that
// the text is made of number characters.
func (d *Reader) Number(dst []byte) ([]byte, error) {
	if _, err := d.peek(); err != nil {
		return dst, err
	}
	start := len(dst)
	for {
		s := d.avail()
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
			i++
		}
		dst = append(dst, s[:i]...)
		d.r += i
		if len(dst)-start > 64 {
			return dst, ErrSyntax
		}
		if i < len(s) || len(s) == 0 {
			break
		}
	}
	if len(dst) == start {
		return dst, ErrSyntax
	}
	return dst, nil
}

func isScalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.'
}

// EndLine consumes the rest of the current line, which must be blank. It returns
// io.ErrUnexpectedEOF if the input ends before the newline: the line may still be being
// written.
func (d *Reader) EndLine() error {
	_, err := d.peek()
	switch err {
	case ErrLineEnd:
		d.r++ // the newline
		d.findLim(d.r)
		return nil
	case nil:
		return ErrSyntax
	}
	return err
}

// SkipLine discards input through the next newline. It returns io.ErrUnexpectedEOF if the
// input ends first.
func (d *Reader) SkipLine() error {
	for {
		if d.lim < d.w {
			d.r = d.lim + 1
			d.findLim(d.r)
			return nil
		}
		d.r = d.w
		if !d.fill() {
			return d.endErr()
		}
	}
}
