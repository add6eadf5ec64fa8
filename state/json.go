package state

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The state files are read and written without encoding/json's reflection: a hook process
// reads and writes a loop once, and building encoding/json's caches of the loop's types took
// more of its time than anything else it did (issue 40). Each type lists its fields once,
// in order, in a jsonFields method (loopjson.go); that one list writes the type as
// encoding/json would (the same bytes, MarshalIndent's for the loop file) and reads it as
// encoding/json reads what ralph-loop writes. Reading is stricter than encoding/json in two
// ways, as encoding/json/v2 is: a name given twice in one object, or spelled in another case
// than the field's, makes the file corrupt (encoding/json takes the last, or matches the
// name whatever its case). json_test.go checks every field of every type against
// encoding/json, so that a field added to a type and not to its list fails the tests.

// jsonValue is one field's value, as its list gives it (a pointer into the struct).
type jsonValue interface {
	// encode appends the value's JSON to e.
	encode(e *encoder) error
	// decode reads one JSON value at d into the value.
	decode(d *decoder) error
	// empty reports whether omitempty leaves the field out.
	empty() bool
	// zero reports whether omitzero leaves the field out.
	zero() bool
	// copyTo sets dst, the same field of another value of the type, to a deep copy of the
	// value: nothing the two hold is shared.
	copyTo(dst jsonValue)
}

// clone copies src's fields into dst's (a value of the same type) deeply.
func clone(dst, src fielder) {
	d, s := listOf(dst), listOf(src)
	for i := range s {
		s[i].v.copyTo(d[i].v)
	}
}

// omit says when a field is left out, as its json tag's option does.
type omit uint8

const (
	always    omit = iota // no option: always written
	omitEmpty             // omitempty
	omitZero              // omitzero
)

// field is one entry of a type's list: its JSON name, value and option.
type field struct {
	name string
	v    jsonValue
	omit omit
}

// fields is a type's list of fields, in the order they are written.
type fields []field

func (fs *fields) add(name string, v jsonValue, o omit) {
	*fs = append(*fs, field{name, v, o})
}

// fielder is a type that lists its fields (a pointer to a struct).
type fielder interface {
	jsonFields(fs *fields)
}

// listOf is p's list of fields.
func listOf(p fielder) fields {
	fs := make(fields, 0, 16)
	p.jsonFields(&fs)
	return fs
}

// lists keeps the lists of the objects being written or read, for the next object to
// reuse: an object's list is done with when it ends.
type lists struct{ free []fields }

func (ls *lists) get(p fielder) fields {
	var fs fields
	if n := len(ls.free); n > 0 {
		fs, ls.free = ls.free[n-1][:0], ls.free[:n-1]
	} else {
		fs = make(fields, 0, 64)
	}
	p.jsonFields(&fs)
	return fs
}

func (ls *lists) put(fs fields) { ls.free = append(ls.free, fs) }

