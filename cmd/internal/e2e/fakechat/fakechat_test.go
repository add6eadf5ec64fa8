package fakechat

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The fake streams an answer as the hosts read it: text in pieces that join to the whole,
// tool calls with their ids, a finish reason, then [DONE]; past MaxMain it answers 400.
func TestFakeStreams(t *testing.T) {
	f, err := StartFake(Script{Turns: []Turn{Tool("Let me do it.", "run_shell_command", map[string]any{"command": "echo hi > x.txt"})}, WhenDone: Text("turn {n} ü"), MaxMain: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	post := func() (string, []string, string, int) {
		resp, err := http.Post(f.URL+"/chat/completions", "application/json",
			strings.NewReader(`{"stream":true,"tools":[{"type":"function"}],"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var text strings.Builder
		var calls []string
		finish, done := "", false
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if line == "[DONE]" {
				done = true
				continue
			}
			var c struct {
				Choices []struct {
					Delta struct {
						Content   string
						ToolCalls []struct {
							ID       string
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					}
					FinishReason *string `json:"finish_reason"`
				}
			}
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatal(err)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
				for _, tc := range ch.Delta.ToolCalls {
					calls = append(calls, tc.ID+" "+tc.Function.Name+" "+tc.Function.Arguments)
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
		}
		if resp.StatusCode == 200 && !done {
			t.Error("no [DONE]")
		}
		return text.String(), calls, finish, resp.StatusCode
	}
	if text, calls, finish, _ := post(); text != "Let me do it." || len(calls) != 1 || calls[0] != `call_fake_1 run_shell_command {"command":"echo hi \u003e x.txt"}` || finish != "tool_calls" {
		t.Errorf("first answer: %q %q %q", text, calls, finish)
	}
	if text, calls, finish, _ := post(); text != "turn 2 ü" || calls != nil || finish != "stop" {
		t.Errorf("second answer: %q %q %q", text, calls, finish)
	}
	if _, _, _, code := post(); code != http.StatusBadRequest {
		t.Errorf("past MaxMain: HTTP %d, want 400", code)
	}
	if r := f.MainRequests(); len(r) != 3 || r[0].Messages[0].Text != "a\nb" {
		t.Errorf("recorded %+v", r)
	}
}
