package codex

import (
	"errors"
	"io"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Codex's transcript is its rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-…jsonl):
// one {"timestamp", "type", "payload"} object per line. What the model said and did is in
// the "response_item" lines: payload {"type": "message", "role": "assistant", "content":
// [{"type": "output_text", "text"}]} for its text, {"type": "function_call" |
// "custom_tool_call" | "local_shell_call", "call_id"} for its tool calls. The user's
// prompts and the stop hook's continuations are "message" items with role "user". What the
// model used is in "token_usage_record" lines, one per model response (payload
// {"response_id", "usage": {"input_tokens" (cached ones included), "cached_input_tokens",
// "cache_write_input_tokens", "output_tokens" (reasoning included)}}), subagents' too; the
// model is named by the turn's "turn_context" line (payload "model"). Every other line
// (events, tool outputs, which can be huge) is skipped unread.

// Scan reads rollout lines from r, whose first byte is at offset base of the file. Only
// complete lines are consumed; a malformed line is counted and skipped.
func Scan(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	s := &scanner{d: jsonstream.NewLineReader(r, transcript.BufSize), opt: opt, tail: transcript.NewTail(opt.Last),
		m: promise.NewMatcherMode(opt.Token, opt.Mode)}
	res := transcript.Result{Offset: base, Model: opt.Model}
	u := transcript.NewDedup(opt.UsageSeen)
	skipText := opt.SkipToUser
	for {
		var ln rolloutLine
		more, ok, err := transcript.NextLine(s.d, base, &res, errSkip, func() (err error) { ln, err = s.line(); return err })
		if !more {
			return res, err
		}
		if !ok {
			ln = rolloutLine{}
		}
		switch ln.kind {
		case kindContext:
			if ln.model != "" {
				res.Model = ln.model
			}
			continue
		case kindUsage:
			if ln.hasUsage && transcript.After(ln.ts, opt.ToolsAfter) {
				t := ln.tokens
				// Input counts the cached tokens (read or written) too.
				t.Input = max(0, t.Input-t.CacheRead-t.CacheWrite)
				u.Add(&res, ln.response, spend.Record{Model: res.Model, At: ln.ts, Tokens: t})
			}
			continue
		}
		if ln.item != "message" && ln.call == "" {
			continue
		}
		switch ln.role {
		case "user":
			skipText = false
		case "assistant":
			if transcript.After(ln.ts, opt.TextAfter) && !skipText {
				res.Found = res.Found || ln.found
				res.SawLast = res.SawLast || ln.sawLast
				if ln.hasOther && !res.HasOther {
					res.Other, res.HasOther = ln.other, true
				}
			}
		}
		if ln.call != "" && transcript.After(ln.ts, opt.ToolsAfter) {
			res.ToolIDs = append(res.ToolIDs, ln.call)
		}
	}
}

// errSkip stops reading a line that cannot be the model's output.
var errSkip = errors.New("not a response item")

// Kinds of lines read.
const (
	kindItem    = iota + 1 // response_item
	kindUsage              // token_usage_record
	kindContext            // turn_context
)

// rolloutLine is what one line says.
type rolloutLine struct {
	kind int
	ts   time.Time
	// Of a token_usage_record: the response and what it used; of a turn_context: the model.
	response   string
	tokens     spend.Tokens
	hasUsage   bool
	model      string
	item, role string
	call       string // a tool call's id
	// Of its text, when it is a message: the marker found, the host's last message seen.
	found, sawLast bool
	other          string
	hasOther       bool
}

type scanner struct {
	d       *jsonstream.Reader
	opt     transcript.Options
	m       *promise.Matcher
	ln      rolloutLine
	scratch []byte
	tail    *transcript.Tail // whether a block's text ends opt.Last
}

// line reads one line. Keys are read in any order: a message's text is matched as it
// streams by and kept only if the line turns out to be the assistant's.
func (s *scanner) line() (rolloutLine, error) {
	s.ln = rolloutLine{}
	err := s.d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			v, err := s.str(32)
			if err != nil {
				return err
			}
			switch string(v) {
			case "response_item":
				s.ln.kind = kindItem
			case "token_usage_record":
				s.ln.kind = kindUsage
			case "turn_context":
				s.ln.kind = kindContext
			default:
				return errSkip
			}
			return nil
		case "timestamp":
			return transcript.ReadTime(s.d, &s.ln.ts)
		case "payload":
			if ok, err := s.d.Is('{'); !ok {
				return err
			}
			switch s.ln.kind {
			case kindUsage, kindContext:
				return s.usagePayload()
			}
			return s.payload()
		}
		return s.d.Skip()
	})
	if err != nil {
		return s.ln, err
	}
	switch s.ln.kind {
	case kindItem:
	case kindUsage, kindContext:
		s.ln = rolloutLine{kind: s.ln.kind, ts: s.ln.ts, response: s.ln.response, tokens: s.ln.tokens, hasUsage: s.ln.hasUsage, model: s.ln.model}
	default:
		s.ln = rolloutLine{ts: s.ln.ts}
	}
	if s.ln.item != "function_call" && s.ln.item != "custom_tool_call" && s.ln.item != "local_shell_call" {
		s.ln.call = ""
	}
	return s.ln, s.d.EndLine()
}

