package gemini

import (
	"errors"
	"io"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Transcript reads Gemini CLI's chat files (~/.gemini/tmp/<project>/chats/session-*.jsonl).
//
// The file is JSONL, appended to: a metadata line, then one line per message record
// ({"id","timestamp","type":"user"|"gemini","content",…}); a record that changes (its tool
// calls, its token counts) is appended again with the same id. Lines {"$set":{…}} update
// the metadata, and {"$set":{"messages":[…]}} replaces the whole history (after a loop
// detection, a compression): those are never the agent's new output and are skipped
// undecoded. {"$rewindTo":id} drops messages. Only "gemini" records count: their content
// is the model's text (user records hold the prompts, the hook's continuations and tool
// results), "model" the model and "tokens" {"input" (cached ones included), "cached",
// "output", "thoughts", "tool", "total"} what it used.
var Transcript = transcript.Reader(Scan)

// errSkip stops reading a line that cannot be the agent's output.
var errSkip = errors.New("not a message record")

// Scan reads a chat file's lines from r, whose first byte is at offset base. Result.Replies
// counts the model's records read; ToolIDs is left empty (tool calls are counted from
// AfterTool).
func Scan(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	s := &scanner{d: jsonstream.NewLineReader(r, transcript.BufSize), m: promise.NewMatcherMode(opt.Token, opt.Mode)}
	res := transcript.Result{Offset: base}
	u := transcript.NewDedup(opt.UsageSeen)
	for {
		var ln line
		more, ok, err := transcript.NextLine(s.d, base, &res, errSkip, func() (err error) { ln, err = s.line(); return err })
		if !more {
			return res, err
		}
		if !ok {
			ln = line{}
		}
		if ln.gemini && ln.hasTokens && transcript.After(ln.ts, opt.ToolsAfter) {
			// A record appended again with more tokens counts once, with the most.
			u.Add(&res, ln.id, spend.Record{Model: ln.model, At: ln.ts, Tokens: spend.Tokens{
				Input: max(0, ln.input-ln.cached) + ln.tool, CacheRead: ln.cached, Output: ln.output + ln.thoughts}})
		}
		if !ln.gemini || !transcript.After(ln.ts, opt.TextAfter) {
			continue
		}
		res.Replies++
		res.Found = res.Found || ln.found
		if ln.hasOther && !res.HasOther {
			res.Other, res.HasOther = ln.other, true
		}
	}
}

type line struct {
	id, model string
	// tokens
	input, cached, output, thoughts, tool int64
	hasTokens                             bool

	gemini   bool
	ts       time.Time
	found    bool
	other    string
	hasOther bool
}

type scanner struct {
	d       *jsonstream.Reader
	m       *promise.Matcher
	ln      line
	scratch []byte
}

// line reads one line. The record's type may come after its content, so what the content
// says is kept until the end of the line shows whose it is.
func (s *scanner) line() (line, error) {
	s.ln = line{}
	err := s.d.Object(func(key []byte) error {
		switch string(key) {
		case "$set", "$rewindTo", "sessionId":
			return errSkip
		case "type":
			v, err := s.d.String(s.scratch[:0], 32)
			s.scratch = v
			if err != nil {
				return err
			}
			if string(v) != "gemini" {
				return errSkip
			}
			s.ln.gemini = true
			return nil
		case "timestamp":
			return transcript.ReadTime(s.d, &s.ln.ts)
		case "content":
			return s.content()
		case "id":
			return s.d.StringVar(&s.ln.id, 256)
		case "model":
			return s.d.StringVar(&s.ln.model, 256)
		case "tokens":
			return s.tokens()
		}
		return s.d.Skip()
	})
	if err != nil {
		return s.ln, err
	}
	return s.ln, s.d.EndLine()
}

// tokens reads a record's token counts.
func (s *scanner) tokens() (err error) {
	s.ln.hasTokens, err = transcript.ReadCounts(s.d, s.scratch[:0], map[string]*int64{
		"input":    &s.ln.input,
		"cached":   &s.ln.cached,
		"output":   &s.ln.output,
		"thoughts": &s.ln.thoughts,
		"tool":     &s.ln.tool,
	})
	return err
}

// content reads a record's content: a string, or an array of parts whose "text" counts
// .
func (s *scanner) content() error {
	k, err := s.d.Kind()
	if err != nil {
		return err
	}
	switch k {
	case '"':
		return s.text()
	case '[':
		return s.d.Array(func() error {
			if ok, err := s.d.Is('{'); !ok {
				return err
			}
			return s.d.Object(func(key []byte) error {
				if string(key) != "text" {
					return s.d.Skip()
				}
				if ok, err := s.d.Is('"'); !ok {
					return err
				}
				return s.text()
			})
		})
	}
	return s.d.Skip()
}

// text streams one text value into the matcher.
func (s *scanner) text() error {
	s.m.Reset()
	err := s.d.StringTo(func(p []byte) { s.m.Write(p) })
	s.ln.found = s.ln.found || s.m.Found()
	if o, ok := s.m.Other(); ok && !s.ln.hasOther {
		s.ln.other, s.ln.hasOther = o, true
	}
	return err
}
