package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
)

// MaxRead bounds the bytes of data one scan of a transcript reads after its offset, so that
// a stop answers well inside any host's hook timeout whatever the file's size: at the
// scanner's slowest (decoding text that is code, about 335 MB/s on a 2-vCPU VM) it is under
// a second. Past it the scan stops where it got to (Result.Cut) and the next one goes on
// from there. A host writes far less between two stops: its tool results are capped, and a
// turn of megabytes is rare.
const MaxRead = 256 << 20

// HoleCost is what skipping one hole counts against the bound (Options.MaxRead): the
// scanner starts afresh after each, so a file of many small holes is bounded as well.
const HoleCost = 1 << 20

// ErrBound is returned by OffsetAfter when it could not get back to the time it was given
// within MaxRead bytes: the offset it returns is the earliest line it could tell was written
// after that time.
var ErrBound = errors.New("the transcript is too large to read back to where the loop began")

// ScanFunc reads a host's transcript lines from r, whose first byte is at offset base.
type ScanFunc func(r io.Reader, base int64, opt Options) (Result, error)

// Reader reads a host's transcript with the host's line scanner: Scan through ScanWith,
// OffsetAfter by the lines' timestamps. It is every host's hook.Transcript.
type Reader ScanFunc

// Scan reads the transcript at path from offset (see ScanWith).
func (r Reader) Scan(path string, offset int64, opt Options) (Result, error) {
	return ScanWith(path, offset, opt, ScanFunc(r))
}

// OffsetAfter finds where the lines written after t start (see OffsetAfter).
func (Reader) OffsetAfter(path string, t time.Time) (int64, error) {
	return OffsetAfter(path, t)
}

// ScanWith opens the transcript at path and hands scan its part from offset to
// Options.Limit (or to its end as it is now), reading at most Options.MaxRead bytes of
// data: every host's transcript is read so. A missing file gives an empty result and an
// error wrapping fs.ErrNotExist; an offset past that end, or negative (the file was replaced
// or truncated), starts over from 0.
//
// Holes (ranges of a sparse file never written, which read as zeros: "truncate -s +1T" on
// the file) are never read. A hole, with the zero bytes of the blocks around it, ends a
// line: the line it cuts short is dropped, and the lines after it are read as the host
// wrote them. Result.Holes counts the bytes skipped.
func ScanWith(path string, offset int64, opt Options, scan ScanFunc) (Result, error) {
	f, size, err := Open(path)
	if err != nil {
		return Result{Offset: offset}, err
	}
	defer f.Close()
	limit := size
	if opt.Limit > 0 && opt.Limit < size {
		limit = opt.Limit
	}
	if offset > limit || offset < 0 {
		offset, opt.InLine = 0, false
	}
	b := &bounded{f: f, left: opt.MaxRead, deadline: opt.Deadline}
	if b.left <= 0 {
		b.left = MaxRead
	}
	return b.scan(offset, limit, opt, scan)
}

// bounded reads a transcript's data within a budget of bytes and, optionally, time.
type bounded struct {
	f        *os.File
	left     int64
	deadline time.Time
	read     int64
	cut      bool // reading stopped at the bound with data left
	buf      []byte
}

// out reports whether the budget is spent.
func (b *bounded) out() bool {
	return b.left <= 0 || !b.deadline.IsZero() && time.Now().After(b.deadline)
}

// readAt reads into p at off within the budget; it returns 0 once the budget is spent
// (setting cut) or at the end of the file.
func (b *bounded) readAt(p []byte, off int64) int {
	if b.out() {
		b.cut = true
		return 0
	}
	p = p[:min(int64(len(p)), b.left)]
	n, _ := b.f.ReadAt(p, off)
	b.left -= int64(n)
	b.read += int64(n)
	return n
}

