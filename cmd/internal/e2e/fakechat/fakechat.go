// Package fakechat is a scripted fake of the OpenAI Chat Completions API (streamed and
// plain answers, a script of text and tool-call turns, a log of every request), for the
// real-CLI suites of the hosts that speak it (Qwen Code, GitHub Copilot CLI). Nothing here is
// used by ralph-loop itself.
package fakechat

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// Call is one tool call of a scripted answer: a function's arguments, or, with Custom, a
// custom (freeform) tool's input, such as apply_patch's patch.
type Call struct {
	Name   string
	Args   map[string]any
	Custom bool
	Input  string
}

// callJSON is a call as the API writes it.
func callJSON(c Call, id string, index int, stream bool) map[string]any {
	m := map[string]any{"id": id}
	if stream {
		m["index"] = index
	}
	if c.Custom {
		m["type"], m["custom"] = "custom", map[string]any{"name": c.Name, "input": c.Input}
		return m
	}
	args, _ := json.Marshal(c.Args)
	m["type"], m["function"] = "function", map[string]any{"name": c.Name, "arguments": string(args)}
	return m
}

// Turn is one scripted answer of the model: text, then tool calls.
type Turn struct {
	Text  string
	Calls []Call
	// Usage is what the answer reports it used (nil: the script's, or DefaultUsage).
	Usage *Usage
}

// Usage is what an answer reports it used, as the Chat Completions API reports it: Prompt
// counts the Cached tokens too.
type Usage struct {
	Prompt, Cached, Completion int
}

// DefaultUsage is what an answer reports when the script says nothing.
var DefaultUsage = Usage{Prompt: 10, Completion: 5}

func (u *Usage) json() map[string]any {
	if u == nil {
		u = &DefaultUsage
	}
	return map[string]any{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached}}
}

// Text is an answer of plain text.
func Text(s string) Turn { return Turn{Text: s} }

// Tool is an answer with optional text, then one call of the named tool.
func Tool(text, name string, args map[string]any) Turn {
	return Turn{Text: text, Calls: []Call{{Name: name, Args: args}}}
}

// Script is what the fake model answers to the agent's requests, in order (see
// fakeserver.Script): "{n}" in WhenDone's text becomes the request's number.
type Script = fakeserver.Script[Turn, Usage]

// Message is one message of a request, its text parts joined.
type Message struct {
	Role       string
	Text       string
	ToolCallID string
	ToolCalls  []string // names
}

// Request is one chat completion request the fake received.
type Request struct {
	Messages []Message
	Tools    int
	Stream   bool
	Raw      []byte
	At       time.Time
}

// Fake is a scripted OpenAI-compatible endpoint on 127.0.0.1; its URL ends in /v1.
type Fake struct {
	fakeserver.Fake[Request, Turn, Usage]
	calls atomic.Int64 // tool calls made, for their ids
}

// StartFake serves script on a free port of 127.0.0.1.
func StartFake(script Script) (*Fake, error) {
	f := &Fake{}
	if err := f.Start(f.serve, "/v1", script); err != nil {
		return nil, err
	}
	return f, nil
}

// Continuations are the user messages the agent got after a blocked stop: the last message
// of each agent request, when it is a user message holding "ralph-loop: iteration" (some
// hosts put a block of their own before it).
func (f *Fake) Continuations() []string {
	var out []string
	for _, r := range f.MainRequests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "user" && strings.Contains(m.Text, "ralph-loop: iteration") {
			out = append(out, m.Text)
		}
	}
	return out
}

// MainRequests are the agent's requests: the ones that offer tools.
func (f *Fake) MainRequests() []Request {
	return f.RequestsWhere(func(r Request) bool { return r.Tools > 0 })
}

type chatRequest struct {
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// text joins a message content: a string, or parts with "text".
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","owned_by":"fake"}]}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		http.Error(w, `{"error":{"message":"fake: no route"}}`, http.StatusNotFound)
		return
	}
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		http.Error(w, `{"error":{"message":"fake: bad json"}}`, http.StatusBadRequest)
		return
	}
	req := Request{Tools: len(cr.Tools), Stream: cr.Stream, Raw: body, At: time.Now()}
	for _, m := range cr.Messages {
		msg := Message{Role: m.Role, Text: text(m.Content), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, c.Function.Name)
		}
		req.Messages = append(req.Messages, msg)
	}
	f.Record(req)
	var t Turn
	if req.Tools == 0 {
		t = Text("{}") // side requests (none seen with the memory agents off)
	} else {
		a := f.Next()
		if a.Over {
			a.Refuse(w, r, `{"error":{"message":"fake: the script allows no more requests","type":"invalid_request_error"}}`)
			return
		}
		t = a.Turn
		if a.Done {
			t.Text = strings.ReplaceAll(t.Text, "{n}", fmt.Sprint(a.N))
		}
		if t.Usage == nil {
			t.Usage = a.Usage
		}
	}
	ids := make([]string, len(t.Calls))
	for i := range ids {
		ids[i] = fmt.Sprintf("call_fake_%d", f.calls.Add(1))
	}
	if !cr.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(completion(t, ids))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, c := range Chunks(t, ids) {
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// Chunks are the streamed chat.completion.chunk objects of an answer: the role, the text
// in two pieces, one delta per tool call (with the given ids), the finish reason, usage.
func Chunks(t Turn, ids []string) []map[string]any {
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	out := []map[string]any{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, p := range fakeserver.Halves(t.Text) {
		out = append(out, chunk(map[string]any{"content": p}, nil))
	}
	for i, c := range t.Calls {
		out = append(out, chunk(map[string]any{"tool_calls": []any{callJSON(c, ids[i], i, true)}}, nil))
	}
	finish := "stop"
	if len(t.Calls) > 0 {
		finish = "tool_calls"
	}
	out = append(out, chunk(map[string]any{}, finish))
	return append(out, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": "fake-model",
		"choices": []any{}, "usage": t.Usage.json()})
}

func completion(t Turn, ids []string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": t.Text}
	finish := "stop"
	if len(t.Calls) > 0 {
		var calls []any
		for i, c := range t.Calls {
			calls = append(calls, callJSON(c, ids[i], i, false))
		}
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   t.Usage.json()}
}
