// Package gemini runs the real Gemini CLI, offline, against a scripted fake of the Gemini
// API, with ralph-loop installed as its hooks by "ralph-loop install --host gemini". Nothing
// here is used by ralph-loop itself.
package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakeserver"
)

// Call is one function call the fake model makes.
type Call struct {
	Name string
	Args map[string]any
}

// Turn is one answer of the fake model: text, then function calls.
type Turn struct {
	Text  string
	Calls []Call
}

// Say is a turn of text only.
func Say(s string) Turn { return Turn{Text: s} }

// Shell is a turn that runs a shell command, with text before it.
func Shell(text, command string) Turn {
	return Turn{Text: text, Calls: []Call{{Name: "run_shell_command", Args: map[string]any{"command": command}}}}
}

// Script is what the fake model answers: Turns in order to the requests that offer tools
// (the agent's), then After (with "{n}" replaced by the request's number, so that repeated
// answers differ unless Same). Requests without tools (Gemini CLI's side questions: is this
// a loop, who speaks next) get "{}".
type Script struct {
	Turns []Turn
	After *Turn
	Same  bool
	// HoldFrom, when > 0, is the first agent request that gets no answer: it is held open
	// until the client goes away (a run killed while the model "thinks").
	HoldFrom int
	// Usage is what the agent's requests' answers report (nil: DefaultUsage); the CLI's own
	// requests report DefaultUsage.
	Usage *Usage
}

// Usage is what an answer reports it used, as the Gemini API reports it: Prompt counts the
// Cached tokens too.
type Usage struct {
	Prompt, Cached, Candidates, Thoughts int
}

// DefaultUsage is what an answer reports when the script says nothing.
var DefaultUsage = Usage{Prompt: 10, Candidates: 5}

// Request is one request the fake received.
type Request struct {
	Path string
	Main bool // it offered tools
	Body []byte
	// Contents are the request's messages: role and the text of their parts.
	Contents []Content
}

// Content is one message of a request.
type Content struct {
	Role string
	Text string
}

// LastUser is the text of the request's last user message.
func (r Request) LastUser() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if r.Contents[i].Role == "user" && r.Contents[i].Text != "" {
			return r.Contents[i].Text
		}
	}
	return ""
}

// Fake is a running fake of the Gemini API on 127.0.0.1.
type Fake struct {
	*fakeserver.Server
	reqs   fakeserver.Log[Request]
	mu     sync.Mutex
	script Script
	next   int
	main   int
}

// StartFake starts a fake that answers with script.
func StartFake(script Script) (*Fake, error) {
	f := &Fake{script: script}
	var err error
	if f.Server, err = fakeserver.Start(f.serve, ""); err != nil {
		return nil, err
	}
	return f, nil
}

// Requests returns every request so far.
func (f *Fake) Requests() []Request { return f.reqs.All() }

// MainRequests returns the agent's requests (those that offered tools).
func (f *Fake) MainRequests() []Request {
	return f.reqs.Where(func(r Request) bool { return r.Main })
}

var route = regexp.MustCompile(`/models/([^/:]+):(streamGenerateContent|generateContent|countTokens)$`)

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m := route.FindStringSubmatch(r.URL.Path)
	if m == nil || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"code":404,"message":"fake: no route","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	model := m[1]
	if m[2] == "countTokens" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4+1)
		return
	}
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	rec := Request{Path: r.URL.Path, Body: body}
	for _, t := range req.Tools {
		rec.Main = rec.Main || len(t.FunctionDeclarations) > 0
	}
	for _, c := range req.Contents {
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		rec.Contents = append(rec.Contents, Content{Role: c.Role, Text: b.String()})
	}
	turn := Say("{}")
	used := DefaultUsage
	f.reqs.Add(rec)
	f.mu.Lock()
	if rec.Main {
		if f.script.Usage != nil {
			used = *f.script.Usage
		}
		f.main++
		if f.script.HoldFrom > 0 && f.main >= f.script.HoldFrom {
			f.mu.Unlock()
			<-r.Context().Done()
			return
		}
		switch {
		case f.next < len(f.script.Turns):
			turn = f.script.Turns[f.next]
			f.next++
		case f.script.After != nil:
			turn = *f.script.After
			if !f.script.Same {
				turn.Text = strings.ReplaceAll(turn.Text, "{n}", fmt.Sprint(f.main))
			}
		default:
			turn = Say("SCRIPT EXHAUSTED")
		}
	}
	f.mu.Unlock()
	if rec.Main {
		time.Sleep(fakeserver.AnswerTime)
	}
	chunks := chunksOf(turn, model, used)
	if m[2] == "generateContent" {
		var parts []any
		for _, c := range chunks {
			parts = append(parts, c["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)...)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0}}, "usageMetadata": used.json(), "modelVersion": model})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

func (u Usage) json() map[string]any {
	return map[string]any{"promptTokenCount": u.Prompt, "cachedContentTokenCount": u.Cached, "candidatesTokenCount": u.Candidates,
		"thoughtsTokenCount": u.Thoughts, "totalTokenCount": u.Prompt + u.Candidates + u.Thoughts}
}

// chunksOf streams a turn as Gemini does: the text in two pieces, then the function calls;
// the last chunk carries the finish reason and the usage.
func chunksOf(t Turn, model string, used Usage) []map[string]any {
	chunk := func(parts ...any) map[string]any {
		return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}}, "modelVersion": model}
	}
	var out []map[string]any
	for _, p := range fakeserver.Halves(t.Text) {
		out = append(out, chunk(map[string]any{"text": p}))
	}
	if len(t.Calls) > 0 {
		var parts []any
		for _, c := range t.Calls {
			args := c.Args
			if args == nil {
				args = map[string]any{}
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
		}
		out = append(out, chunk(parts...))
	}
	if len(out) == 0 {
		out = append(out, chunk(map[string]any{"text": ""}))
	}
	last := out[len(out)-1]
	last["candidates"].([]any)[0].(map[string]any)["finishReason"] = "STOP"
	last["usageMetadata"] = used.json()
	return out
}
