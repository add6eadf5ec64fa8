package main

import (
	"bytes"
	"testing"
)

func TestTerminalWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"title \x1b]0;owned\x07 clear \x1b[2J\n", `title \x1b]0;owned\x07 clear \x1b[2J` + "\n"},
		{"cr\rbidi \u202eevil\u2066 c1 \u009b31m é日本", `cr\x0dbidi \u202eevil\u2066 c1 \u009b31m é日本`},
	} {
		var whole bytes.Buffer
		newTerminalWriter(&whole).Write([]byte(tc.in))
		if whole.String() != tc.want {
			t.Errorf("got %q, want %q", whole.String(), tc.want)
		}
		// Byte by byte (a rune cut between writes): the same.
		var bytewise bytes.Buffer
		w := newTerminalWriter(&bytewise)
		for i := 0; i < len(tc.in); i++ {
			w.Write([]byte{tc.in[i]})
		}
		if bytewise.String() != tc.want {
			t.Errorf("byte by byte: got %q, want %q", bytewise.String(), tc.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	in := "{\"t\": \"a\u202eb\u0085c\u009bd\x7fe日\"}"
	want := `{"t": "a\u202eb\u0085c\u009bd\u007fe日"}`
	if got := string(escapeJSON([]byte(in))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
