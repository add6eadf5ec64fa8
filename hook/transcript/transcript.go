// Package transcript reads what the agent wrote in a Claude Code session transcript (or
// Factory Droid's, which has the same messages on lines of type "message") since a given offset: whether its text holds the completion marker, and which tools it called.
//
// A transcript is JSONL and can be huge, with single lines of many megabytes. Scan reads only
// the bytes after the offset, through a fixed buffer: lines that cannot be the agent's output
// (tool results, attachments, the user's prompts, API records) are skipped to the next
// newline without being decoded, and the agent's own text is decoded piece by piece into the
// matcher, never held whole. A malformed line is counted and skipped; only complete lines are
// consumed, so a line still being written is read again next time. One scan reads at most
// MaxRead bytes and never a hole of a sparse file (see ScanWith), so a stop answers in the
// same bounded time whatever the file holds.
package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/usage"
)

// BufSize is the read buffer of a scanner; it bounds the memory a scan uses.
const BufSize = 64 << 10

// Options says what to look for.
type Options struct {
	// Token is the completion promise token, and Mode where its marker counts.
	Token string
	Mode  promise.Mode
	// TextAfter: only assistant text stamped after this time counts (zero: all of it).
	TextAfter time.Time
	// ToolsAfter: only tool calls stamped after this time count (zero: all of them).
	ToolsAfter time.Time
	// Last is the host's last_assistant_message. Result.SawLast reports whether a counted text
	// block equal to its tail has been read, which shows the transcript has caught up.
	Last string
	// SkipToUser: agent text before the first user line does not count (it is the end of
	// an iteration already decided, which reached the file late); a marker in it is
	// reported as Result.LateFound. With LateUntil (when that iteration's stop started),
	// text after a user line is that iteration's too if it is stamped by then: the results
	// of its tool calls may reach the file late as well.
	SkipToUser bool
	LateUntil  time.Time
	// UsageSeen is the id of the last model reply whose usage was counted (see
	// Result.UsageID): more lines of that reply add nothing.
	UsageSeen string
	// Model is the model the session used last, for a host whose usage records do not name
	// theirs (Codex names it once a turn); Result.Model says which it is after the scan.
	Model string
	// Limit stops the scan at this offset (0: at the end of the file as it is when the scan
	// starts). Bytes appended during a scan are left for the next one.
	Limit int64
	// MaxRead bounds the bytes of data the scan reads (0: MaxRead); Deadline, when set,
	// stops it as the bound does if it is still reading then (see Result.Cut).
	MaxRead  int64
	Deadline time.Time
	// InLine: the offset is inside a line too long to read in one scan (Result.InLine):
	// the scan skips to the line's end first, and counts it malformed.
	InLine bool
}

// Result is what one scan found.
type Result struct {
	// Offset is where the next scan starts: after the last complete line read.
	Offset int64
	// Found is true when a counted assistant text block holds the exact marker.
	Found bool
	// ToolIDs are the ids of counted tool_use blocks, in order (one API message can be split
	// over several lines, so an id may repeat).
	ToolIDs []string
	// SawLast: see Options.Last.
	SawLast bool
	// LateFound: the text Options.SkipToUser skipped holds the exact marker (as counted
	// text would: stamped after Options.TextAfter). Skipping: the scan ended still skipping
	// (no user line read), so a scan that goes on from Offset skips too.
	LateFound, Skipping bool
	// Other is the first different token the counted text held in <promise> tags, if
	// HasOther.
	Other    string
	HasOther bool
	// Queue records what the host did with prompts the user typed while the agent was
	// working (it queues them until the turn ends), in order; Queued replays it.
	Queue []QueueOp
	// Lines is the number of complete lines read; Bad the number of them that were skipped
	// as malformed.
	Lines, Bad int
	// Replies is the number of the agent's messages read, for hosts whose stop can come
	// without a model reply (see hook.Facts.StopsWithoutReply); scanners that do not count
	// them leave it 0.
	Replies int
	// Usage are the model's replies' usage records read, each reply once; UsageID is the id
	// of the last one ("" if none or the host gives none), for Options.UsageSeen.
	Usage   []usage.Record
	UsageID string
	// Model: see Options.Model ("" from scanners that do not need it).
	Model string
	// Cut: the scan stopped at Options.MaxRead (or its Deadline) with data left to read;
	// Offset is where the next one goes on. InLine: Offset is inside a line longer than
	// the bound (see Options.InLine).
	Cut, InLine bool
	// Read is the bytes of data read; Holes the bytes of holes skipped (ranges of a sparse
	// file never written, which read as zeros: never the host's).
	Read, Holes int64
}

