package hook

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// saidLog reads the session's said log (see state.Said) as the transcript of a host whose
// agent text comes in Said events (Transcript.SaidLog). Options.Last is the stop's turn (its
// TurnMark): a message counts only when it belongs to that turn, so a message of an
// iteration already decided, reaching the log late, never counts for a later one, and
// SawLast reports that a message of the turn has been read. With no turn (a host that
// gives none), every message since the last decision counts.
type saidLog struct{}

// Scan reads the said log at path from offset (to Options.Limit, or its end).
func (saidLog) Scan(path string, offset int64, opt transcript.Options) (transcript.Result, error) {
	return transcript.ScanWith(path, offset, opt, scanSaid)
}

// scanSaid reads said-log lines from r, whose first byte is at offset base.
func scanSaid(in io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	res := transcript.Result{Offset: base}
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A line without its newline is still being written: it is read next time.
			if errors.Is(err, io.EOF) {
				return res, nil
			}
			return res, err
		}
		res.Offset += int64(len(line))
		res.Lines++
		var m state.Said
		if json.Unmarshal(line, &m) != nil {
			res.Bad++
			continue
		}
		if opt.Last != "" && m.Turn != opt.Last || !after(m.Timestamp, opt.TextAfter) {
			continue
		}
		res.Replies++
		res.SawLast = res.SawLast || opt.Last != ""
		res.Found = res.Found || promise.ContainsMode(m.Text, opt.Token, opt.Mode)
		if other, ok := promise.Other(m.Text, opt.Token); ok && !res.HasOther {
			res.Other, res.HasOther = other, true
		}
	}
}

// OffsetAfter is where the first message logged after t starts.
func (saidLog) OffsetAfter(path string, t time.Time) (int64, error) {
	return transcript.OffsetAfter(path, t)
}

// after reports whether ts is after start (any time is, when start is zero).
func after(ts, start time.Time) bool { return start.IsZero() || ts.After(start) }
