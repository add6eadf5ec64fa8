package claudeshape

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
	"github.com/ralph-loop/ralph-loop/state"
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
		"tool_input":{"content":"` + strings.Repeat("z", 1<<20) + `"},"extra":[1,{"a":null}],
		"background_tasks":[{"id":"b1","type":"shell","status":"running","description":"Build","command":"make","extra":{"x":[1]}},
			7,null,{"id":"a1","type":"subagent","status":"running","description":"Review","agent_type":"general-purpose"}],
		"session_crons":[{"id":"c1","schedule":"*/5 * * * *","recurring":true,"prompt":"check"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Input{Event: "Stop", SessionID: "s", TranscriptPath: "/t", Cwd: "/c", PromptID: "p", StopHookActive: true,
		LastAssistantMessage: "a <promise>DONE</promise>", Prompt: "/ralph-loop x", ToolName: "Bash", ToolUseID: "toolu_1", Reason: "other",
		Tasks: []Task{{ID: "b1", Type: "shell", Status: "running", Description: "Build", Command: "make"},
			{ID: "a1", Type: "subagent", Status: "running", Description: "Review", AgentType: "general-purpose"}},
		Crons: []Cron{{ID: "c1", Schedule: "*/5 * * * *", Prompt: "check"}}}
	in.Key = ""
	if !reflect.DeepEqual(in, want) {
		t.Errorf("got %+v\nwant %+v", in, want)
	}
}

// Background tasks and crons are kept, at most MaxTasks of each; tasks only in the
// state the host's filter takes.
func TestBackground(t *testing.T) {
	var tasks []string
	for i := range MaxTasks + 5 {
		tasks = append(tasks, fmt.Sprintf(`{"id":"t%d","type":"shell","status":"running","command":"sleep %d"}`, i, i))
	}
	tasks = append(tasks, `{"id":"done","status":"completed"}`)
	in, err := DecodeInput(strings.NewReader(`{"hook_event_name":"Stop","session_id":"s","background_tasks":[` + strings.Join(tasks, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Tasks) != MaxTasks {
		t.Errorf("%d tasks kept, want %d", len(in.Tasks), MaxTasks)
	}
	in.Tasks = append(in.Tasks, Task{ID: "done", Status: "completed"}, Task{ID: "a", Status: "running", AgentType: "Explore"})
	got := Background(&in, func(s string) bool { return s == "running" })
	if len(got) != MaxTasks+1 || got[0] != (state.Task{ID: "t0", Kind: "shell", Command: "sleep 0"}) ||
		got[len(got)-1] != (state.Task{ID: "a", Kind: "subagent", Name: "Explore"}) {
		t.Errorf("Background = %+v", got)
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