// scan reads the runs of data between offset and limit, hole by hole.
func (b *bounded) scan(offset, limit int64, opt Options, scan ScanFunc) (Result, error) {
	res := Result{Offset: offset, InLine: opt.InLine, Skipping: opt.SkipToUser}
	pos, runStart := offset, true
	var err error
	for pos < limit && !b.cut {
		end := dataEnd(b.f, pos, limit)
		if end == pos {
			// A hole: it ends any line, and nothing in it is the host's.
			next := nextData(b.f, pos, limit)
			if next <= pos {
				next = limit
			}
			res.Holes += next - pos
			b.left -= HoleCost
			pos, runStart = next, true
			res.Offset, res.InLine = pos, false
			continue
		}
		if runStart {
			// The zeros of the block a hole begins or ends in are the hole's.
			runStart = false
			pos = b.skipZeros(pos, end)
			res.Offset = pos
			if pos == end || b.cut {
				continue
			}
		}
		if res.InLine {
			// The rest of a line too long to read in one scan: skipped, counted malformed.
			var nl bool
			pos, nl = b.skipLine(pos, end)
			res.Offset = pos
			if !nl {
				continue // the line goes on past a hole (which ends it), the limit or the bound
			}
			res.InLine = false
			res.Bad++
		}
		r := &runReader{b: b, off: pos, end: end}
		var part Result
		part, err = scan(r, pos, opt)
		res.Merge(part)
		if err != nil {
			break
		}
		opt.UsageSeen, opt.SkipToUser = res.UsageID, res.Skipping
		if res.Model != "" {
			opt.Model = res.Model
		}
		if b.cut {
			if part.Offset == offset {
				// Not one whole line within the bound: the line is skipped, from where
				// reading stopped to its end, by the scans that follow.
				res.Offset, res.InLine = r.off, true
			}
			break
		}
		if end == limit {
			break // a last line without its newline is read again next time
		}
		// The run ends at a hole: the line it cuts short is dropped.
		pos, runStart = end, true
		res.Offset = pos
	}
	res.Cut = b.cut
	res.Read = b.read
	return res, err
}

// skipZeros returns the first offset from pos to end whose byte is not zero (end if none).
func (b *bounded) skipZeros(pos, end int64) int64 {
	probe := [1]byte{}
	if n := b.readAt(probe[:], pos); n == 0 || probe[0] != 0 {
		return pos
	}
	buf := b.buffer()
	for pos < end {
		n := b.readAt(buf[:min(int64(len(buf)), end-pos)], pos)
		if n == 0 {
			return pos
		}
		for i, c := range buf[:n] {
			if c != 0 {
				return pos + int64(i)
			}
		}
		pos += int64(n)
	}
	return end
}

// skipLine returns the offset after the first newline from pos to end, and whether there
// was one (if not: where reading stopped).
func (b *bounded) skipLine(pos, end int64) (int64, bool) {
	buf := b.buffer()
	for pos < end {
		n := b.readAt(buf[:min(int64(len(buf)), end-pos)], pos)
		if n == 0 {
			return pos, false
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, true
		}
		pos += int64(n)
	}
	return pos, false
}

func (b *bounded) buffer() []byte {
	if b.buf == nil {
		b.buf = make([]byte, BufSize)
	}
	return b.buf
}

// runReader reads one run of data, [off, end), within the budget.
type runReader struct {
	b        *bounded
	off, end int64
}

func (r *runReader) Read(p []byte) (int, error) {
	if r.off >= r.end {
		return 0, io.EOF
	}
	n := r.b.readAt(p[:min(int64(len(p)), r.end-r.off)], r.off)
	if n == 0 {
		r.end = r.off // the budget is spent, or the file is shorter than it was
		return 0, io.EOF
	}
	r.off += int64(n)
	return n, nil
}

// dataEnd returns where the run of data at pos ends: at the next hole, or at limit (pos
// itself when pos is in a hole). Where holes cannot be told, everything is data.
func dataEnd(f *os.File, pos, limit int64) int64 {
	h, err := seekHole(f, pos)
	if err != nil || h > limit || h < pos {
		return limit
	}
	return h
}

