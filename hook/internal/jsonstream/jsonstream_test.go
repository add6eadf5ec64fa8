package jsonstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// readers returns src behind a tiny buffer and behind one-byte reads, so that every value
// crosses buffer boundaries.
func readers(src string, lines bool) map[string]*Reader {
	mk := func(r io.Reader, size int) *Reader { return newReader(r, size, lines) }
	return map[string]*Reader{
		"big":     mk(strings.NewReader(src), 1<<16),
		"small":   mk(strings.NewReader(src), 64),
		"onebyte": mk(iotest.OneByteReader(strings.NewReader(src)), 64),
	}
}

func TestString(t *testing.T) {
	tests := []string{
		`""`,
		`"plain"`,
		`"quote \" backslash \\ slash \/ controls \b\f\n\r\t"`,
		`"unicode \u00e9\u4e2d \ud83d\ude00 raw ✓ 完了"`,
		`"lone high \ud83d then text"`,
		`"lone low \ude00"`,
		`"high then non-low \ud83d\u0041"`,
		`"two highs \ud83d\ud83d\ude00"`,
		`"` + strings.Repeat(`a\\`, 100) + `"`,
		`"` + strings.Repeat("x", 300) + `\"` + strings.Repeat("y", 70) + `"`,
		`"<promise>DONE<\/promise> \u003cpromise\u003eDONE\u003c/promise\u003e"`,
	}
	for _, src := range tests {
		var want string
		if err := json.Unmarshal([]byte(src), &want); err != nil {
			t.Fatalf("bad test %s: %v", src, err)
		}
		for name, d := range readers(src, false) {
			got, err := d.String(nil, -1)
			if err != nil || string(got) != want {
				t.Errorf("%s: String(%s) = %q, %v; want %q", name, src, got, err, want)
			}
			if d.Offset() != int64(len(src)) {
				t.Errorf("%s: offset after %s = %d, want %d", name, src, d.Offset(), len(src))
			}
		}
	}
}

func TestStringLimit(t *testing.T) {
	d := NewReader(strings.NewReader(`"abcdefgh" "ij"`), 64)
	got, err := d.String([]byte("x"), 3)
	if err != nil || string(got) != "xabc" {
		t.Fatalf("String limit 3 = %q, %v; want %q", got, err, "xabc")
	}
	got, err = d.String(nil, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("second String limit 0 = %q, %v", got, err)
	}
}

