package hosts

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/state"
)

// FuzzHandle feeds every host the same input, seeded from every host's captured payloads:
// a host decodes it or refuses it with hook.ErrInput, never panics, and the engine either
// answers or exits non-zero with nothing on stdout.
func FuzzHandle(f *testing.F) {
	hosttest.Seed(f, "../../testdata/*/*.json")
	f.Add([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"/ralph-loop x"}`))
	f.Add([]byte(`{"hook_event_name":"Stop","session_id":"s","last_assistant_message":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, h := range All {
			if _, err := h.Decode(bytes.NewReader(data)); err != nil && !errors.Is(err, hook.ErrInput) {
				t.Fatalf("%s: error %v does not wrap hook.ErrInput", h.Name(), err)
			}
			var out, errs bytes.Buffer
			env := hook.Env{Store: state.NewStore(dir), Now: func() time.Time { return time.Unix(1e9, 0) }, Sleep: func(time.Duration) {},
				Getenv: func(string) string { return "" }, Stderr: &errs}
			code := hook.Handle(context.Background(), env, h, bytes.NewReader(data), &out)
			// A host that shows notices on stderr at exit 2 (Copilot CLI) still reads the
			// prompt hook's context from stdout then.
			if code != 0 && out.Len() > 0 && !(code == 2 && errs.Len() > 0) {
				t.Fatalf("%s: exit %d with stdout %q", h.Name(), code, out.String())
			}
		}
	})
}
