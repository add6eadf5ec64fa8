// Package transcript is the kit every host's transcript reader is built from: what a scan
// looks for (Options) and found (Result), the bounded reading of a file from an offset
// (ScanWith), finding where a time's lines start (OffsetAfter), the usage of replies counted
// once (Dedup), what becomes of each line a scanner reads (NextLine), whether a text ends the
// host's last message (Tail), and Reader, which makes a host's line scanner a transcript
// reader.
//
// A transcript is JSONL and can be huge, with single lines of many megabytes. A scanner reads
// only the bytes after the offset, through a fixed buffer (BufSize): lines that cannot be the
// agent's output are skipped to the next newline without being decoded, and the agent's own
// text is decoded piece by piece into the matcher, never held whole. A malformed line is
// counted and skipped; only complete lines are consumed, so a line still being written is
// read again next time. One scan reads at most MaxRead bytes and never a hole of a sparse
// file (see ScanWith), so a stop answers in the same bounded time whatever the file holds.
package transcript

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
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
	// FailedStops counts the stops whose hook of ralph-loop's the host recorded as failed
	// (killed, or exited with an error): the host let them through with no decision.
	FailedStops int
	// Queue records what the host did with prompts the user typed while the agent was
	// working (it queues them until the turn ends), in order; Queued replays it.
	Queue []QueueOp
	// Lines is the number of complete lines read; Bad the number of them that were skipped
	// as malformed.
	Lines, Bad int
	// Replies is the number of the agent's messages read, for hosts whose stop can come
	// without a model reply (see hook.Transcript.StopsWithoutReply); scanners that do not count
	// them leave it 0.
	Replies int
	// Usage are the model's replies' usage records read, each reply once; UsageID is the id
	// of the last one ("" if none or the host gives none), for Options.UsageSeen.
	Usage   []spend.Record
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
	r.FailedStops += later.FailedStops
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

// Dedup counts each model reply's usage once into a Result. Claude Code writes a reply's
// content blocks on separate lines, each with the reply's id and usage: the reply counts
// once, with the largest output its lines give (a later line was written with more of the
// reply). What a reply read is the same on all its lines: a later line that claims another
// is no line of that reply, and is added with its Doubt set, not merged. A reply's lines may
// be split between two scans: Options.UsageSeen carries the last id over.
type Dedup struct {
	id    string
	at    int // index in Result.Usage of the record of id, or -1 when it was counted before this scan
	first spend.Tokens
}

// NewDedup starts counting after the reply seen (Options.UsageSeen).
func NewDedup(seen string) *Dedup { return &Dedup{id: seen, at: -1} }

// Add counts r, the usage of the reply id ("" when the host gives replies no id), unless it
// was counted already.
func (u *Dedup) Add(res *Result, id string, r spend.Record) {
	r.ID = id
	if id != "" && id == u.id {
		if u.at < 0 {
			return
		}
		f := u.first
		if r.Input != f.Input || r.CacheWrite != f.CacheWrite || r.CacheRead != f.CacheRead {
			r.Doubt = fmt.Sprintf("%s claims %s tokens read on a later line, %s on its first", r.Name(), spend.Count(r.Read()), spend.Count(f.Read()))
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

// ReadCounts reads an object of token counts: each key of fields gets its count (see
// ReadCount), every other key is skipped. Every host's usage record is read so. A value that
// is not an object is skipped: ok is false.
func ReadCounts(d *jsonstream.Reader, buf []byte, fields map[string]*int64) (ok bool, err error) {
	if ok, err := d.Is('{'); !ok {
		return false, err
	}
	return true, d.Object(func(key []byte) error {
		dst, ok := fields[string(key)]
		if !ok {
			return d.Skip()
		}
		n, err := ReadCount(d, buf)
		*dst = n
		return err
	})
}

// ReadTime reads a timestamp (RFC 3339) into *dst; a value that is not one is skipped, and
// *dst is left as it is.
func ReadTime(d *jsonstream.Reader, dst *time.Time) error {
	var buf [64]byte
	v, err := d.OptString(buf[:0], len(buf))
	if t, perr := time.Parse(time.RFC3339Nano, string(v)); perr == nil && err == nil {
		*dst = t
	}
	return err
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
	if perr != nil || n < 0 || n > spend.MaxCount {
		return 0, nil
	}
	return n, nil
}
