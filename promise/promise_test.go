package promise

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		token string
		want  error
	}{
		{"DONE", nil},
		{"ALL TESTS  PASS", nil},
		{" padded ", nil},
		{"fertig ✓ 完了", nil},
		{"a.b*c+[d](e)?^$|\\", nil},
		{strings.Repeat("x", MaxTokenBytes), nil},
		{"", ErrEmpty},
		{strings.Repeat("x", MaxTokenBytes+1), ErrTooLong},
		{"a<b", ErrBadChar},
		{"a>b", ErrBadChar},
		{"a\nb", ErrBadChar},
		{"a\rb", ErrBadChar},
		{"a\tb", ErrBadChar},
		{"a\x00b", ErrBadChar},
		{"a\x7fb", ErrBadChar},
		{"a\u0085b", ErrBadChar},
		{"a\u2028b", ErrBadChar},
		{"a\xffb", ErrBadUTF8},
	}
	for _, tt := range tests {
		if got := Validate(tt.token); !errors.Is(got, tt.want) {
			t.Errorf("Validate(%q) = %v, want %v", tt.token, got, tt.want)
		}
	}
}

// TestErrTooLong: the message names MaxTokenBytes (a literal, not formatted at every start).
func TestErrTooLong(t *testing.T) {
	if want := " " + strconv.Itoa(MaxTokenBytes) + " bytes"; !strings.HasSuffix(ErrTooLong.Error(), want) {
		t.Errorf("ErrTooLong = %q, want it to end with %q", ErrTooLong, want)
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		text, token string
		want        bool
	}{
		{"All done. <promise>DONE</promise>", "DONE", true},
		{"<promise>DONE</promise> and then more", "DONE", true},
		{"DONE", "DONE", false},
		{"<promise>done</promise>", "DONE", false},
		{"<promise> DONE</promise>", "DONE", false},
		{"<promise>DONE </promise>", "DONE", false},
		{"<promise>DONE</promise >", "DONE", false},
		{"<Promise>DONE</Promise>", "DONE", false},
		{"<promise>TWO  SPACES</promise>", "TWO  SPACES", true},
		{"<promise>TWO SPACES</promise>", "TWO  SPACES", false},
		{"<promise>a.c</promise>", "a.c", true},
		{"<promise>abc</promise>", "a.c", false},
		{"<promise>完了</promise>", "完了", true},
		{"<promise>DO\nNE</promise>", "DONE", false},
		{"<promise><promise>DONE</promise></promise>", "DONE", true},
	}
	for _, tt := range tests {
		if got := Contains(tt.text, tt.token); got != tt.want {
			t.Errorf("Contains(%q, %q) = %v, want %v", tt.text, tt.token, got, tt.want)
		}
	}
}

// TestMatcherSplits feeds every text in every possible split into two and three pieces and
// checks the matcher agrees with Contains.
func TestMatcherSplits(t *testing.T) {
	texts := []string{
		"All done. <promise>DONE</promise>",
		"<promise>DONE</promise>",
		"<promise>DON</promise><promise>DONE</promise>",
		"<promise>DONE</promis",
		"xx<promise>DONE",
		"<<promise>DONE</promise>>",
		"nothing here",
	}
	for _, text := range texts {
		want := Contains(text, "DONE")
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				m := newMatcher("DONE")
				m.Write([]byte(text[:i]))
				m.Write([]byte(text[i:j]))
				m.Write([]byte(text[j:]))
				if m.Found() != want {
					t.Fatalf("split %q|%q|%q: Found() = %v, want %v", text[:i], text[i:j], text[j:], m.Found(), want)
				}
			}
		}
	}
}

func TestMatcherByteAtATime(t *testing.T) {
	text := strings.Repeat("<promise>DON", 50) + "<promise>DONE</promise>" + "tail"
	m := newMatcher("DONE")
	for i := 0; i < len(text); i++ {
		m.Write([]byte{text[i]})
	}
	if !m.Found() {
		t.Fatal("marker fed byte by byte was not found")
	}
}

func TestMatcherReset(t *testing.T) {
	m := newMatcher("DONE")
	m.Write([]byte("<promise>DO"))
	m.Reset()
	m.Write([]byte("NE</promise>"))
	if m.Found() {
		t.Fatal("a marker split across a Reset was found")
	}
	m.Write([]byte("<promise>DONE</promise>"))
	if !m.Found() {
		t.Fatal("marker after Reset was not found")
	}
	m.Reset()
	if m.Found() {
		t.Fatal("Found() is true after Reset")
	}
}