// marshalIndent is json.MarshalIndent(p, "", "  ").
func marshalIndent(p fielder) ([]byte, error) {
	e := &encoder{indent: true, buf: make([]byte, 0, 4096)}
	if err := e.object(p); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// marshal is json.Marshal(p).
func marshal(p fielder) ([]byte, error) {
	e := &encoder{buf: make([]byte, 0, 256)}
	if err := e.object(p); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// unmarshal reads data, one JSON object and nothing after it, into p. A JSON null leaves p
// as it is, as encoding/json does.
func unmarshal(data []byte, p fielder) error {
	d := &decoder{data: data}
	d.space()
	if err := d.value(objectOf(p)); err != nil {
		return err
	}
	d.space()
	if d.pos < len(d.data) {
		return d.syntax("after the top-level value")
	}
	return d.typeErr
}

// encoder writes JSON as encoding/json does (HTML-safe strings; with indent, as
// MarshalIndent with the prefix "" and the indent "  ").
type encoder struct {
	buf    []byte
	indent bool
	depth  int
	lists
}

func (e *encoder) newline() {
	if !e.indent {
		return
	}
	e.buf = append(e.buf, '\n')
	for range e.depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *encoder) object(p fielder) error {
	fs := e.get(p)
	defer e.put(fs)
	e.buf = append(e.buf, '{')
	e.depth++
	n := 0
	for _, f := range fs {
		if f.omit == omitEmpty && f.v.empty() || f.omit == omitZero && f.v.zero() {
			continue
		}
		if n > 0 {
			e.buf = append(e.buf, ',')
		}
		n++
		e.newline()
		e.buf = appendString(e.buf, f.name)
		e.buf = append(e.buf, ':')
		if e.indent {
			e.buf = append(e.buf, ' ')
		}
		if err := f.v.encode(e); err != nil {
			return err
		}
	}
	e.depth--
	if n > 0 {
		e.newline()
	}
	e.buf = append(e.buf, '}')
	return nil
}

// elements writes a JSON array of n elements, each written by elem.
func (e *encoder) elements(n int, elem func(i int) error) error {
	e.buf = append(e.buf, '[')
	e.depth++
	for i := range n {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline()
		if err := elem(i); err != nil {
			return err
		}
	}
	e.depth--
	if n > 0 {
		e.newline()
	}
	e.buf = append(e.buf, ']')
	return nil
}

// members writes a JSON object of the map keys (sorted, as encoding/json writes maps),
// each value written by val.
func (e *encoder) members(keys []string, val func(k string) error) error {
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	e.depth++
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline()
		e.buf = appendString(e.buf, k)
		e.buf = append(e.buf, ':')
		if e.indent {
			e.buf = append(e.buf, ' ')
		}
		if err := val(k); err != nil {
			return err
		}
	}
	e.depth--
	if len(keys) > 0 {
		e.newline()
	}
	e.buf = append(e.buf, '}')
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json escapes it: HTML's <, >
// and &, the line and paragraph separators, control characters, and invalid UTF-8 as
// U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// decoder reads JSON as encoding/json does into the values of a type's list. A syntax
// error stops it (and a name given twice, or in another case); a value of the wrong type,
// or one its type's own reading refuses (a time, a duration), is passed over and the first
// such error kept (typeErr), as encoding/json goes on past values of the wrong type.
type decoder struct {
	data    []byte
	pos     int
	typeErr error
	lists
}

var errSyntax = errors.New("invalid JSON")

// syntax is the error of what is at d.pos, where something else was wanted (said as
// encoding/json says it: an invalid character, or the input's unexpected end).
func (d *decoder) syntax(want string) error {
	if d.pos >= len(d.data) {
		return fmt.Errorf("unexpected end of JSON input (%s)", want)
	}
	return fmt.Errorf("invalid character %q at offset %d (%s)", d.data[d.pos], d.pos, want)
}

// fail keeps err if it is the first error of a value (a syntax error is returned instead).
func (d *decoder) fail(err error) {
	if err != nil && d.typeErr == nil {
		d.typeErr = err
	}
}

// mistyped keeps the first value of the wrong type and passes over the value.
func (d *decoder) mistyped(what string) error {
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	if d.typeErr == nil {
		d.typeErr = fmt.Errorf("cannot read %.40s as %s", d.data[start:d.pos], what)
	}
	return nil
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// next is the first byte of the value at d.pos (0 at the end).
func (d *decoder) next() byte {
	d.space()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// value reads one value into v.
func (d *decoder) value(v jsonValue) error { return v.decode(d) }

// null reads a null if there is one.
func (d *decoder) null() (bool, error) {
	if d.next() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.syntax("want " + word)
	}
	d.pos += len(word)
	return nil
}

// skip passes over one value, checking its syntax.
func (d *decoder) skip() error {
	switch c := d.next(); {
	case c == '{':
		return d.members(func([]byte) error { return d.skip() })
	case c == '[':
		return d.array(func() error { return d.skip() })
	case c == '"':
		_, err := d.str()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, err := d.number()
		return err
	}
	return d.syntax("want a value")
}

// members reads an object, calling member at each name with d at its value, which it must
// read.
func (d *decoder) members(member func(name []byte) error) error {
	if d.next() != '{' {
		return d.syntax("want {")
	}
	d.pos++
	if d.next() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.next() != '"' {
			return d.syntax("want a name")
		}
		name, err := d.strBytes()
		if err != nil {
			return err
		}
		if d.next() != ':' {
			return d.syntax("want :")
		}
		d.pos++
		if err := member(name); err != nil {
			return err
		}
		switch d.next() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("want , or }")
		}
	}
}

// array reads an array, calling elem with d at each element, which it must read.
func (d *decoder) array(elem func() error) error {
	if d.next() != '[' {
		return d.syntax("want [")
	}
	d.pos++
	if d.next() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.next() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.syntax("want , or ]")
		}
	}
}

