package hosttest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/state"
)

// Engine runs a host's hook events through the engine as "ralph-loop hook" does, in one
// test's machine: a state store and a home under a temporary directory, a clock that moves
// a second at each event, and sleeps that return at once. The conformance suite runs on
// one; a host package's own tests make one with NewEngine and set what they need otherwise.
type Engine struct {
	T     testing.TB
	Host  hook.Host
	Dir   string // the test's directory: state/ (XDG_STATE_HOME), home/ (HOME)
	Store *state.Store
	Env   map[string]string // the hooks' environment
	Now   time.Time         // the clock at the last event
	// MaxRead is the hooks' Env.MaxRead (0: the default).
	MaxRead int64
}

// NewEngine is an Engine for host in a new temporary directory, its clock at noon on
// 2026-11-22.
func NewEngine(t testing.TB, host hook.Host) *Engine {
	dir := t.TempDir()
	return &Engine{T: t, Host: host, Dir: dir, Store: state.NewStore(filepath.Join(dir, "state", "ralph-loop")),
		// PATH as the test's: a hook finds the programs it runs (git) there.
		Env: map[string]string{"HOME": filepath.Join(dir, "home"), "XDG_STATE_HOME": filepath.Join(dir, "state"), "PATH": os.Getenv("PATH")},
		Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
}

// Handle runs one hook event a second after the last and returns its stdout, its stderr
// and its exit code.
func (e *Engine) Handle(in []byte) (stdout, stderr []byte, code int) {
	e.Now = e.Now.Add(time.Second)
	now := e.Now
	return e.HandleAt(in, func() time.Time { return now })
}

// HandleAt runs one hook event whose process reads its clock from now.
func (e *Engine) HandleAt(in []byte, now func() time.Time) (stdout, stderr []byte, code int) {
	var out, errs bytes.Buffer
	env := hook.Env{
		Store:   e.Store,
		Now:     now,
		Sleep:   func(time.Duration) {},
		Getenv:  func(k string) string { return e.Env[k] },
		Stderr:  &errs,
		MaxRead: e.MaxRead,
	}
	code = hook.Handle(context.Background(), env, e.Host, bytes.NewReader(in), &out)
	return out.Bytes(), errs.Bytes(), code
}

// Loop is session id's loop, failing the test when there is none.
func (e *Engine) Loop(id string) *state.Loop {
	e.T.Helper()
	l, err := e.Store.Peek(id)
	if err != nil || l == nil {
		e.T.Fatalf("session %s: no loop (%v)", id, err)
	}
	return l
}