func TestZeroMatcher(t *testing.T) {
	var m Matcher
	m.Write([]byte("<promise></promise>"))
	if m.Found() {
		t.Fatal("zero Matcher found a marker")
	}
}

func TestContainsMode(t *testing.T) {
	const m = "<promise>DONE</promise>"
	tests := []struct {
		text       string
		line, last bool
	}{
		{m, true, true},
		{"All done.\n" + m, true, true},
		{"All done.\n  " + m + "  \n", true, true},
		{m + "\nSummary: it works.", true, false},
		{"I will NOT output " + m + " until the tests pass.", false, false},
		{"I will NOT output `" + m + "` until the tests pass", false, false},
		{"Done: " + m, false, true},
		{m + ".", false, false},
		{"\t" + m + "\r\n", true, true},
		{"<promise>DONE</promise><promise>DONE</promise>", false, true},
		{"x\n<promise>DON</promise>\n", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := ContainsMode(tt.text, "DONE", OwnLine); got != tt.line {
			t.Errorf("ContainsMode(%q, line) = %v, want %v", tt.text, got, tt.line)
		}
		if got := ContainsMode(tt.text, "DONE", AtEnd); got != tt.last {
			t.Errorf("ContainsMode(%q, end) = %v, want %v", tt.text, got, tt.last)
		}
		if got, want := ContainsMode(tt.text, "DONE", Anywhere), strings.Contains(tt.text, m); got != want {
			t.Errorf("ContainsMode(%q, anywhere) = %v, want %v", tt.text, got, want)
		}
	}
}

func TestOther(t *testing.T) {
	tests := []struct {
		text, want string
		ok         bool
	}{
		{"<promise>ALPHA</promise>", "ALPHA", true},
		{"<promise>BETA</promise>", "", false},
		{"<promise>BETA</promise> then <promise>beta</promise>", "beta", true},
		{"<promise>DONE.</promise>", "DONE.", true},
		{"<promise></promise>", "", true},
		{"<promise>multi\nline</promise>", "", false},
		{"<promise>" + strings.Repeat("x", 257) + "</promise>", "", false},
		{"<promise>" + strings.Repeat("x", 256) + "</promise>", strings.Repeat("x", 256), true},
		{"<promise><promise>GAMMA</promise>", "GAMMA", true},
		{"<promise>A</prom<promise>B</promise>", "B", true},
		{"no tags at all", "", false},
		{"<promise>BETA", "", false},
	}
	for _, tt := range tests {
		got, ok := Other(tt.text, "BETA")
		if got != tt.want || ok != tt.ok {
			t.Errorf("Other(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
		m := newMatcher("BETA")
		for i := 0; i < len(tt.text); i++ {
			m.Write([]byte{tt.text[i]})
		}
		if got, ok := m.Other(); got != tt.want || ok != tt.ok {
			t.Errorf("Matcher over %q byte by byte: Other() = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

// TestModeSplits checks the stricter modes' matcher against ContainsMode for every split.
func TestModeSplits(t *testing.T) {
	texts := []string{
		"<promise>DONE</promise>",
		"a\n <promise>DONE</promise> \nb",
		"a <promise>DONE</promise>\n",
		"<promise>DONE</promise>x",
		"<promise>DONE<promise>DONE</promise>",
		"<promise>DONE</promise>\n\n",
		"x\n<<promise>DONE</promise>",
	}
	for _, text := range texts {
		for _, mode := range []Mode{OwnLine, AtEnd} {
			want := ContainsMode(text, "DONE", mode)
			for i := 0; i <= len(text); i++ {
				m := NewMatcherMode("DONE", mode)
				m.Write([]byte(text[:i]))
				m.Write([]byte(text[i:]))
				if m.Found() != want {
					t.Fatalf("%s mode, split %q|%q: Found() = %v, want %v", mode, text[:i], text[i:], m.Found(), want)
				}
			}
		}
	}
}

// newMatcher is a Matcher for the marker of token, counted anywhere.
func newMatcher(token string) *Matcher { return NewMatcherMode(token, Anywhere) }

// Contains reports whether text holds the exact marker for token anywhere.
func Contains(text, token string) bool {
	return strings.Contains(text, Marker(token))
}