// number reads a number and returns its text.
func (d *decoder) number() (string, error) {
	start := d.pos
	p, data := d.pos, d.data
	digits := func() bool {
		s := p
		for p < len(data) && '0' <= data[p] && data[p] <= '9' {
			p++
		}
		return p > s
	}
	if p < len(data) && data[p] == '-' {
		p++
	}
	switch {
	case p < len(data) && data[p] == '0':
		p++
	case p < len(data) && '1' <= data[p] && data[p] <= '9':
		digits()
	default:
		d.pos = p
		return "", d.syntax("want a digit")
	}
	if p < len(data) && data[p] == '.' {
		p++
		if !digits() {
			d.pos = p
			return "", d.syntax("want a digit")
		}
	}
	if p < len(data) && (data[p] == 'e' || data[p] == 'E') {
		p++
		if p < len(data) && (data[p] == '+' || data[p] == '-') {
			p++
		}
		if !digits() {
			d.pos = p
			return "", d.syntax("want a digit")
		}
	}
	d.pos = p
	return string(data[start:p]), nil
}

// str reads a string and returns it unquoted (invalid UTF-8 and lone surrogates as
// U+FFFD).
func (d *decoder) str() (string, error) {
	b, err := d.strBytes()
	return string(b), err
}

// plain are the bytes a string holds as they are: not a quote, a backslash, a control
// character or a byte of a multi-byte character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// strBytes is str's string as bytes, which may be d's own (not to be kept).
func (d *decoder) strBytes() ([]byte, error) {
	p, data := d.pos+1, d.data
	for p < len(data) && plain[data[p]] {
		p++
	}
	if p < len(data) && data[p] == '"' {
		s := data[d.pos+1 : p]
		d.pos = p + 1
		return s, nil
	}
	raw, err := d.rawStr()
	if err != nil {
		return nil, err
	}
	return []byte(unquote(raw[1 : len(raw)-1])), nil
}

// rawStr reads a string and returns it as written, quotes included.
func (d *decoder) rawStr() ([]byte, error) {
	start := d.pos
	p, data := d.pos+1, d.data
	for p < len(data) {
		switch c := data[p]; {
		case c == '"':
			d.pos = p + 1
			return data[start:d.pos], nil
		case c == '\\':
			p++
			if p >= len(data) {
				break
			}
			switch data[p] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p++
			case 'u':
				if len(data)-p < 5 || hex4(data[p+1:p+5]) < 0 {
					d.pos = p
					return nil, d.syntax("invalid \\u escape")
				}
				p += 5
			default:
				d.pos = p
				return nil, d.syntax("invalid escape")
			}
		case c < 0x20:
			d.pos = p
			return nil, d.syntax("control character in a string")
		default:
			p++
		}
	}
	d.pos = p
	return nil, d.syntax("unterminated string")
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquote decodes the inside of a string whose syntax was checked (rawStr).
func unquote(s []byte) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	if i == len(s) {
		return string(s)
	}
	b := make([]byte, i, len(s)+8)
	copy(b, s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			switch s[i+1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					if len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(s[i+2:])); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default: // " \ /
				b = append(b, s[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b)
}

// The values of the fields, by Go type.

type (
	jsonString  string
	jsonBool    bool
	jsonInt     int
	jsonInt64   int64
	jsonUint64  uint64
	jsonFloat   float64
	jsonTime    time.Time
	jsonStrings []string
	jsonStrMap  map[string]string
)

// jsonTimePtr is a *time.Time field.
type jsonTimePtr struct{ p **time.Time }

func (v *jsonString) encode(e *encoder) error { e.buf = appendString(e.buf, string(*v)); return nil }
func (v *jsonString) empty() bool             { return *v == "" }
func (v *jsonString) zero() bool              { return *v == "" }
func (v *jsonString) copyTo(dst jsonValue)    { *dst.(*jsonString) = *v }
func (v *jsonString) decode(d *decoder) error {
	switch d.next() {
	case '"':
		s, err := d.str()
		*v = jsonString(s)
		return err
	case 'n':
		return d.literal("null")
	}
	return d.mistyped("a string")
}

func (v *jsonBool) encode(e *encoder) error { e.buf = strconv.AppendBool(e.buf, bool(*v)); return nil }
func (v *jsonBool) empty() bool             { return !bool(*v) }
func (v *jsonBool) zero() bool              { return !bool(*v) }
func (v *jsonBool) copyTo(dst jsonValue)    { *dst.(*jsonBool) = *v }
func (v *jsonBool) decode(d *decoder) error {
	switch d.next() {
	case 't':
		*v = true
		return d.literal("true")
	case 'f':
		*v = false
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.mistyped("a bool")
}

// num reads a number that parse must take (an integer in range, a float); null leaves the
// value as it is.
func (d *decoder) num(parse func(s string) error) error {
	switch c := d.next(); {
	case c == 'n':
		return d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		s, err := d.number()
		if err != nil {
			return err
		}
		if err := parse(s); err != nil && d.typeErr == nil {
			d.typeErr = fmt.Errorf("cannot read %s as a number of its field: %w", s, err)
		}
		return nil
	}
	return d.mistyped("a number")
}

func (v *jsonInt) encode(e *encoder) error {
	e.buf = strconv.AppendInt(e.buf, int64(*v), 10)
	return nil
}
func (v *jsonInt) empty() bool          { return *v == 0 }
func (v *jsonInt) zero() bool           { return *v == 0 }
func (v *jsonInt) copyTo(dst jsonValue) { *dst.(*jsonInt) = *v }
func (v *jsonInt) decode(d *decoder) error {
	return d.num(func(s string) error {
		n, err := strconv.ParseInt(s, 10, strconv.IntSize)
		if err == nil {
			*v = jsonInt(n)
		}
		return err
	})
}

func (v *jsonInt64) encode(e *encoder) error {
	e.buf = strconv.AppendInt(e.buf, int64(*v), 10)
	return nil
}
func (v *jsonInt64) empty() bool          { return *v == 0 }
func (v *jsonInt64) zero() bool           { return *v == 0 }
func (v *jsonInt64) copyTo(dst jsonValue) { *dst.(*jsonInt64) = *v }
func (v *jsonInt64) decode(d *decoder) error {
	return d.num(func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			*v = jsonInt64(n)
		}
		return err
	})
}

