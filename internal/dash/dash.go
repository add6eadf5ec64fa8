// Package dash is what "ralph-loop watch" and its dashboard, the ralph-loop-watch program,
// say to each other: the loops as ralph-loop reads them, and what the user asks of them.
//
// The dashboard is a program of its own so that the terminal UI libraries it is built on
// never run in a hook: Go initialises every package a binary links at its start, and the
// hook is this binary's every start. ralph-loop reads the loops (as status and log do,
// without the sessions' locks) and cancels them (as "ralph-loop cancel" does, with its
// authority rules); the dashboard only shows them and passes the user's keys on. Each
// message is one JSON object a line: ralph-loop writes Updates to the dashboard's standard
// input and reads Requests from its standard output; the dashboard draws on the terminal
// (its controlling terminal, as ralph-loop checked its own standard output is one), and its
// errors go to the standard error it shares with ralph-loop.
package dash

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// Version is the version of this protocol; a dashboard of another refuses to run.
const Version = 1

// EnvVersion is the variable ralph-loop runs the dashboard with: the protocol's version.
// A dashboard started without it was not started by "ralph-loop watch".
const EnvVersion = "RALPH_LOOP_DASH"

// Update is one message from ralph-loop: the loops as they stand, a timeline asked for, or
// what a cancel did.
type Update struct {
	Loops    *Loops    `json:"loops,omitempty"`
	Timeline *Timeline `json:"timeline,omitempty"`
	Result   *Result   `json:"result,omitempty"`
}

// Loops is every loop the dashboard shows, as ralph-loop read them at At.
type Loops struct {
	At time.Time `json:"at"`
	// Session is the one session watched ("": every active loop on the machine).
	Session string `json:"session,omitempty"`
	// Waiting says what ralph-loop waits for while there is no loop to show.
	Waiting string `json:"waiting,omitempty"`
	// Problem is what could not be read, if anything.
	Problem string `json:"problem,omitempty"`
	Loops   []Loop `json:"loops"`
	// Ended, with Session: that session's loop has ended; the dashboard shows how, then
	// leaves.
	Ended bool `json:"ended,omitempty"`
}

// Loop is one loop as the dashboard shows it. Every text in it is as state holds it, not
// escaped: the dashboard makes it printable.
type Loop struct {
	Session string `json:"session"`
	LoopID  string `json:"loop_id"`
	Host    string `json:"host"`
	Task    string `json:"task"` // its first line
	// Status is the loop's status word as status prints it (ACTIVE, PAUSED, ACTIVE (idle
	// 7h), PROMISE_ACCEPTED, ...); Active whether the loop is still active.
	Status string `json:"status"`
	Active bool   `json:"active"`

	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`

	StartedAt time.Time     `json:"started_at"`
	EndedAt   *time.Time    `json:"ended_at,omitempty"`
	MaxTime   time.Duration `json:"max_time,omitempty"`

	// Spent says what the model used since arming ("12,400 tokens, $0.04"; "" before any
	// use is recorded); Tokens and Cost the figures, Cost nil while a model has no price.
	Spent     string   `json:"spent,omitempty"`
	Tokens    int64    `json:"tokens,omitempty"`
	Cost      *float64 `json:"cost,omitempty"`
	MaxTokens int64    `json:"max_tokens,omitempty"`
	MaxCost   float64  `json:"max_cost,omitempty"`

	Stalls    int `json:"stalls,omitempty"`
	MaxStalls int `json:"max_stalls,omitempty"`

	ToolCalls    int `json:"tool_calls"`
	MinToolCalls int `json:"min_tool_calls"`

	// Decision is the last decision's action (blocked, accepted, ...) and Reason its
	// reason, as the event log has them, at DecisionAt.
	Decision   string    `json:"decision,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	DecisionAt time.Time `json:"decision_at,omitzero"`
	// Checks are the results of the last run of the loop's checks, one reason each.
	Checks []string `json:"checks,omitempty"`
	// Changes, with --checkpoint, is git's diffstat of the last iteration's checkpoint.
	Changes string `json:"changes,omitempty"`
	// Waiting says what the active loop waits for (the agent's next stop, a paused turn,
	// a queued cancel), or how it ended.
	Waiting string `json:"waiting,omitempty"`
}

// Timeline is a session's timeline as "ralph-loop log --session" prints it.
type Timeline struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

// Result is what a cancel asked for did: the line "ralph-loop cancel" would print, or its
// error (Failed).
type Result struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	Failed  bool   `json:"failed,omitempty"`
}

// Request is one message from the dashboard: the session whose timeline to send (and keep
// sending as it changes; Timeline set to "" stops it), or the session whose loop to
// cancel.
type Request struct {
	Timeline *string `json:"timeline,omitempty"`
	Cancel   string  `json:"cancel,omitempty"`
}

// maxLine bounds a message: a timeline of a long loop is the largest.
const maxLine = 16 << 20

// ErrTooLong means a message was longer than any this package writes.
var ErrTooLong = errors.New("dash: message too long")

// Writer writes messages, one a line.
type Writer struct{ enc *json.Encoder }

// NewWriter writes messages to w.
func NewWriter(w io.Writer) *Writer {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Writer{enc}
}

// Write writes one message (an Update or a Request).
func (w *Writer) Write(v any) error { return w.enc.Encode(v) }

// Reader reads messages, one a line.
type Reader struct{ s *bufio.Scanner }

// NewReader reads messages from r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), maxLine)
	return &Reader{s}
}

// Read reads the next message into v; io.EOF when there is none.
func (r *Reader) Read(v any) error {
	if !r.s.Scan() {
		if errors.Is(r.s.Err(), bufio.ErrTooLong) {
			return ErrTooLong
		}
		if r.s.Err() != nil {
			return r.s.Err()
		}
		return io.EOF
	}
	return json.Unmarshal(r.s.Bytes(), v)
}
