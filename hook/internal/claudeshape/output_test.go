package claudeshape

import (
	"bytes"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
)

// WriteOutput writes the reply by hand; FuzzWriteOutput holds it to wire.WriteJSON's bytes
// (encoding/json, without HTML escaping) for any text in any field.
func FuzzWriteOutput(f *testing.F) {
	for _, s := range []string{"", "ralph-loop: iteration 2/25. <promise>DONE</promise> & more", "tab\there\nline \"quoted\" \\ back",
		"\x00\x01\x1f\x7f", "bad \xff utf-8", "\u2028\u2029", "ünïcödé 🙂"} {
		f.Add(s, s, s, s, true)
		f.Add("block", s, "", "", false)
	}
	f.Fuzz(func(t *testing.T, decision, reason, message, extra string, specific bool) {
		out := Output{Decision: decision, Reason: reason, SystemMessage: message}
		if specific {
			out.HookSpecificOutput = &Specific{HookEventName: extra, AdditionalContext: reason, PermissionDecision: decision, PermissionDecisionReason: message}
		}
		var got, want bytes.Buffer
		if _, err := WriteOutput(&got, out); err != nil {
			t.Fatal(err)
		}
		if out != (Output{}) {
			if err := wire.WriteJSON(&want, out); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("WriteOutput wrote\n%s\nWriteJSON writes\n%s", got.Bytes(), want.Bytes())
		}
	})
}