func TestStringErrors(t *testing.T) {
	tests := []struct {
		src  string
		want error
	}{
		{`"unterminated`, io.ErrUnexpectedEOF},
		{`"bad \x escape"`, ErrSyntax},
		{`"bad \u12g4"`, ErrSyntax},
		{`"short \u12`, io.ErrUnexpectedEOF},
		{`"ends in \`, io.ErrUnexpectedEOF},
		{`notastring`, ErrSyntax},
		{``, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		for name, d := range readers(tt.src, false) {
			if _, err := d.String(nil, -1); !errors.Is(err, tt.want) {
				t.Errorf("%s: String(%s) error = %v, want %v", name, tt.src, err, tt.want)
			}
		}
	}
}

func TestSkip(t *testing.T) {
	values := []string{
		`{}`, `[]`, `""`, `0`, `-1.5e+10`, `true`, `false`, `null`,
		`{"a":[1,2,{"b":"c\"}]"}],"d":{"e":null}}`,
		`"` + strings.Repeat(`\\`, 33) + `\"` + strings.Repeat(`\\`, 64) + `"`,
		`[` + strings.Repeat(`"x\"y",`, 50) + `1]`,
		`  { "spaced" : [ 1 , 2 ] }`,
	}
	for _, v := range values {
		src := v + ` "after"`
		for name, d := range readers(src, false) {
			if err := d.Skip(); err != nil {
				t.Errorf("%s: Skip(%s): %v", name, v, err)
				continue
			}
			if d.Offset() != int64(len(v)) {
				t.Errorf("%s: Skip(%s) stopped at %d, want %d", name, v, d.Offset(), len(v))
			}
			if s, err := d.String(nil, -1); err != nil || string(s) != "after" {
				t.Errorf("%s: after Skip(%s): %q, %v", name, v, s, err)
			}
		}
	}
}

func TestSkipErrors(t *testing.T) {
	for _, src := range []string{`}`, `,`, `[1,`, `{"a":"b`, `@`} {
		for name, d := range readers(src, false) {
			if err := d.Skip(); err == nil {
				t.Errorf("%s: Skip(%s) succeeded", name, src)
			}
		}
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if err := NewReader(strings.NewReader(deep), 64).Skip(); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Skip of %d nested arrays: %v, want ErrTooDeep", MaxDepth+1, err)
	}
}

func TestObjectArray(t *testing.T) {
	src := `{"name":"x","list":[true,false,"s"],"nested":{"k":1},"skip":{"deep":[1,[2]]}}`
	for name, d := range readers(src, false) {
		var got []string
		err := d.Object(func(key []byte) error {
			got = append(got, string(key))
			switch string(key) {
			case "name":
				s, err := d.String(nil, -1)
				got = append(got, string(s))
				return err
			case "list":
				return d.Array(func() error {
					if k, _ := d.Kind(); k == '"' {
						return d.Skip()
					}
					b, err := d.Bool()
					got = append(got, map[bool]string{true: "T", false: "F"}[b])
					return err
				})
			case "nested":
				return d.Object(func(key []byte) error {
					got = append(got, "nested."+string(key))
					return d.Skip()
				})
			}
			return d.Skip()
		})
		want := "name x list T F nested nested.k skip"
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s: got %q, %v; want %q", name, strings.Join(got, " "), err, want)
		}
		if end, err := d.AtEnd(); !end || err != nil {
			t.Errorf("%s: AtEnd = %v, %v", name, end, err)
		}
	}
}

func TestObjectErrors(t *testing.T) {
	for _, src := range []string{`{"a" 1}`, `{"a":1 "b":2}`, `{a:1}`, `{"a":1,}`, `[1 2]`, `{"a":`} {
		d := NewReader(strings.NewReader(src), 64)
		err := d.Object(func([]byte) error { return d.Skip() })
		if k, _ := NewReader(strings.NewReader(src), 64).Kind(); k == '[' {
			d = NewReader(strings.NewReader(src), 64)
			err = d.Array(d.Skip)
		}
		if err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

func TestLines(t *testing.T) {
	src := "{\"a\":\"one\"}\n" +
		"{\"a\":\"broken\n" + // a raw newline ends the line inside the string
		"{\"a\":\"three\"}  \r\n" +
		"not json at all\n" +
		"{\"a\":\"five\"} trailing\n" +
		"\n" +
		"{\"a\":\"six\"}\n" +
		"{\"a\":\"partial"
	for name, d := range readers(src, true) {
		var got []string
		for {
			if end, _ := d.AtEnd(); end {
				break
			}
			start := d.Offset()
			var val []byte
			err := d.Object(func(key []byte) error {
				var err error
				val, err = d.String(nil, -1)
				return err
			})
			if err == nil {
				err = d.EndLine()
			}
			switch {
			case err == nil:
				got = append(got, string(val))
			case errors.Is(err, io.ErrUnexpectedEOF):
				got = append(got, "EOF@"+itoa(start))
			default:
				got = append(got, "bad")
				if err := d.SkipLine(); err != nil {
					got = append(got, "skip:"+err.Error())
				}
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
		}
		want := "one bad three bad bad bad six EOF@" + itoa(int64(strings.LastIndex(src, "\n")+1))
		if strings.Join(got, " ") != want {
			t.Errorf("%s: got %q, want %q", name, strings.Join(got, " "), want)
		}
	}
}

func TestSkipLineLong(t *testing.T) {
	long := `{"type":"user","content":"` + strings.Repeat("z", 100000) + `"}`
	src := long + "\n" + `{"type":"assistant"}` + "\n"
	d := NewLineReader(strings.NewReader(src), 4096)
	if err := d.SkipLine(); err != nil {
		t.Fatal(err)
	}
	if d.Offset() != int64(len(long)+1) {
		t.Fatalf("offset %d, want %d", d.Offset(), len(long)+1)
	}
	if err := d.SkipLine(); err != nil {
		t.Fatal(err)
	}
	if err := d.SkipLine(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("SkipLine at end = %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// FuzzString checks decoded strings against encoding/json.
func FuzzString(f *testing.F) {
	f.Add(`"plain"`)
	f.Add(`"\ud83d\ude00 \u00e9 \"q\" \\"`)
	f.Add(`"lone \ud83d x"`)
	f.Add(`"<promise>DONE<\/promise>"`)
	f.Fuzz(func(t *testing.T, src string) {
		var want string
		jsonErr := json.Unmarshal([]byte(src), &want)
		d := NewReader(iotest.HalfReader(strings.NewReader(src)), 64)
		got, err := d.String(nil, -1)
		if err == nil {
			if end, _ := d.AtEnd(); !end {
				err = ErrSyntax // trailing data: encoding/json rejects it too
			}
		}
		if jsonErr == nil && utf8.ValidString(src) {
			if err != nil || string(got) != want {
				t.Fatalf("String(%q) = %q, %v; encoding/json says %q", src, got, err, want)
			}
		}
		if jsonErr != nil && err == nil && utf8.ValidString(src) && !bytes.ContainsAny([]byte(src), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f") {
			t.Fatalf("String(%q) accepted what encoding/json rejects: %v", src, jsonErr)
		}
	})
}

// FuzzSkip checks that Skip consumes exactly one valid JSON value.
func FuzzSkip(f *testing.F) {
	f.Add(`{"a":[1,"b\"",{"c":null}]}`)
	f.Add(`"x\\\\\"y"`)
	f.Add(`[[[]]]`)
	f.Fuzz(func(t *testing.T, v string) {
		if !json.Valid([]byte(v)) {
			d := NewReader(strings.NewReader(v), 64)
			_ = d.Skip() // must not panic or hang
			return
		}
		d := NewReader(iotest.HalfReader(strings.NewReader(v+` 7`)), 64)
		if err := d.Skip(); err != nil {
			t.Fatalf("Skip(%q): %v", v, err)
		}
		if got, want := d.Offset(), int64(len(strings.TrimRight(v, " \t\r\n"))); got != want {
			t.Fatalf("Skip(%q) stopped at %d, want %d", v, got, want)
		}
	})
}
