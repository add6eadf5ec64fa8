package claudeshape

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
)

// maxQueued bounds what is kept of a queued prompt: enough to tell a command.
const maxQueued = 4096

// Scan reads JSONL from r, whose first byte is at offset base of the transcript.
func Scan(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	s := &scanner{
		d:    jsonstream.NewLineReader(r, transcript.BufSize),
		opt:  opt,
		tail: transcript.NewTail(opt.Last),
		m:    promise.NewMatcherMode(opt.Token, opt.Mode),
	}
	res := transcript.Result{Offset: base}
	u := transcript.NewDedup(opt.UsageSeen)
	skipText := opt.SkipToUser
	for {
		res.Skipping = skipText
		var ln lineResult
		more, ok, err := transcript.NextLine(s.d, base, &res, errSkip, func() (err error) { ln, err = s.line(); return err })
		if !more {
			return res, err
		}
		if !ok {
			ln = lineResult{}
		}
		if ln.queueOp != "" {
			res.Queue = append(res.Queue, transcript.QueueOp{Op: ln.queueOp, Content: ln.queued})
		}
		if ln.failedStop {
			res.FailedStops++
		}
		if s.user {
			skipText = false
			s.user = false
		}
		if ln.assistant && !ln.sidechain {
			res.Replies++ // lines, not replies: one reply can take several, but none is none
			late := skipText || opt.SkipToUser && !opt.LateUntil.IsZero() && !ln.ts.IsZero() && !ln.ts.After(opt.LateUntil)
			switch {
			case !transcript.After(ln.ts, opt.TextAfter):
			case late:
				res.LateFound = res.LateFound || ln.found
			default:
				res.Found = res.Found || ln.found
				res.SawLast = res.SawLast || ln.sawLast
				if ln.hasOther && !res.HasOther {
					res.Other, res.HasOther = ln.other, true
				}
			}
			if transcript.After(ln.ts, opt.ToolsAfter) {
				res.ToolIDs = append(res.ToolIDs, ln.tools...)
			}
		}
		// Subagents' replies (sidechain lines) cost too.
		if ln.assistant && ln.hasUsage && transcript.After(ln.ts, opt.ToolsAfter) {
			u.Add(&res, ln.msgID, spend.Record{Model: ln.model, At: ln.ts, Tokens: ln.tokens})
		}
	}
}

// errSkip stops reading a line that cannot be the agent's output.
var errSkip = errors.New("not an assistant line")

type lineResult struct {
	assistant, sidechain bool
	ts                   time.Time
	found, sawLast       bool
	tools                []string
	other                string
	hasOther             bool
	// byRole: a line whose type is "message" (Factory Droid), the agent's when its
	// message's role is assistant (roleAssistant).
	byRole, roleAssistant bool
	// A queue-operation line: its operation and content.
	queue           bool
	queueOp, queued string
	// A system line (system); of a stop's hooks (stop_hook_summary), which are ralph-loop's
	// (ours) and which failed (failed), by index; failedStop: one of ours failed.
	system       bool
	ours, failed []int
	failedStop   bool
	// The model reply's id, model and usage (hasUsage).
	msgID, model string
	tokens       spend.Tokens
	hasUsage     bool
}

type scanner struct {
	d   *jsonstream.Reader
	opt transcript.Options
	m   *promise.Matcher
	ln  lineResult
	// per block
	btype   []byte
	bid     []byte
	hasText bool
	found   bool
	tail    *transcript.Tail // whether the block's text ends opt.Last
	scratch []byte
	// user: the line being read is a user line (a prompt, a tool result, hook feedback).
	user bool
}