func (v *jsonUint64) encode(e *encoder) error {
	e.buf = strconv.AppendUint(e.buf, uint64(*v), 10)
	return nil
}
func (v *jsonUint64) empty() bool          { return *v == 0 }
func (v *jsonUint64) zero() bool           { return *v == 0 }
func (v *jsonUint64) copyTo(dst jsonValue) { *dst.(*jsonUint64) = *v }
func (v *jsonUint64) decode(d *decoder) error {
	return d.num(func(s string) error {
		n, err := strconv.ParseUint(s, 10, 64)
		if err == nil {
			*v = jsonUint64(n)
		}
		return err
	})
}

func (v *jsonFloat) encode(e *encoder) (err error) {
	e.buf, err = appendFloat(e.buf, float64(*v))
	return err
}
func (v *jsonFloat) empty() bool          { return *v == 0 }
func (v *jsonFloat) zero() bool           { return *v == 0 }
func (v *jsonFloat) copyTo(dst jsonValue) { *dst.(*jsonFloat) = *v }
func (v *jsonFloat) decode(d *decoder) error {
	return d.num(func(s string) error {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil {
			*v = jsonFloat(f)
		}
		return err
	})
}

// A time.Time is written and read by its own methods, as encoding/json does; zero is its
// IsZero (what omitzero uses), strictZero the zero value (what makes a struct holding it
// zero).
func (v *jsonTime) encode(e *encoder) error {
	b, err := (*time.Time)(v).MarshalJSON()
	e.buf = append(e.buf, b...)
	return err
}
func (v *jsonTime) empty() bool          { return false }
func (v *jsonTime) zero() bool           { return (*time.Time)(v).IsZero() }
func (v *jsonTime) copyTo(dst jsonValue) { *dst.(*jsonTime) = *v }
func (v *jsonTime) strictZero() bool     { return time.Time(*v) == time.Time{} }
func (v *jsonTime) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		return d.literal("null")
	case '"':
		raw, err := d.rawStr()
		if err != nil {
			return err
		}
		d.fail((*time.Time)(v).UnmarshalJSON(raw))
		return nil
	}
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	d.fail((*time.Time)(v).UnmarshalJSON(d.data[start:d.pos]))
	return nil
}