// Merge adds the result of a later scan (which started at r.Offset) to r.
func (r *Result) Merge(later Result) {
	r.Offset = later.Offset
	r.Found = r.Found || later.Found
	r.ToolIDs = append(r.ToolIDs, later.ToolIDs...)
	r.SawLast = r.SawLast || later.SawLast
	r.LateFound = r.LateFound || later.LateFound
	r.Skipping = later.Skipping
	r.Queue = append(r.Queue, later.Queue...)
	if !r.HasOther && later.HasOther {
		r.Other, r.HasOther = later.Other, true
	}
	r.Lines += later.Lines
	r.Bad += later.Bad
	r.Replies += later.Replies
	r.Usage = append(r.Usage, later.Usage...)
	if later.UsageID != "" {
		r.UsageID = later.UsageID
	}
	if later.Model != "" {
		r.Model = later.Model
	}
	r.Cut, r.InLine = later.Cut, later.InLine
	r.Read += later.Read
	r.Holes += later.Holes
}

// QueueOp is one operation on the host's queue of prompts typed while the agent works.
type QueueOp struct {
	Op      string // "enqueue", "dequeue" (the oldest leaves the queue), "remove", "clear"
	Content string // the prompt (enqueue, remove)
}

// maxQueued bounds what is kept of a queued prompt: enough to tell a command.
const maxQueued = 4096

// Queued returns the prompts still waiting in the host's queue after the operations read,
// oldest first. A prompt submitted as the next turn has left the queue.
func (r Result) Queued() []string {
	var q []string
	for _, op := range r.Queue {
		switch op.Op {
		case "enqueue":
			q = append(q, op.Content)
		case "dequeue":
			if len(q) > 0 {
				q = q[1:]
			}
		case "remove":
			for i, c := range q {
				if c == op.Content {
					q = append(q[:i:i], q[i+1:]...)
					break
				}
			}
		case "clear", "popAll":
			q = nil
		}
	}
	return q
}

// ErrNotRegular is returned for a transcript path that is not a regular file (a directory,
// a FIFO, a device).
var ErrNotRegular = errors.New("transcript is not a regular file")

// Open opens a transcript for reading without blocking on a FIFO and checks that it is a
// regular file. A missing file is reported with fs.ErrNotExist.
func Open(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, fi.Size(), nil
}

// ScanFile scans the transcript at path from offset (see ScanWith).
func ScanFile(path string, offset int64, opt Options) (Result, error) {
	return ScanWith(path, offset, opt, Scan)
}

