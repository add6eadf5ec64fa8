package claudeshape

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

func TestDecodeCaptured(t *testing.T) {
	for _, c := range hosttest.LoadAll(t, "../../../testdata/claude/*.json", 8) {
		name, data := c.Path, c.Data
		if strings.Contains(name, "api-request") {
			continue
		}
		in, err := DecodeInput(strings.NewReader(string(data)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if in.SessionID == "" || in.Event == "" || !strings.HasPrefix(filepath.Base(name), in.Event) {
			t.Errorf("%s: %+v", name, in)
		}
	}
}

func TestDecodeFields(t *testing.T) {
	in, err := DecodeInput(strings.NewReader(`{"session_id":"s","transcript_path":"/t","cwd":"/c","prompt_id":"p",
		"hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"a \u003cpromise\u003eDONE\u003c/promise\u003e",
		"prompt":"/ralph-loop x","tool_name":"Bash","tool_use_id":"toolu_1","reason":"other",
		"tool_input":{"content":"` + strings.Repeat("z", 1<<20) + `"},"extra":[1,{"a":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Input{Event: "Stop", SessionID: "s", TranscriptPath: "/t", Cwd: "/c", PromptID: "p", StopHookActive: true,
		LastAssistantMessage: "a <promise>DONE</promise>", Prompt: "/ralph-loop x", ToolName: "Bash", ToolUseID: "toolu_1", Reason: "other"}
	in.Key = ""
	if in != want {
		t.Errorf("got %+v\nwant %+v", in, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, src := range []string{"", "   ", "null", "[]", `"s"`, `{`, `{"hook_event_name":1}`, `{"session_id":"s"}`,
		`{"hook_event_name":"Stop","stop_hook_active":1}`, `{"hook_event_name":"Stop"}x`, `{"hook_event_name":"Stop",}`} {
		if _, err := DecodeInput(strings.NewReader(src)); !errors.Is(err, hook.ErrInput) {
			t.Errorf("DecodeInput(%q) = %v, want ErrInput", src, err)
		}
	}
}

// FuzzDecodeInput checks that any input decodes or fails with ErrInput, without panicking.
func FuzzDecodeInput(f *testing.F) {
	hosttest.Seed(f, "../../../testdata/claude/*.json")
	f.Add([]byte(`{"hook_event_name":"Stop","session_id":"s","stop_hook_active":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInput(strings.NewReader(string(data)))
		if err != nil && !errors.Is(err, hook.ErrInput) {
			t.Fatalf("error %v does not wrap ErrInput", err)
		}
		if err == nil && in.Event == "" {
			t.Fatal("decoded an event without a name")
		}
	})
}
