package fakeserver

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// Script is what a fake model answers to the agent's requests, in order: T is its API's
// turn, U what an answer reports it used.
type Script[T, U any] struct {
	Turns []T
	// WhenDone answers every request after the turns run out.
	WhenDone T
	// MaxMain bounds the agent's requests; past it the fake answers HTTP 400, which ends
	// the client's run (default 40).
	MaxMain int
	// Hang: past MaxMain the fake answers nothing until the client goes away (a model that
	// never answers), instead of HTTP 400.
	Hang bool
	// Usage is what the agent's requests' answers report they used, unless their turn says
	// (nil: the API's DefaultUsage). The client's side requests (titles) report the
	// default.
	Usage *U
}

// Player plays a Script to the agent's requests, one request at a time; its zero value
// plays the empty script.
type Player[T, U any] struct {
	mu     sync.Mutex
	script Script[T, U]
	n      int
}

// SetScript makes the player answer the agent's next requests from s, from its first turn.
func (p *Player[T, U]) SetScript(s Script[T, U]) {
	if s.MaxMain == 0 {
		s.MaxMain = 40
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.script, p.n = s, 0
}

// Answer is what the script says to one agent request.
type Answer[T, U any] struct {
	// N is the request's number since the script was set (1-based).
	N int
	// Turn is the script's next turn, or WhenDone once the turns ran out (Done).
	Turn T
	Done bool
	// Usage is the script's Usage.
	Usage *U
	// Over: the request is past the script's MaxMain; Refuse answers it.
	Over bool
	hang bool
}

// AnswerTime is the least time a fake takes to answer an agent's request, as no model API
// answers in less (a network round trip, then the first token). Answered at once, the next
// stop of a text-only loop, byte for byte the same as the last, came 20 ms after it: within
// the 10-ms ticks by which the kernel times a process's start, which ralph-loop reads to
// tell a second delivery of one stop from the next stop (hook's duplicate). It was taken
// for a second delivery and let through, which no user's loop meets.
const AnswerTime = 50 * time.Millisecond

// Next is the answer to the agent's next request, after AnswerTime.
func (p *Player[T, U]) Next() Answer[T, U] {
	a := p.next()
	time.Sleep(AnswerTime)
	return a
}

func (p *Player[T, U]) next() Answer[T, U] {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	a := Answer[T, U]{N: p.n, Turn: p.script.WhenDone, Done: true, Usage: p.script.Usage, Over: p.n > p.script.MaxMain, hang: p.script.Hang}
	if p.n <= len(p.script.Turns) {
		a.Turn, a.Done = p.script.Turns[p.n-1], false
	}
	return a
}

// Refuse answers a request past the script's MaxMain: HTTP 400 with body, the API's error,
// or, when the script hangs, nothing until the client goes away.
func (a Answer[T, U]) Refuse(w http.ResponseWriter, r *http.Request, body string) {
	if a.hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, body)
}

// Fake is what a scripted fake of a model API is made of: its server, the log of the
// requests R it was sent, and the Player of its script (turns T, usage U). A fake of one
// API embeds it and serves its routes.
type Fake[R, T, U any] struct {
	*Server
	Player[T, U]
	log Log[R]
}

// Start plays script and serves h until Close; base is the path the API's URL ends in (see
// Start).
func (f *Fake[R, T, U]) Start(h http.HandlerFunc, base string, script Script[T, U]) (err error) {
	f.SetScript(script)
	f.Server, err = Start(h, base)
	return err
}

// Record logs r, and returns how many requests there are now.
func (f *Fake[R, T, U]) Record(r R) int { return f.log.Add(r) }

// Requests returns the requests logged so far.
func (f *Fake[R, T, U]) Requests() []R { return f.log.All() }

// RequestsWhere returns those of the requests so far for which keep holds.
func (f *Fake[R, T, U]) RequestsWhere(keep func(R) bool) []R { return f.log.Where(keep) }
