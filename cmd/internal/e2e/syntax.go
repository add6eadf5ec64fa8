package e2e

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// Syntax is a way a person may write a JSON settings file beyond plain JSON, which a host's
// CLI reads or refuses: install must accept a file the host reads, and refuse one it does
// not (with a reason), never the other way round. Each host's suite runs its CLI on its
// settings file written each way (TestSettingsSyntax).
type Syntax struct {
	Name string
	// Apply rewrites a settings file (a JSON object as install wrote it) this way.
	Apply func(data []byte) []byte
}

// Syntaxes are the ways checked: a UTF-8 byte order mark, a comment, a comma after the
// last member; and two that show the test tells reading from not reading: the file as
// install wrote it (read), and one that is not JSON at all (its last brace gone: not read).
var Syntaxes = []Syntax{
	{"as install wrote it", func(d []byte) []byte { return d }},
	{"without its last brace", func(d []byte) []byte {
		d = bytes.TrimRight(d, " \t\r\n")
		return append([]byte(nil), d[:len(d)-1]...)
	}},
	{"with a byte order mark", func(d []byte) []byte {
		if bytes.HasPrefix(d, []byte("\uFEFF")) {
			return d // (Qwen Code's suite writes its settings with one)
		}
		return append([]byte("\uFEFF"), d...)
	}},
	{"with a comment", func(d []byte) []byte {
		bom := []byte("\uFEFF")
		rest, had := bytes.CutPrefix(d, bom)
		out := append([]byte("// written by hand\n"), rest...)
		if had {
			out = append(bom, out...)
		}
		return out
	}},
	{"with a trailing comma", func(d []byte) []byte {
		d = bytes.TrimRight(d, " \t\r\n")
		end := bytes.LastIndexByte(d, '}')
		body := bytes.TrimRight(d[:end], " \t\r\n")
		return append(append(append([]byte(nil), body...), ",\n"...), d[end:]...)
	}},
}

// ApplySyntax rewrites the settings file at path in the given way.
func ApplySyntax(t testing.TB, path string, s Syntax) {
	t.Helper()
	data := Read(t, path)
	if err := os.WriteFile(path, s.Apply(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckSyntaxClaim fails t when install's word on a settings file written in a syntax
// (installErr: what "ralph-loop install" said of it, nil if it took it) disagrees with what
// the host's CLI did with it (read: it ran the hooks in it).
func CheckSyntaxClaim(t testing.TB, host string, s Syntax, read bool, installErr error) {
	t.Helper()
	switch {
	case read && installErr != nil:
		t.Errorf("%s runs the hooks of a settings file %s, but install refuses it: %v", host, s.Name, installErr)
	case !read && installErr == nil:
		t.Errorf("%s does not run the hooks of a settings file %s, but install takes it", host, s.Name)
	default:
		fmt.Fprintf(os.Stderr, "ralph-loop e2e (%s): a settings file %s: read by the CLI %v, install agrees\n", host, s.Name, read)
	}
}
