package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const mainReq = `{"model":"m","stream":%s,"tools":[{"name":"Bash"}],"messages":[
	{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"env"}]},
	{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"out"},{"type":"text","text":"Stop hook feedback:\nagain"}]}]}`

func TestFakeScriptOrderAndLog(t *testing.T) {
	f, err := StartFake(Script{Turns: []Turn{Bash("run", "ls"), Text("done")}, WhenDone: Text("again"), MaxMain: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// Plain JSON answers.
	var msg struct {
		Content []struct {
			Type, Text, Name, ID string
			Input                map[string]any
		}
		StopReason string `json:"stop_reason"`
	}
	json.NewDecoder(post(t, f.URL+"/v1/messages?beta=true", strings.Replace(mainReq, "%s", "false", 1)).Body).Decode(&msg)
	if msg.StopReason != "tool_use" || len(msg.Content) != 2 || msg.Content[1].Name != "Bash" || msg.Content[1].Input["command"] != "ls" ||
		!strings.HasPrefix(msg.Content[1].ID, "toolu_") {
		t.Fatalf("first answer %+v", msg)
	}

	// Streaming answers: the deltas join into the scripted text.
	resp := post(t, f.URL+"/v1/messages", strings.Replace(mainReq, "%s", "true", 1))
	if ct := resp.Header.Get("content-type"); ct != "text/event-stream" {
		t.Fatalf("content-type %q", ct)
	}
	var events []string
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, ev)
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var d struct{ Delta struct{ Text string } }
			json.Unmarshal([]byte(data), &d)
			text.WriteString(d.Delta.Text)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(events, " ") != want || text.String() != "done" {
		t.Fatalf("events %q text %q", events, text.String())
	}

	// Side requests (no core tools, or structured output) do not consume the script.
	post(t, f.URL+"/v1/messages", `{"model":"m","messages":[]}`)
	post(t, f.URL+"/v1/messages", `{"model":"m","tools":[{"name":"Bash"}],"output_config":{"format":{"type":"json_schema"}},"messages":[]}`)
	// After the turns, WhenDone; past MaxMain, HTTP 400.
	json.NewDecoder(post(t, f.URL+"/v1/messages", strings.Replace(mainReq, "%s", "false", 1)).Body).Decode(&msg)
	if msg.Content[0].Text != "again" {
		t.Fatalf("third answer %+v", msg)
	}
	if resp := post(t, f.URL+"/v1/messages", strings.Replace(mainReq, "%s", "false", 1)); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("past MaxMain: %d", resp.StatusCode)
	}
	// Anything else: {}.
	var empty map[string]any
	json.NewDecoder(post(t, f.URL+"/api/whatever", `{}`).Body).Decode(&empty)
	if len(empty) != 0 {
		t.Fatalf("unknown path answered %v", empty)
	}

	reqs := f.MainRequests()
	if len(reqs) != 4 || reqs[0].Index != 1 || reqs[3].Index != 4 || len(f.Requests()) != 7 {
		t.Fatalf("%d main requests, %d in all", len(reqs), len(f.Requests()))
	}
	msgs := reqs[0].Messages()
	if len(msgs) != 4 || msgs[1].Role != "system" || msgs[1].Text != "env" || !strings.Contains(msgs[3].Text, "[tool_result] \"out\"") {
		t.Fatalf("messages %+v", msgs)
	}
	r := &Result{Fake: f}
	if fb := r.Feedback(); len(fb) != 1 || fb[0] != "again" {
		t.Fatalf("feedback %q", fb)
	}
}
