package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// Block is one content block of a scripted assistant turn.
type Block struct {
	Type  string         `json:"type"` // "text", "thinking" or "tool_use"
	Text  string         `json:"text,omitempty"`
	Name  string         `json:"name,omitempty"`  // tool_use
	Input map[string]any `json:"input,omitempty"` // tool_use
}

// Turn is one scripted answer of the model.
type Turn struct {
	Blocks []Block `json:"blocks"`
	// Delay holds the answer back, to make runs overlap.
	Delay time.Duration `json:"delay,omitempty"`
	// Usage is what the answer reports it used (nil: Script.Usage, or DefaultUsage).
	Usage *Usage `json:"usage,omitempty"`
	// Refuse, when set, is the HTTP status the request is answered with instead (429: a
	// rate limit), with an error of the API's shape whose message is Text's.
	Refuse int `json:"refuse,omitempty"`
}

// RateLimited is a turn the API refuses with HTTP 429 and message msg.
func RateLimited(msg string) Turn {
	return Turn{Refuse: http.StatusTooManyRequests, Blocks: []Block{{Type: "text", Text: msg}}}
}

// Usage is what an answer reports it used, as the Messages API reports it.
type Usage struct {
	Input, CacheWrite, CacheRead, Output int
}

// Total is every token of u.
func (u Usage) Total() int { return u.Input + u.CacheWrite + u.CacheRead + u.Output }

// DefaultUsage is what an answer reports when the script says nothing: a first turn's
// shape, mostly cache reads of the system prompt and tools.
var DefaultUsage = Usage{Input: 100, CacheWrite: 0, CacheRead: 0, Output: 10}

// Text is a turn of plain text.
func Text(s string) Turn { return Turn{Blocks: []Block{{Type: "text", Text: s}}} }

// Tool is a turn with optional text, then one tool call.
func Tool(text, name string, input map[string]any) Turn {
	t := Turn{}
	if text != "" {
		t.Blocks = append(t.Blocks, Block{Type: "text", Text: text})
	}
	t.Blocks = append(t.Blocks, Block{Type: "tool_use", Name: name, Input: input})
	return t
}

// Bash is a turn with optional text, then a Bash tool call.
func Bash(text, command string) Turn {
	return Tool(text, "Bash", map[string]any{"command": command, "description": "run " + command})
}

// Script is what the fake model answers to the agent's requests, in order (see
// fakeserver.Script).
type Script = fakeserver.Script[Turn, Usage]

// Request is one request the fake received.
type Request struct {
	Method, Path string
	Body         json.RawMessage
	Main         bool // an agent-loop request (it consumed a turn)
	Index        int  // 1-based among main requests
}

// Message is a conversation message of a request, with its text blocks joined.
type Message struct {
	Role string
	Text string
}

// Messages decodes the request's messages: text of string contents, text blocks and
// tool_result contents (as "[tool_result] …").
func (r Request) Messages() []Message {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	var out []Message
	for _, m := range body.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, Message{m.Role, s})
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(m.Content, &blocks)
		var parts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "tool_result":
				parts = append(parts, "[tool_result] "+string(b.Content))
			}
		}
		out = append(out, Message{m.Role, strings.Join(parts, "\n")})
	}
	return out
}

