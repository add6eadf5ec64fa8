// Package codex runs the real Codex CLI, offline, against a scripted fake of the OpenAI
// Responses API, with ralph-loop installed as its hooks by "ralph-loop install --host codex"
// and trusted as Codex itself records trust: the end-to-end tests of the Codex host.
package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// Turn is one scripted answer of the model: its text, a shell command run through Codex's
// shell tool, or both (the text first).
type Turn struct {
	Text  string
	Shell string
	// Patch is a patch the model applies through Codex's apply_patch tool (offered to the
	// models whose catalog entry says so, such as gpt-5.5: see Env.UseModel).
	Patch string
	// Call, when set, is a function call of the model's to a tool Codex offers, by name,
	// with its arguments as JSON (e.g. create_goal).
	Call, Args string
	// Status, when not 0, answers with this HTTP error instead (with retries off, Codex
	// ends the turn on it).
	Status int
	// Delay holds the answer back.
	Delay time.Duration
}

// Usage is what an answer reports it used, as the Responses API reports it: Input counts
// the Cached tokens too.
type Usage struct {
	Input, Cached, Output int
}

// DefaultUsage is what an answer reports when the script says nothing.
var DefaultUsage = Usage{Input: 100, Output: 10}

// Text is a turn of plain text.
func Text(s string) Turn { return Turn{Text: s} }

// Shell is a turn that runs a shell command.
func Shell(command string) Turn { return Turn{Shell: command} }

// Patch is a turn that applies a patch with the apply_patch tool.
func Patch(patch string) Turn { return Turn{Patch: patch} }

// Script is what the fake model answers to the agent's requests, in order (see
// fakeserver.Script); Codex's own requests (titles) use no turn.
type Script = fakeserver.Script[Turn, Usage]

// Request is one agent request the fake received.
type Request struct {
	Index int // 1-based
	Body  json.RawMessage
}

// Item is one input item of a request: a message's role and joined text, or a tool call's
// or its output's text.
type Item struct {
	Type, Role, Text string
}

