package hook

import "testing"

func TestParseCommand(t *testing.T) {
	for _, tt := range []struct {
		prompt, name, rest string
		ok, looksLike      bool
	}{
		{"/ralph-loop fix it", CommandLoop, " fix it", true, false},
		{"  \n/ulw-loop x", CommandULW, " x", true, false},
		{"/cancel-ralph", CommandCancel, "", true, false},
		{"/ralph-loopy x", "", "", false, false},
		{"please run /ralph-loop x", "", "", false, false},
		{"hello", "", "", false, false},
		// Another host's forms are its own (Claude Code's namespace: hook/claude).
		{"/ralph-loop:cancel-ralph", "", "", false, false},
		{"<wrapper>\n/cancel-ralph\n</wrapper>", "", "", false, true},
	} {
		c, ok, looks := ParseCommand(tt.prompt)
		if ok != tt.ok || looks != tt.looksLike || c.Name != tt.name || c.Rest != tt.rest {
			t.Errorf("ParseCommand(%q) = %+v, %v, %v; want %s %q %v %v", tt.prompt, c, ok, looks, tt.name, tt.rest, tt.ok, tt.looksLike)
		}
	}
}