// str reads a string value of at most limit bytes (a value of another kind is skipped).
func (s *scanner) str(limit int) ([]byte, error) {
	v, err := s.d.OptString(s.scratch[:0], limit)
	s.scratch = v
	return v, err
}

func (s *scanner) payload() error {
	return s.d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			v, err := s.str(64)
			if err != nil {
				return err
			}
			s.ln.item = string(v)
			switch s.ln.item {
			case "message", "function_call", "custom_tool_call", "local_shell_call":
				return nil
			}
			return errSkip // reasoning, tool outputs, …
		case "role":
			v, err := s.str(32)
			if err != nil {
				return err
			}
			s.ln.role = string(v)
			if s.ln.role != "assistant" && s.ln.role != "user" {
				return errSkip
			}
			return nil
		case "call_id":
			return s.d.StringVar(&s.ln.call, 256)
		case "content":
			if k, err := s.d.Kind(); err != nil || k != '[' || s.ln.role == "user" {
				if err != nil {
					return err
				}
				return s.d.Skip()
			}
			return s.d.Array(s.block)
		}
		return s.d.Skip()
	})
}

// usagePayload reads a token_usage_record's or a turn_context's payload: the response id
// and its usage, or the model.
func (s *scanner) usagePayload() error {
	return s.d.Object(func(key []byte) error {
		switch string(key) {
		case "model":
			if s.ln.kind != kindContext {
				return s.d.Skip()
			}
			return s.d.StringVar(&s.ln.model, 256)
		case "response_id":
			if s.ln.kind != kindUsage {
				return s.d.Skip()
			}
			return s.d.StringVar(&s.ln.response, 256)
		case "usage":
			if s.ln.kind != kindUsage {
				return s.d.Skip()
			}
			var err error
			s.ln.hasUsage, err = transcript.ReadCounts(s.d, s.scratch[:0], map[string]*int64{
				"input_tokens":             &s.ln.tokens.Input,
				"cached_input_tokens":      &s.ln.tokens.CacheRead,
				"cache_write_input_tokens": &s.ln.tokens.CacheWrite,
				"output_tokens":            &s.ln.tokens.Output,
			})
			return err
		}
		return s.d.Skip()
	})
}

// block reads one content block, matching its text.
func (s *scanner) block() error {
	if ok, err := s.d.Is('{'); !ok {
		return err
	}
	s.m.Reset()
	s.tail.Reset()
	isText, hasText := true, false
	err := s.d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			v, err := s.str(32)
			if err != nil {
				return err
			}
			isText = string(v) == "output_text" || string(v) == "text"
			return nil
		case "text":
			if !isText {
				return s.d.Skip()
			}
			if ok, err := s.d.Is('"'); !ok {
				return err
			}
			hasText = true
			return s.d.StringTo(func(p []byte) {
				s.m.Write(p)
				s.tail.Write(p)
			})
		}
		return s.d.Skip()
	})
	if err != nil || !hasText || !isText {
		return err
	}
	s.ln.found = s.ln.found || s.m.Found()
	if o, ok := s.m.Other(); ok && !s.ln.hasOther {
		s.ln.other, s.ln.hasOther = o, true
	}
	if s.tail.Ends() {
		s.ln.sawLast = true
	}
	return nil
}
