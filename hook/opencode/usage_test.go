package opencode

import (
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/spend"
)

// TestIdleUsage: a session.idle event hands over what each assistant message used (a
// synthetic event in the shape the plugin sends, with opencode's message info fields): the
// tokens by kind, reasoning as output; opencode's cost counts when it is above 0, and a cost
// of 0 (opencode knows no price for the model) is left to ralph-loop's prices; a user
// message or a record with a bad count adds nothing.
func TestIdleUsage(t *testing.T) {
	in := `{"hook":"session.idle","sessionID":"ses_1","directory":"/WORK","messages":[
		{"role":"user","parts":[{"text":"go"}]},
		{"role":"assistant","parts":[{"text":"a"}],"usage":{"model":"fake-model","cost":0.0215,"tokens":{"input":500,"output":200,"reasoning":100,"cache":{"read":1500,"write":0}}}},
		{"role":"assistant","parts":[{"text":"b"}],"usage":{"model":"other-model","cost":0,"tokens":{"input":10,"output":1,"reasoning":0,"cache":{"read":0,"write":5}}}},
		{"role":"assistant","parts":[{"text":"c"}],"usage":{"model":"x","cost":1,"tokens":{"input":-10,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}}
	]}`
	ev, err := Host{}.Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []spend.Record{
		{Model: "fake-model", Tokens: spend.Tokens{Input: 500, CacheRead: 1500, Output: 300}, Cost: 0.0215, HasCost: true},
		{Model: "other-model", Tokens: spend.Tokens{Input: 10, CacheWrite: 5, Output: 1}},
	}
	if ev.Kind != hook.Stop || len(ev.Usage) != len(want) {
		t.Fatalf("got %+v", ev)
	}
	for i := range want {
		if ev.Usage[i] != want[i] {
			t.Errorf("record %d: got %+v, want %+v", i, ev.Usage[i], want[i])
		}
	}
	s := spend.Spent{}.Add(ev.Usage, nil)
	if s.CostKnown() || s.Unpriced[0] != "other-model" || s.Total() != 2316 {
		t.Errorf("got %+v, want other-model unpriced, 2,316 tokens", s)
	}
}
