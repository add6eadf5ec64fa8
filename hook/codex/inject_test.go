package codex

import (
	"html"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// escape is what Codex 0.169.0 does to a block reason before the model reads it (seen:
// <hook_prompt hook_run_id="…">R</hook_prompt> with <, > and & escaped, quotes and newlines
// kept).
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// TestContinuationEscaped checks that the continuation stays exact once Codex has escaped
// it: the note that explains the entities reaches the model unchanged, the marker decodes
// to exactly the one the rules give, and the text stays under Codex's hook-output budget.
func TestContinuationEscaped(t *testing.T) {
	if strings.ContainsAny(inject.EscapedNote, "<>&") {
		t.Fatalf("the note itself would be escaped: %q", inject.EscapedNote)
	}
	for _, token := range []string{"DONE", "R&D", "a &amp; b", "ü & ñ"} {
		for _, task := range []string{"Fix <b> & <i>", strings.Repeat("長い課題 & <x> ", 2000)} {
			l := &state.Loop{Config: state.Config{Task: task, CompletionPromise: token, MaxIterations: 5, MinToolCalls: 1, OnPromiseNoWork: state.NoWorkReject},
				TaskFile: "/state/task.md", Iteration: 2}
			for _, why := range []inject.Why{{Kind: inject.BlockNoPromise}, {Kind: inject.BlockNoWork}, {Kind: inject.BlockWrongToken, Other: "<promise>X</promise>"}} {
				c := inject.Continuation(l, why, Words)
				seen := escape(c)
				if !strings.Contains(seen, inject.EscapedNote) {
					t.Fatalf("token %q: the note does not reach the model as written:\n%s", token, seen)
				}
				if html.UnescapeString(seen) != c || !strings.Contains(c, promise.Marker(token)) {
					t.Errorf("token %q: the marker %q does not decode exactly from:\n%s", token, promise.Marker(token), seen)
				}
				if n := len(c); n > 10000 {
					t.Errorf("token %q, task of %d bytes: the continuation is %d bytes, over Codex's 10,000-byte budget", token, len(task), n)
				}
			}
			if n := len(inject.Contract(l, Words)); n > 10000 {
				t.Errorf("the contract is %d bytes, over Codex's 10,000-byte budget", n)
			}
		}
	}
}
