package jsonstream

import (
	"strings"
	"testing"
)

// TestOptString: a string value is read; a value of any other kind is skipped whole and
// leaves dst as it was, and the next value is read after it.
func TestOptString(t *testing.T) {
	for src, want := range map[string]string{
		`"abc" 7`:               "abc",
		`{"a":["x",{"b":1}]} 7`: "",
		`[1,"two",3] 7`:         "",
		`12.5 7`:                "",
		`null 7`:                "",
		`true 7`:                "",
	} {
		for name, d := range readers(src, false) {
			got, err := d.OptString([]byte("keep")[:0], 64)
			if err != nil || string(got) != want {
				t.Errorf("%s: OptString(%s) = %q, %v; want %q", name, src, got, err, want)
			}
			if n, err := d.Number(nil); err != nil || string(n) != "7" {
				t.Errorf("%s: after %s the next value is %q, %v; want 7", name, src, n, err)
			}
		}
	}
}

// TestIs: Is is true, reading nothing, for a value of the kind asked; another is skipped;
// the end of the input or of the line is the error.
func TestIs(t *testing.T) {
	d := NewReader(strings.NewReader(`{"a":1} [2]`), 64)
	if ok, err := d.Is('['); ok || err != nil {
		t.Fatalf("Is('[') on an object = %v, %v; want false, nil", ok, err)
	}
	if ok, err := d.Is('['); !ok || err != nil {
		t.Fatalf("Is('[') on an array = %v, %v; want true, nil", ok, err)
	}
	if err := d.Skip(); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.Is('{'); ok || err == nil {
		t.Errorf("Is at the end = %v, %v; want false and an error", ok, err)
	}
	l := NewLineReader(strings.NewReader(`{"a":`+"\n"), 64)
	err := l.Object(func([]byte) error {
		ok, err := l.Is('"')
		if ok || err != ErrLineEnd {
			t.Errorf("Is at a line's end = %v, %v; want false, ErrLineEnd", ok, err)
		}
		return err
	})
	if err != ErrLineEnd {
		t.Errorf("Object = %v, want ErrLineEnd", err)
	}
}

// TestStringVar: a string value is kept, cut at the limit; another kind leaves the
// variable as it was.
func TestStringVar(t *testing.T) {
	d := NewReader(strings.NewReader(`"abcdef" 12 {"x":"y"} "gh"`), 64)
	v := "was"
	for _, want := range []string{"abc", "abc", "abc", "gh"} {
		if err := d.StringVar(&v, 3); err != nil || v != want {
			t.Errorf("StringVar = %q, %v; want %q", v, err, want)
		}
	}
}