// line reads one line. Claude Code writes "type" after "message" on assistant lines, so
// what a line says is only kept once its end shows it is the agent's.
func (s *scanner) line() (lineResult, error) {
	s.ln = lineResult{tools: s.ln.tools[:0], ours: s.ln.ours[:0], failed: s.ln.failed[:0]}
	err := s.d.Object(s.field)
	if err != nil {
		return s.ln, err
	}
	if !s.ln.queue {
		s.ln.queueOp, s.ln.queued = "", ""
	}
	if s.ln.byRole && s.ln.roleAssistant {
		s.ln.assistant = true
	}
	if s.ln.system {
		for _, i := range s.ln.failed {
			if slices.Contains(s.ln.ours, i) {
				s.ln.failedStop = true
			}
		}
	}
	return s.ln, s.d.EndLine()
}

// field reads one field of a line (see line).
func (s *scanner) field(key []byte) error {
	switch string(key) {
	case "type":
		return s.lineType()
	case "operation", "content":
		return s.queueField(key)
	case "timestamp":
		v, err := s.d.String(s.scratch[:0], 64)
		s.scratch = v
		if err != nil {
			return err
		}
		if t, err := time.Parse(time.RFC3339Nano, string(v)); err == nil {
			s.ln.ts = t
		}
		return nil
	case "isSidechain":
		if k, err := s.d.Kind(); err != nil || (k != 't' && k != 'f') {
			return s.d.Skip()
		}
		b, err := s.d.Bool()
		s.ln.sidechain = b
		return err
	case "message":
		return s.message()
	case "attachment", "toolUseResult":
		// Only on attachment and tool-result lines, which can be huge.
		return errSkip
	case "subtype":
		v, err := s.d.String(s.scratch[:0], 32)
		s.scratch = v
		if err == nil && (!s.ln.system || string(v) != "stop_hook_summary") {
			return errSkip
		}
		return err
	case "hookInfos", "failedHookErrorIndexes":
		if !s.ln.system {
			return s.d.Skip()
		}
		return s.hookSummary(string(key))
	}
	return s.d.Skip()
}

// lineType reads a line's "type": an assistant's, a queue operation's, Factory Droid's
// message, a system line (read for a stop's hooks) go on; every other line is skipped.
func (s *scanner) lineType() error {
	v, err := s.d.String(s.scratch[:0], 32)
	s.scratch = v
	if err != nil {
		return err
	}
	switch string(v) {
	case "assistant":
		s.ln.assistant = true
		return nil
	case "queue-operation":
		s.ln.queue = true
		return nil
	case "message":
		// Factory Droid's lines: the message's role says whose it is.
		s.ln.byRole = true
		return nil
	case "user":
		s.user = true
	case "system":
		// Only a stop_hook_summary line is read (see hookSummary).
		s.ln.system = true
		return nil
	}
	return errSkip
}

// queueField reads a queue-operation line's "operation" or "content" (at most maxQueued
// bytes of it).
func (s *scanner) queueField(key []byte) error {
	if k, err := s.d.Kind(); err != nil || k != '"' {
		return s.d.Skip()
	}
	var v []byte
	err := s.d.StringTo(func(p []byte) {
		if n := maxQueued - len(v); n > 0 {
			v = append(v, p[:min(n, len(p))]...)
		}
	})
	if string(key) == "operation" {
		s.ln.queueOp = string(v)
	} else {
		s.ln.queued = string(v)
	}
	return err
}

// HookMark ends every hook command line ralph-loop's install writes (install.Mark).
const HookMark = "# ralph-loop hook"

// hookSummary reads what Claude Code records of a stop's hooks (a system line of subtype
// stop_hook_summary): which of its hooks are ralph-loop's (hookInfos: their commands end
// with HookMark), and which failed (failedHookErrorIndexes: killed, or exited with another
// code than 0 or 2), so that a stop of ralph-loop's that failed (the host let it through
// with no decision) is found.
func (s *scanner) hookSummary(key string) error {
	if ok, err := s.d.Is('['); !ok {
		return err
	}
	i := 0
	return s.d.Array(func() error {
		defer func() { i++ }()
		if key == "failedHookErrorIndexes" {
			v, err := s.d.Number(s.scratch[:0])
			s.scratch = v
			if n, perr := strconv.Atoi(string(v)); err == nil && perr == nil {
				s.ln.failed = append(s.ln.failed, n)
			}
			return err
		}
		if ok, err := s.d.Is('{'); !ok {
			return err
		}
		return s.d.Object(func(k []byte) error {
			if string(k) != "command" {
				return s.d.Skip()
			}
			var cmd string
			if err := s.d.StringVar(&cmd, 8192); err != nil {
				return err
			}
			if strings.HasSuffix(strings.TrimSpace(cmd), HookMark) {
				s.ln.ours = append(s.ln.ours, i)
			}
			return nil
		})
	})
}

