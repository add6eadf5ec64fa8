// Package fakeserver is the core of the scripted fakes of the model APIs that the real-CLI
// suites run the host CLIs against (e2e's of the Messages API, fakechat's of the Chat
// Completions API, codex's of the Responses API, gemini's of the Gemini API): a server on a
// free port of 127.0.0.1, a log of what it was asked, and the answer's text in pieces. Each
// fake keeps its API's routes, request shapes and answers. Nothing here is used by
// ralph-loop itself.
package fakeserver

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is an HTTP server on a free port of 127.0.0.1.
type Server struct {
	// URL is the server's base URL: http://127.0.0.1:PORT and the base path given.
	URL string
	srv *http.Server
}

// Start serves h until Close; base is the path the API's URL ends in ("/v1", or "").
func Start(h http.HandlerFunc, base string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String() + base,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Log is a list that the server appends to while the test reads it.
type Log[T any] struct {
	mu    sync.Mutex
	items []T
}

// Add appends v and returns how many there are now.
func (l *Log[T]) Add(v T) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
	return len(l.items)
}

// Len is how many there are.
func (l *Log[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.items)
}

// All returns a copy of the list so far.
func (l *Log[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}

// Where returns those of the list so far for which keep holds (nil for none).
func (l *Log[T]) Where(keep func(T) bool) []T {
	var out []T
	for _, v := range l.All() {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// Halves splits text in two pieces, on a rune boundary, so that the client has to join
// them: none for "", one for a single rune.
func Halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