// System returns the request's system prompt text.
func (r Request) System() string {
	var body struct {
		System json.RawMessage `json:"system"`
	}
	json.Unmarshal(r.Body, &body)
	var s string
	if json.Unmarshal(body.System, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	json.Unmarshal(body.System, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// Fake is a scripted fake of the Anthropic Messages API on 127.0.0.1.
type Fake struct {
	fakeserver.Fake[Request, Turn, Usage]
}

// coreTools tell the agent loop's requests from Claude Code's side requests (titles,
// summaries), which must not consume the script.
var coreTools = map[string]bool{"Bash": true, "Write": true, "Edit": true, "Read": true, "MultiEdit": true, "Glob": true, "Grep": true}

// StartFake serves script until Close.
func StartFake(script Script) (*Fake, error) {
	if len(script.WhenDone.Blocks) == 0 {
		script.WhenDone = Text("I have nothing more to do.")
	}
	f := &Fake{}
	if err := f.Start(f.serve, "", script); err != nil {
		return nil, fmt.Errorf("fake API: %w", err)
	}
	return f, nil
}

// MainRequests returns the agent-loop requests.
func (f *Fake) MainRequests() []Request {
	return f.RequestsWhere(func(r Request) bool { return r.Main })
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path}
	if json.Valid(body) {
		rec.Body = body
	}
	var req struct {
		Model        string `json:"model"`
		Stream       bool   `json:"stream"`
		Tools        []struct{ Name string }
		OutputConfig struct {
			Format json.RawMessage `json:"format"`
		} `json:"output_config"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" || json.Unmarshal(body, &req) != nil {
		f.Record(rec)
		w.Header().Set("content-type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			fmt.Fprint(w, `{"input_tokens": 100}`)
			return
		}
		fmt.Fprint(w, `{}`)
		return
	}
	main := len(req.OutputConfig.Format) == 0
	if main {
		main = false
		for _, t := range req.Tools {
			main = main || coreTools[t.Name]
		}
	}
	turn := Text("OK")
	used := DefaultUsage
	if main {
		a := f.Next()
		rec.Main, rec.Index = true, a.N
		if a.Over {
			f.Record(rec)
			a.Refuse(w, r, fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":"fake API: request %d is past the script"}}`, a.N))
			return
		}
		turn = a.Turn
		if a.Usage != nil {
			used = *a.Usage
		}
		if turn.Usage != nil {
			used = *turn.Usage
		}
	} else if len(req.OutputConfig.Format) > 0 {
		turn = Text(`{"title":"Fake title"}`)
	}
	f.Record(rec)
	time.Sleep(turn.Delay)
	if turn.Refuse != 0 {
		kind := "api_error"
		if turn.Refuse == http.StatusTooManyRequests {
			kind = "rate_limit_error"
		}
		msg := ""
		if len(turn.Blocks) > 0 {
			msg = turn.Blocks[0].Text
		}
		body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
		w.Header().Set("content-type", "application/json")
		w.Header().Set("x-should-retry", "false")
		w.WriteHeader(turn.Refuse)
		w.Write(body)
		return
	}
	blocks, stop := answer(turn)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	msg := map[string]any{
		"id": newID("msg_"), "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": used.Input, "output_tokens": used.Output, "cache_creation_input_tokens": used.CacheWrite,
			"cache_read_input_tokens": used.CacheRead},
	}
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	// As the API streams it: the input side at the start, with one output token so far;
	// the final counts at the end.
	start["usage"] = map[string]any{"input_tokens": used.Input, "output_tokens": 1, "cache_creation_input_tokens": used.CacheWrite,
		"cache_read_input_tokens": used.CacheRead}
	event(w, "message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range fakeserver.Halves(b["text"].(string)) {
				event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "thinking":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}})
			event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}})
		case "tool_use":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			for _, piece := range fakeserver.Halves(string(in)) {
				event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"input_tokens": used.Input,
		"output_tokens": used.Output, "cache_creation_input_tokens": used.CacheWrite, "cache_read_input_tokens": used.CacheRead}})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

// answer turns a scripted turn into content blocks and a stop reason.
func answer(t Turn) ([]map[string]any, string) {
	var blocks []map[string]any
	stop := "end_turn"
	for _, b := range t.Blocks {
		switch b.Type {
		case "tool_use":
			in := b.Input
			if in == nil {
				in = map[string]any{}
			}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": newID("toolu_"), "name": b.Name, "input": in})
			stop = "tool_use"
		case "thinking":
			blocks = append(blocks, map[string]any{"type": "thinking", "thinking": b.Text, "signature": "fake-signature"})
		default:
			blocks = append(blocks, map[string]any{"type": "text", "text": b.Text})
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": ""})
	}
	return blocks, stop
}

func event(w io.Writer, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