// Scan reads JSONL from r, whose first byte is at offset base of the transcript.
func Scan(r io.Reader, base int64, opt Options) (Result, error) {
	s := &scanner{
		d:    jsonstream.NewLineReader(r, BufSize),
		opt:  opt,
		last: []byte(opt.Last),
		m:    promise.NewMatcherMode(opt.Token, opt.Mode),
	}
	res := Result{Offset: base}
	u := NewDedup(opt.UsageSeen)
	skipText := opt.SkipToUser
	for {
		res.Skipping = skipText
		if end, err := s.d.AtEnd(); end || err != nil {
			return res, err
		}
		ln, err := s.line()
		switch {
		case err == nil:
		case errors.Is(err, io.ErrUnexpectedEOF):
			// The last line is not complete yet: leave it for the next scan.
			return res, nil
		case errors.Is(err, errSkip):
			if err := s.d.SkipLine(); err != nil {
				return res, nil
			}
			ln = lineResult{}
		default:
			if !IsSyntax(err) {
				return res, err
			}
			if err := s.d.SkipLine(); err != nil {
				return res, nil
			}
			res.Bad++
			ln = lineResult{}
		}
		res.Lines++
		res.Offset = base + s.d.Offset()
		if ln.queueOp != "" {
			res.Queue = append(res.Queue, QueueOp{Op: ln.queueOp, Content: ln.queued})
		}
		if s.user {
			skipText = false
			s.user = false
		}
		if ln.assistant && !ln.sidechain {
			res.Replies++ // lines, not replies: one reply can take several, but none is none
			late := skipText || opt.SkipToUser && !opt.LateUntil.IsZero() && !ln.ts.IsZero() && !ln.ts.After(opt.LateUntil)
			switch {
			case !After(ln.ts, opt.TextAfter):
			case late:
				res.LateFound = res.LateFound || ln.found
			default:
				res.Found = res.Found || ln.found
				res.SawLast = res.SawLast || ln.sawLast
				if ln.hasOther && !res.HasOther {
					res.Other, res.HasOther = ln.other, true
				}
			}
			if After(ln.ts, opt.ToolsAfter) {
				res.ToolIDs = append(res.ToolIDs, ln.tools...)
			}
		}
		// Subagents' replies (sidechain lines) cost too.
		if ln.assistant && ln.hasUsage && After(ln.ts, opt.ToolsAfter) {
			u.Add(&res, ln.msgID, usage.Record{Model: ln.model, At: ln.ts, Tokens: ln.tokens})
		}
	}
}

// Dedup counts each model reply's usage once into a Result. Claude Code writes a reply's
// content blocks on separate lines, each with the reply's id and usage: the reply counts
// once, with the largest output its lines give (a later line was written with more of the
// reply). What a reply read is the same on all its lines: a later line that claims another
// is no line of that reply, and is added with its Doubt set, not merged. A reply's lines may
// be split between two scans: Options.UsageSeen carries the last id over.
type Dedup struct {
	id    string
	at    int // index in Result.Usage of the record of id, or -1 when it was counted before this scan
	first usage.Tokens
}

// NewDedup starts counting after the reply seen (Options.UsageSeen).
func NewDedup(seen string) *Dedup { return &Dedup{id: seen, at: -1} }

// Add counts r, the usage of the reply id ("" when the host gives replies no id), unless it
// was counted already.
func (u *Dedup) Add(res *Result, id string, r usage.Record) {
	r.ID = id
	if id != "" && id == u.id {
		if u.at < 0 {
			return
		}
		f := u.first
		if r.Input != f.Input || r.CacheWrite != f.CacheWrite || r.CacheRead != f.CacheRead {
			r.Doubt = fmt.Sprintf("%s claims %s tokens read on a later line, %s on its first", r.Name(), usage.Count(r.Read()), usage.Count(f.Read()))
			res.Usage = append(res.Usage, r)
			return
		}
		p := &res.Usage[u.at]
		p.Output = max(p.Output, r.Output)
		return
	}
	res.Usage = append(res.Usage, r)
	u.id, u.at, u.first = id, len(res.Usage)-1, r.Tokens
	res.UsageID = id
}

// IsSyntax reports whether err says a line is not JSON a scanner can read (it is then
// counted malformed and skipped).
func IsSyntax(err error) bool {
	return errors.Is(err, jsonstream.ErrSyntax) || errors.Is(err, jsonstream.ErrLineEnd) || errors.Is(err, jsonstream.ErrTooDeep)
}

// After reports whether a line stamped ts counts for a window starting at start. Lines
// without a readable stamp count: they are past the offset, so they are new.
func After(ts, start time.Time) bool {
	return start.IsZero() || ts.IsZero() || ts.After(start)
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
	// The model reply's id, model and usage (hasUsage).
	msgID, model string
	tokens       usage.Tokens
	hasUsage     bool
}

type scanner struct {
	d    *jsonstream.Reader
	opt  Options
	last []byte
	m    *promise.Matcher
	ln   lineResult
	// per block
	btype   []byte
	bid     []byte
	hasText bool
	found   bool
	tail    []byte // the block's text while it can still be a suffix of opt.Last
	tailOK  bool
	scratch []byte
	// user: the line being read is a user line (a prompt, a tool result, hook feedback).
	user bool
}