func (v jsonTimePtr) encode(e *encoder) error {
	if *v.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return (*jsonTime)(*v.p).encode(e)
}
func (v jsonTimePtr) empty() bool { return *v.p == nil }
func (v jsonTimePtr) zero() bool  { return *v.p == nil }
func (v jsonTimePtr) copyTo(dst jsonValue) {
	p := dst.(jsonTimePtr).p
	if *v.p == nil {
		*p = nil
		return
	}
	t := **v.p
	*p = &t
}
func (v jsonTimePtr) decode(d *decoder) error {
	if null, err := d.null(); null || err != nil {
		*v.p = nil
		return err
	}
	if *v.p == nil {
		*v.p = new(time.Time)
	}
	return (*jsonTime)(*v.p).decode(d)
}

// A Duration is written as its string ("2m0s") and read as a string or a number of
// nanoseconds, as its MarshalJSON and UnmarshalJSON do (null is an error there).
func (v *Duration) encode(e *encoder) error {
	e.buf = appendString(e.buf, time.Duration(*v).String())
	return nil
}
func (v *Duration) empty() bool          { return *v == 0 }
func (v *Duration) zero() bool           { return *v == 0 }
func (v *Duration) copyTo(dst jsonValue) { *dst.(*Duration) = *v }
func (v *Duration) decode(d *decoder) error {
	switch c := d.next(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return err
		}
		t, err := time.ParseDuration(s)
		*v = Duration(t)
		d.fail(err)
		return nil
	case c == '-' || '0' <= c && c <= '9':
		s, err := d.number()
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			d.fail(fmt.Errorf("cannot read %s as a duration: %w", s, err))
		}
		*v = Duration(n)
		return nil
	}
	if err := d.skip(); err != nil {
		return err
	}
	d.fail(errors.New("a duration must be a string or a number"))
	return nil
}

func (v *jsonStrings) encode(e *encoder) error {
	return e.elements(len(*v), func(i int) error {
		e.buf = appendString(e.buf, (*v)[i])
		return nil
	})
}
func (v *jsonStrings) empty() bool          { return len(*v) == 0 }
func (v *jsonStrings) zero() bool           { return *v == nil }
func (v *jsonStrings) copyTo(dst jsonValue) { *dst.(*jsonStrings) = slices.Clone(*v) }
func (v *jsonStrings) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		*v = nil
		return d.literal("null")
	case '[':
		out := []string{}
		err := d.array(func() error {
			var s jsonString
			err := s.decode(d)
			out = append(out, string(s))
			return err
		})
		*v = out
		return err
	}
	return d.mistyped("an array")
}

func (v *jsonStrMap) encode(e *encoder) error {
	if *v == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	keys := make([]string, 0, len(*v))
	for k := range *v {
		keys = append(keys, k)
	}
	return e.members(keys, func(k string) error {
		e.buf = appendString(e.buf, (*v)[k])
		return nil
	})
}
func (v *jsonStrMap) empty() bool          { return len(*v) == 0 }
func (v *jsonStrMap) zero() bool           { return *v == nil }
func (v *jsonStrMap) copyTo(dst jsonValue) { *dst.(*jsonStrMap) = maps.Clone(*v) }
func (v *jsonStrMap) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		*v = nil
		return d.literal("null")
	case '{':
		if *v == nil {
			*v = make(map[string]string, 16) // a loop's sources name its 16 settings
		}
		return d.members(func(k []byte) error {
			key := string(k)
			var s jsonString
			err := s.decode(d)
			(*v)[key] = string(s)
			return err
		})
	}
	return d.mistyped("an object")
}

// listed is a list of fields standing for its struct.
type listed fields

func (l listed) jsonFields(fs *fields) { *fs = append(*fs, l...) }

// object is a struct field (or the value decoded at the top): its own list.
type object struct{ p fielder }

func objectOf(p fielder) object { return object{p} }

func (v object) encode(e *encoder) error { return e.object(v.p) }
func (v object) empty() bool             { return false }
func (v object) zero() bool              { return structZero(listOf(v.p)) }
func (v object) copyTo(dst jsonValue)    { clone(dst.(object).p, v.p) }
func (v object) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		return d.literal("null")
	case '{':
		return decodeObject(d, v.p)
	}
	return d.mistyped("an object")
}

// structZero reports whether every field of a struct is its zero value (what omitzero
// tests on a struct without an IsZero method).
func structZero(fs fields) bool {
	for _, f := range fs {
		if t, ok := f.v.(*jsonTime); ok {
			if !t.strictZero() {
				return false
			}
			continue
		}
		if !f.v.zero() {
			return false
		}
	}
	return true
}

