package dash

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// What one side writes the other reads, one message a line; a line longer than any
// message is an error, not a message cut short.
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	id := "s1"
	sent := []any{
		Update{Loops: &Loops{At: at, Session: "s1", Loops: []Loop{{Session: "s1", Task: "a <b> & \"c\"\n", Iteration: 2, MaxIterations: 6, MaxTime: time.Hour}}}},
		Update{Timeline: &Timeline{Session: "s1", Text: "line 1\nline 2\n"}},
		Request{Timeline: &id},
		Request{Cancel: "s1"},
	}
	for _, m := range sent {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(b.String(), "\n"); n != len(sent) {
		t.Fatalf("%d lines for %d messages:\n%s", n, len(sent), b.String())
	}
	r := NewReader(&b)
	var u1, u2 Update
	var r1, r2 Request
	for _, v := range []any{&u1, &u2, &r1, &r2} {
		if err := r.Read(v); err != nil {
			t.Fatal(err)
		}
	}
	if l := u1.Loops; l == nil || !l.At.Equal(at) || l.Loops[0].Task != "a <b> & \"c\"\n" || l.Loops[0].MaxTime != time.Hour {
		t.Errorf("loops: %+v", u1.Loops)
	}
	if u2.Timeline == nil || u2.Timeline.Text != "line 1\nline 2\n" {
		t.Errorf("timeline: %+v", u2.Timeline)
	}
	if r1.Timeline == nil || *r1.Timeline != "s1" || r2.Cancel != "s1" {
		t.Errorf("requests: %+v %+v", r1, r2)
	}
	if err := r.Read(&u1); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	long := NewReader(strings.NewReader(strings.Repeat("x", maxLine+1) + "\n"))
	if err := long.Read(&u1); !errors.Is(err, ErrTooLong) {
		t.Errorf("a line too long: %v", err)
	}
}
