package fakeserver

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Halves gives the client two pieces to join, each valid UTF-8, and none of an empty text.
func TestHalves(t *testing.T) {
	for _, c := range []struct {
		text   string
		pieces int
	}{{"", 0}, {"a", 1}, {"é", 1}, {"ab", 2}, {"héllo wörld", 2}, {"日本語", 2}} {
		got := Halves(c.text)
		if len(got) != c.pieces || strings.Join(got, "") != c.text {
			t.Errorf("Halves(%q) = %q; want %d pieces that join to it", c.text, got, c.pieces)
		}
		for _, p := range got {
			if p == "" || !utf8.ValidString(p) {
				t.Errorf("Halves(%q) has the piece %q", c.text, p)
			}
		}
	}
}

func TestLog(t *testing.T) {
	var l Log[int]
	for i := range 5 {
		if n := l.Add(i); n != i+1 {
			t.Errorf("Add(%d) = %d; want %d", i, n, i+1)
		}
	}
	if got := l.Where(func(v int) bool { return v%2 == 0 }); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("Where(even) = %v", got)
	}
	if got := l.Where(func(int) bool { return false }); got != nil {
		t.Errorf("Where(none) = %v; want nil", got)
	}
	all := l.All()
	all[0] = 99
	if l.All()[0] != 0 || l.Len() != 5 {
		t.Errorf("All is not a copy, or Len is wrong: %v, %d", l.All(), l.Len())
	}
}
