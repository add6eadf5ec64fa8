package installtest

import "testing"

func TestOnlyAdded(t *testing.T) {
	for _, c := range []struct {
		before, after string
		want          bool
	}{
		{"", "", true},
		{"", "{}", true},
		{"{}", "{\"a\":1}", true},
		{"{\n}\n", "{\n  \"hooks\": {}\n}\n", true},
		{"{}", "{ }", true},
		{"{ }", "{}", false},              // a byte taken out
		{"ab", "ba", false},               // bytes moved
		{"{\"a\":1}", "{\"a\":2}", false}, // a byte changed
	} {
		if got := OnlyAdded([]byte(c.before), []byte(c.after)); got != c.want {
			t.Errorf("OnlyAdded(%q, %q) = %v, want %v", c.before, c.after, got, c.want)
		}
	}
}
