package transcript

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
)

// TestNextLine: a line read is ok; one the scanner passes over (skip) or cannot read (Bad)
// is not; every line read to its end moves the offset past it; a line still being written
// ends the scan before it, and another error of the line's reader ends it with the error.
func TestNextLine(t *testing.T) {
	skip, broken := errors.New("skip"), errors.New("broken")
	src := `{"k":"want"}` + "\n" + `{"k":"skip"}` + "\n" + `{"k":` + "\n" + `{"k":"broken"}` + "\n"
	for _, tail := range []string{"", `{"k":"want"`} {
		d := jsonstream.NewLineReader(strings.NewReader(src+tail), 64)
		res := Result{Offset: 100}
		var got []string
		line := func() error {
			err := d.Object(func([]byte) error {
				v, err := d.String(nil, 16)
				switch string(v) {
				case "skip":
					return skip
				case "broken":
					return broken
				}
				return err
			})
			if err == nil {
				err = d.EndLine()
			}
			return err
		}
		var err error
		for {
			more, ok, e := NextLine(d, 100, &res, skip, line)
			if !more {
				err = e
				break
			}
			got = append(got, map[bool]string{true: "ok", false: "passed"}[ok])
		}
		want := int64(100 + strings.Index(src, `{"k":"broken"}`))
		if s := strings.Join(got, " "); s != "ok passed passed" || res.Bad != 1 || res.Lines != 3 || res.Offset != want || err != broken {
			t.Errorf("tail %q: lines %q, Bad %d, Lines %d, offset %d, end %v; want \"ok passed passed\", 1, 3, %d, %v",
				tail, s, res.Bad, res.Lines, res.Offset, err, want, broken)
		}
	}
	d := jsonstream.NewLineReader(strings.NewReader(`{"k":"want"}`+"\n"+`{"k":"wa`), 64)
	res := Result{}
	line := func() error {
		if err := d.Skip(); err != nil {
			return err
		}
		return d.EndLine()
	}
	more, ok, err := NextLine(d, 0, &res, nil, line)
	if !more || !ok || err != nil {
		t.Fatalf("a whole line: more %v, ok %v, err %v", more, ok, err)
	}
	more, _, err = NextLine(d, 0, &res, nil, line)
	if more || err != nil || res.Lines != 1 || res.Offset != 13 {
		t.Errorf("a line still being written: more %v, err %v, Lines %d, offset %d; want false, nil, 1, 13", more, err, res.Lines, res.Offset)
	}
}

// TestTail: a text is the end of the last message when the last message ends with all of
// it, however it is streamed; an empty text, or any text when there is no last message,
// is not.
func TestTail(t *testing.T) {
	tl := NewTail("one two three")
	for _, c := range []struct {
		pieces []string
		want   bool
	}{
		{[]string{"three"}, true},
		{[]string{"two ", "three"}, true},
		{[]string{"one two three"}, true},
		{[]string{"two"}, false},
		{[]string{"zero one two three"}, false},
		{[]string{"zero ", "one two three"}, false},
		{nil, false},
	} {
		tl.Reset()
		for _, p := range c.pieces {
			tl.Write([]byte(p))
		}
		if tl.Ends() != c.want {
			t.Errorf("%q: Ends() = %v, want %v", c.pieces, tl.Ends(), c.want)
		}
	}
	none := NewTail("")
	none.Reset()
	none.Write([]byte("x"))
	if none.Ends() {
		t.Error("a text ends an empty last message")
	}
}

// TestReadTime: an RFC 3339 timestamp is read; a string that is not one, or a value of
// another kind, leaves the time as it was.
func TestReadTime(t *testing.T) {
	d := jsonstream.NewReader(strings.NewReader(`"2026-11-28T03:04:05.5Z" "yesterday" 1764299045 "2026-11-28T04:00:00+01:00"`), 64)
	var ts time.Time
	for _, want := range []string{"2026-11-28T03:04:05.5Z", "2026-11-28T03:04:05.5Z", "2026-11-28T03:04:05.5Z", "2026-11-28T03:00:00Z"} {
		if err := ReadTime(d, &ts); err != nil || !ts.Equal(mustTime(want)) {
			t.Errorf("ReadTime = %v, %v; want %s", ts, err, want)
		}
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestReadCountsKind: counts are read from an object; a value of another kind is skipped
// and reads as no counts.
func TestReadCountsKind(t *testing.T) {
	d := jsonstream.NewReader(strings.NewReader(`[1,2] {"in":3,"out":"x","other":4}`), 64)
	var in, out int64
	fields := map[string]*int64{"in": &in, "out": &out}
	if ok, err := ReadCounts(d, nil, fields); ok || err != nil || in != 0 {
		t.Errorf("an array: ok %v, err %v, in %d; want false, nil, 0", ok, err, in)
	}
	if ok, err := ReadCounts(d, nil, fields); !ok || err != nil || in != 3 || out != 0 {
		t.Errorf("an object: ok %v, err %v, in %d, out %d; want true, nil, 3, 0", ok, err, in, out)
	}
}