// nextData returns the first offset from pos that holds data (limit if none does), or pos
// itself where holes cannot be told.
func nextData(f *os.File, pos, limit int64) int64 {
	d, err := seekData(f, pos)
	switch {
	case err == nil && d >= pos:
		return min(d, limit)
	case errors.Is(err, errNoData):
		return limit
	}
	return pos
}

// OffsetAfter returns the offset of the first line of the transcript at path that was
// written after t, judged by the lines' timestamps: the place to start reading for a loop
// armed at t without knowing the transcript. It reads backwards from the end, so its cost
// is in proportion to what was written since t, and at most MaxRead bytes (holes are
// skipped, each ending a line): past them it returns the earliest line it could tell was
// written after t, and ErrBound.
func OffsetAfter(path string, t time.Time) (int64, error) {
	return offsetAfter(path, t, MaxRead)
}

func offsetAfter(path string, t time.Time, max int64) (int64, error) {
	f, size, err := Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := &bounded{f: f, left: max}
	buf := make([]byte, BufSize)
	lineEnd := size // the line under consideration ends here (after its newline)
	pos := size
	for pos > 0 {
		if nextData(f, pos-1, pos) > pos-1 {
			// A hole ends at pos: the line after it starts there.
			if pos < lineEnd {
				if old, err := stampedBy(b, pos, lineEnd, t); err != nil || old {
					return lineEnd, err
				}
				lineEnd = pos
			}
			b.left -= HoleCost
			pos = dataBefore(f, pos)
			lineEnd = pos + 1 // the data before the hole ends a line, newline or not
			continue
		}
		n := min(int64(len(buf)), pos)
		if d := nextData(f, pos-n, pos); d > pos-n {
			n = pos - d // read back to the hole, no further
		}
		pos -= n
		if b.readAt(buf[:n], pos) < int(n) {
			return min(lineEnd, size), ErrBound
		}
		chunk := buf[:n]
		for {
			// The newline at lineEnd-1 ends the current line; look before it.
			limit := len(chunk)
			if pos+int64(limit) >= lineEnd {
				limit = int(lineEnd - 1 - pos)
			}
			if limit <= 0 {
				break
			}
			i := bytes.LastIndexByte(chunk[:limit], '\n')
			if i < 0 {
				break
			}
			start := pos + int64(i) + 1
			if old, err := stampedBy(b, start, lineEnd, t); err != nil {
				return 0, err
			} else if old {
				return min(lineEnd, size), nil
			}
			if b.out() {
				return start, ErrBound
			}
			lineEnd = start
		}
	}
	if old, err := stampedBy(b, 0, lineEnd, t); err != nil || old {
		return min(lineEnd, size), err
	}
	return 0, nil
}

// dataBefore returns where the data before the hole that ends at pos ends (0 if there is
// none), by bisection over the file's holes.
func dataBefore(f *os.File, pos int64) int64 {
	if d, err := seekData(f, 0); err != nil || d >= pos {
		return 0
	}
	lo, hi := int64(0), pos // data lies in [lo, pos), none in [hi, pos)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if d, err := seekData(f, mid); err == nil && d < pos {
			lo = max(mid, d)
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// stampedBy reports whether the line [start, end) carries a timestamp not after t.
func stampedBy(b *bounded, start, end int64, t time.Time) (bool, error) {
	start = b.skipZeros(start, end) // the zeros of a block a hole ends in
	d := jsonstream.NewLineReader(&runReader{b: b, off: start, end: end}, 4096)
	var ts time.Time
	err := d.Object(func(key []byte) error {
		if string(key) != "timestamp" {
			return d.Skip()
		}
		return ReadTime(d, &ts)
	})
	if err != nil && !IsSyntax(err) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, err
	}
	return !ts.IsZero() && !ts.After(t), nil
}