// Input decodes the request's input items.
func (r Request) Input() []Item {
	var body struct {
		Input []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	var out []Item
	for _, in := range body.Input {
		it := Item{Type: in.Type, Role: in.Role}
		switch in.Type {
		case "message":
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(in.Content, &parts)
			var texts []string
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
			it.Text = strings.Join(texts, "\n")
		case "function_call":
			it.Text = in.Arguments
		case "custom_tool_call_output", "function_call_output":
			var s string
			if json.Unmarshal(in.Output, &s) != nil {
				s = string(in.Output)
			}
			it.Text = s
		}
		out = append(out, it)
	}
	return out
}

// Last is the text of the request's last input item.
func (r Request) Last() Item {
	in := r.Input()
	if len(in) == 0 {
		return Item{}
	}
	return in[len(in)-1]
}

// Fake is a scripted Responses API on 127.0.0.1; its URL ends in /v1.
type Fake struct {
	fakeserver.Fake[Request, Turn, Usage]
}

// NewFake starts a fake model playing script.
func NewFake(script Script) (*Fake, error) {
	f := &Fake{}
	if err := f.Start(f.serve, "/v1", script); err != nil {
		return nil, err
	}
	return f, nil
}

// Requests returns the agent requests received so far.
func (f *Fake) Requests() []Request {
	reqs := f.Fake.Requests()
	for i := range reqs {
		reqs[i].Index = i + 1
	}
	return reqs
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"fake"}]}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses"):
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Name, Type string
		} `json:"tools"`
		Text struct {
			Format struct {
				Type   string `json:"type"`
				Schema struct {
					Properties map[string]any `json:"properties"`
				} `json:"schema"`
			} `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Requests Codex makes on its own (a thread title: no tools, a JSON schema) are
	// answered in the schema's shape and use no turn.
	if len(req.Tools) == 0 && req.Text.Format.Type == "json_schema" {
		obj := map[string]any{}
		for k := range req.Text.Format.Schema.Properties {
			obj[k] = "Fake title"
		}
		b, _ := json.Marshal(obj)
		f.stream(w, req.Model, "resp_side", Turn{Text: string(b)}, nil, DefaultUsage)
		return
	}
	// Every agent request is logged and calls a tool of its own: its call's id is its number.
	idx := f.Record(Request{Body: body})
	a := f.Next()
	if a.Over {
		a.Refuse(w, r, `{"error":{"message":"fake model: scripted error","type":"invalid_request_error"}}`)
		return
	}
	turn := a.Turn
	if turn.Delay > 0 {
		time.Sleep(turn.Delay)
	}
	if turn.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Status)
		io.WriteString(w, `{"error":{"message":"fake model: scripted error","type":"invalid_request_error"}}`)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	used := DefaultUsage
	if a.Usage != nil {
		used = *a.Usage
	}
	f.stream(w, req.Model, fmt.Sprintf("resp_fake_%d", idx), turn, &shellCall{id: fmt.Sprintf("call_fake_%d", idx), tools: tools}, used)
}

type shellCall struct {
	id    string
	tools []string
}

// stream answers with the SSE events Codex reads: the response created, each output item
// added and done (a message's text in two deltas), and the response completed.
func (f *Fake) stream(w http.ResponseWriter, model, rid string, t Turn, sc *shellCall, u Usage) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var events []map[string]any
	events = append(events, map[string]any{"type": "response.created",
		"response": map[string]any{"id": rid, "object": "response", "status": "in_progress", "model": model}})
	out := 0
	if t.Text != "" {
		id := fmt.Sprintf("msg_%s_%d", rid, out)
		events = append(events,
			map[string]any{"type": "response.output_item.added", "output_index": out,
				"item": map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}},
			map[string]any{"type": "response.content_part.added", "item_id": id, "output_index": out, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, chunk := range fakeserver.Halves(t.Text) {
			events = append(events, map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": out,
				"content_index": 0, "delta": chunk})
		}
		events = append(events,
			map[string]any{"type": "response.output_text.done", "item_id": id, "output_index": out, "content_index": 0, "text": t.Text},
			map[string]any{"type": "response.output_item.done", "output_index": out,
				"item": map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
					"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}}})
		out++
	}
	if t.Shell != "" && sc != nil {
		name, args := "exec_command", map[string]any{"cmd": t.Shell}
		for _, n := range sc.tools {
			if n == "exec_command" {
				break
			}
			if n == "shell_command" {
				name, args = n, map[string]any{"command": t.Shell}
			}
		}
		a, _ := json.Marshal(args)
		item := map[string]any{"type": "function_call", "id": "fc_" + sc.id, "call_id": sc.id, "name": name,
			"arguments": string(a), "status": "completed"}
		events = append(events,
			map[string]any{"type": "response.output_item.added", "output_index": out, "item": item},
			map[string]any{"type": "response.output_item.done", "output_index": out, "item": item})
	}
	if t.Call != "" && sc != nil {
		item := map[string]any{"type": "function_call", "id": "fc_" + sc.id, "call_id": sc.id, "name": t.Call,
			"arguments": t.Args, "status": "completed"}
		events = append(events,
			map[string]any{"type": "response.output_item.added", "output_index": out, "item": item},
			map[string]any{"type": "response.output_item.done", "output_index": out, "item": item})
	}
	if t.Patch != "" && sc != nil {
		// apply_patch is a freeform tool: its input is the patch itself.
		item := map[string]any{"type": "custom_tool_call", "id": "ctc_" + sc.id, "call_id": sc.id, "name": "apply_patch",
			"input": t.Patch, "status": "completed"}
		events = append(events,
			map[string]any{"type": "response.output_item.added", "output_index": out, "item": item},
			map[string]any{"type": "response.output_item.done", "output_index": out, "item": item})
	}
	events = append(events, map[string]any{"type": "response.completed", "response": map[string]any{
		"id": rid, "object": "response", "status": "completed", "model": model, "output": []any{},
		"usage": map[string]any{"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": u.Input + u.Output}}})
	fl, _ := w.(http.Flusher)
	for _, ev := range events {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
}