// line reads one line. Claude Code writes "type" after "message" on assistant lines, so
// what a line says is only kept once its end shows it is the agent's.
func (s *scanner) line() (lineResult, error) {
	s.ln = lineResult{tools: s.ln.tools[:0]}
	err := s.d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
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
			}
			return errSkip
		case "operation", "content":
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
		}
		return s.d.Skip()
	})
	if err != nil {
		return s.ln, err
	}
	if !s.ln.queue {
		s.ln.queueOp, s.ln.queued = "", ""
	}
	if s.ln.byRole && s.ln.roleAssistant {
		s.ln.assistant = true
	}
	return s.ln, s.d.EndLine()
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
	if k, err := s.d.Kind(); err != nil || k != '{' {
		if err != nil {
			return err
		}
		return s.d.Skip()
	}
	return s.d.Object(func(key []byte) error {
		switch string(key) {
		case "role":
			return s.assistantOrSkip()
		case "id", "model":
			if k, err := s.d.Kind(); err != nil || k != '"' {
				return s.d.Skip()
			}
			v, err := s.d.String(s.scratch[:0], 256)
			s.scratch = v
			if string(key) == "id" {
				s.ln.msgID = string(v)
			} else {
				s.ln.model = string(v)
			}
			return err
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
func (s *scanner) usage() error {
	if k, err := s.d.Kind(); err != nil || k != '{' {
		if err != nil {
			return err
		}
		return s.d.Skip()
	}
	s.ln.hasUsage = true
	return ReadCounts(s.d, s.scratch[:0], map[string]*int64{
		"input_tokens":                &s.ln.tokens.Input,
		"cache_creation_input_tokens": &s.ln.tokens.CacheWrite,
		"cache_read_input_tokens":     &s.ln.tokens.CacheRead,
		"output_tokens":               &s.ln.tokens.Output,
	})
}

// ReadCounts reads an object of token counts (the reader at its '{'): each key of fields
// gets its count (see ReadCount), every other key is skipped. Every host's usage record is
// read so.
func ReadCounts(d *jsonstream.Reader, buf []byte, fields map[string]*int64) error {
	return d.Object(func(key []byte) error {
		dst, ok := fields[string(key)]
		if !ok {
			return d.Skip()
		}
		n, err := ReadCount(d, buf)
		*dst = n
		return err
	})
}

// ReadCount reads a token count: a non-negative whole number (anything else, a float, a
// string, a negative or a huge number, counts 0 and is skipped).
func ReadCount(d *jsonstream.Reader, buf []byte) (int64, error) {
	if k, err := d.Kind(); err != nil || (k != '-' && (k < '0' || k > '9')) {
		if err != nil {
			return 0, err
		}
		return 0, d.Skip()
	}
	v, err := d.Number(buf)
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(string(v), 10, 64)
	if perr != nil || n < 0 || n > usage.MaxCount {
		return 0, nil
	}
	return n, nil
}

func (s *scanner) beginBlock() {
	s.btype = s.btype[:0]
	s.bid = s.bid[:0]
	s.hasText = false
	s.found = false
	s.m.Reset()
	s.tail = s.tail[:0]
	s.tailOK = len(s.last) > 0
}

func (s *scanner) block() error {
	if k, err := s.d.Kind(); err != nil || k != '{' {
		if err != nil {
			return err
		}
		return s.d.Skip()
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
			if k, err := s.d.Kind(); err != nil || k != '"' {
				if err != nil {
					return err
				}
				return s.d.Skip()
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
		if s.tailOK {
			if len(s.tail)+len(p) > len(s.last) {
				s.tailOK = false
				return
			}
			s.tail = append(s.tail, p...)
		}
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
			if s.tailOK && len(s.tail) > 0 && bytes.HasSuffix(s.last, s.tail) {
				s.ln.sawLast = true
			}
		}
	case "tool_use", "server_tool_use":
		if len(s.bid) > 0 {
			s.ln.tools = append(s.ln.tools, string(s.bid))
		}
	}
}