// decodeObject reads an object into a struct's fields. A name that is not a field's is
// passed over; a name given twice, or one that is a field's but spelled in another case,
// is an error.
func decodeObject(d *decoder, p fielder) error {
	fs := d.get(p)
	defer d.put(fs)
	var seen [2]uint64
	next := 0
	return d.members(func(name []byte) error {
		i := -1
		// The names usually come in the list's order.
		for j := range fs {
			if k := (next + j) % len(fs); fs[k].name == string(name) {
				i = k
				break
			}
		}
		if i < 0 {
			for _, f := range fs {
				if equalFold(f.name, string(name)) {
					return fmt.Errorf("%w: the name %q is spelled %q", errSyntax, f.name, name)
				}
			}
			return d.skip()
		}
		if seen[i/64]&(1<<(i%64)) != 0 {
			return fmt.Errorf("%w: the name %q is given twice", errSyntax, name)
		}
		seen[i/64] |= 1 << (i % 64)
		next = i + 1
		return fs[i].v.decode(d)
	})
}

// equalFold is bytes.EqualFold on strings, which encoding/json matches names with.
func equalFold(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb && foldRune(ra) != foldRune(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == b
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// ptr is a pointer-to-struct field (nil: null); view is the struct's list of fields.
type ptr[T any] struct {
	p    **T
	view func(*T) fielder
}

func (v ptr[T]) encode(e *encoder) error {
	if *v.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.object(v.view(*v.p))
}
func (v ptr[T]) empty() bool { return *v.p == nil }
func (v ptr[T]) zero() bool  { return *v.p == nil }
func (v ptr[T]) copyTo(dst jsonValue) {
	p := dst.(ptr[T]).p
	if *v.p == nil {
		*p = nil
		return
	}
	n := new(T)
	clone(v.view(n), v.view(*v.p))
	*p = n
}
func (v ptr[T]) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		*v.p = nil
		return d.literal("null")
	case '{':
		if *v.p == nil {
			*v.p = new(T)
		}
		return decodeObject(d, v.view(*v.p))
	}
	return d.mistyped("an object")
}

// slice is a field of a slice of structs.
type slice[T any] struct {
	p    *[]T
	view func(*T) fielder
}

func (v slice[T]) encode(e *encoder) error {
	if *v.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.elements(len(*v.p), func(i int) error { return e.object(v.view(&(*v.p)[i])) })
}
func (v slice[T]) empty() bool { return len(*v.p) == 0 }
func (v slice[T]) zero() bool  { return *v.p == nil }
func (v slice[T]) copyTo(dst jsonValue) {
	p := dst.(slice[T]).p
	if *v.p == nil {
		*p = nil
		return
	}
	out := make([]T, len(*v.p))
	for i := range out {
		clone(v.view(&out[i]), v.view(&(*v.p)[i]))
	}
	*p = out
}
func (v slice[T]) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		*v.p = nil
		return d.literal("null")
	case '[':
		out := []T{}
		err := d.array(func() error {
			var t T
			err := objectOf(v.view(&t)).decode(d)
			out = append(out, t)
			return err
		})
		*v.p = out
		return err
	}
	return d.mistyped("an array")
}

// structMap is a field of a map of structs by string.
type structMap[T any] struct {
	p    *map[string]T
	view func(*T) fielder
}

func (v structMap[T]) encode(e *encoder) error {
	if *v.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	keys := make([]string, 0, len(*v.p))
	for k := range *v.p {
		keys = append(keys, k)
	}
	return e.members(keys, func(k string) error {
		t := (*v.p)[k]
		return e.object(v.view(&t))
	})
}
func (v structMap[T]) empty() bool { return len(*v.p) == 0 }
func (v structMap[T]) zero() bool  { return *v.p == nil }
func (v structMap[T]) copyTo(dst jsonValue) {
	p := dst.(structMap[T]).p
	if *v.p == nil {
		*p = nil
		return
	}
	out := make(map[string]T, len(*v.p))
	for k, t := range *v.p {
		var n T
		clone(v.view(&n), v.view(&t))
		out[k] = n
	}
	*p = out
}
func (v structMap[T]) decode(d *decoder) error {
	switch d.next() {
	case 'n':
		*v.p = nil
		return d.literal("null")
	case '{':
		if *v.p == nil {
			*v.p = map[string]T{}
		}
		return d.members(func(k []byte) error {
			key := string(k)
			var t T
			err := objectOf(v.view(&t)).decode(d)
			(*v.p)[key] = t
			return err
		})
	}
	return d.mistyped("an object")
}