// assistantOrSkip reads a "type" or "role" value: errSkip unless it is "assistant".
func (s *scanner) assistantOrSkip() error {
	v, err := s.d.String(s.scratch[:0], 32)
	s.scratch = v
	if err != nil {
		return err
	}
	if string(v) != "assistant" {
		if string(v) == "user" {
			s.user = true
		}
		return errSkip
	}
	s.ln.roleAssistant = true
	return nil
}

func (s *scanner) message() error {
	if ok, err := s.d.Is('{'); !ok {
		return err
	}
	return s.d.Object(func(key []byte) error {
		switch string(key) {
		case "role":
			return s.assistantOrSkip()
		case "id":
			return s.d.StringVar(&s.ln.msgID, 256)
		case "model":
			return s.d.StringVar(&s.ln.model, 256)
		case "usage":
			return s.usage()
		case "content":
			k, err := s.d.Kind()
			if err != nil {
				return err
			}
			switch k {
			case '"':
				s.beginBlock()
				if err := s.text(); err != nil {
					return err
				}
				s.btype = append(s.btype[:0], "text"...)
				s.endBlock()
				return nil
			case '[':
				return s.d.Array(s.block)
			}
		}
		return s.d.Skip()
	})
}

// usage reads a reply's usage: {"input_tokens", "cache_creation_input_tokens",
// "cache_read_input_tokens", "output_tokens", …}.
func (s *scanner) usage() (err error) {
	s.ln.hasUsage, err = transcript.ReadCounts(s.d, s.scratch[:0], map[string]*int64{
		"input_tokens":                &s.ln.tokens.Input,
		"cache_creation_input_tokens": &s.ln.tokens.CacheWrite,
		"cache_read_input_tokens":     &s.ln.tokens.CacheRead,
		"output_tokens":               &s.ln.tokens.Output,
	})
	return err
}

func (s *scanner) beginBlock() {
	s.btype = s.btype[:0]
	s.bid = s.bid[:0]
	s.hasText = false
	s.found = false
	s.m.Reset()
	s.tail.Reset()
}

func (s *scanner) block() error {
	if ok, err := s.d.Is('{'); !ok {
		return err
	}
	s.beginBlock()
	err := s.d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			v, err := s.d.String(s.btype[:0], 32)
			s.btype = v
			return err
		case "id":
			v, err := s.d.String(s.bid[:0], 256)
			s.bid = v
			return err
		case "text":
			if len(s.btype) > 0 && string(s.btype) != "text" {
				return s.d.Skip()
			}
			if ok, err := s.d.Is('"'); !ok {
				return err
			}
			return s.text()
		}
		return s.d.Skip()
	})
	if err != nil {
		return err
	}
	s.endBlock()
	return nil
}

// text streams a text value into the matcher and the tail comparison.
func (s *scanner) text() error {
	s.hasText = true
	err := s.d.StringTo(func(p []byte) {
		s.m.Write(p)
		s.tail.Write(p)
	})
	s.found = s.m.Found()
	if o, ok := s.m.Other(); ok && !s.ln.hasOther {
		s.ln.other, s.ln.hasOther = o, true
	}
	return err
}

func (s *scanner) endBlock() {
	switch string(s.btype) {
	case "text":
		if s.hasText {
			s.ln.found = s.ln.found || s.found
			if s.tail.Ends() {
				s.ln.sawLast = true
			}
		}
	case "tool_use", "server_tool_use":
		if len(s.bid) > 0 {
			s.ln.tools = append(s.ln.tools, string(s.bid))
		}
	}
}
