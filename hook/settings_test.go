package hook

import (
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state"
)

func TestSettingsChange(t *testing.T) {
	armed := []state.Setting{{File: "u.json", Key: "hooks", Sum: "a"}, {File: "p.json", Key: "env", Sum: "b"}}
	cases := []struct {
		name string
		was  []state.Setting
		now  []state.Setting
		want string // in the reason; "" for no change
	}{
		{"the same", armed, []state.Setting{armed[1], armed[0]}, ""},
		{"nothing known at arming", nil, armed, "without a record"},
		{"none at arming, none now", []state.Setting{}, nil, ""},
		{"a setting changed", armed, []state.Setting{armed[0], {File: "p.json", Key: "env", Sum: "c"}}, `"env" in p.json`},
		{"a setting added", armed, append([]state.Setting{{File: "l.json", Key: "disableAllHooks", Sum: "d"}}, armed...), `"disableAllHooks" in l.json`},
		{"a setting gone", armed, armed[:1], `"env" in p.json`},
		{"a file no longer read", armed, append([]state.Setting{{File: "l.json", Sum: "unreadable"}}, armed...), "l.json differs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := settingsChange(c.was, c.now)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
