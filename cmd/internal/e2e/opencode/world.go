package opencode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// settle is how long a session must stay idle to count as finished: the plugin sends a
// continuation within milliseconds of the idle.
const settle = 2 * time.Second

// Family is one CLI of opencode's family under test: its suite (set up in its package's
// TestMain) and its Flavor. Each CLI's package runs the scenarios they share (see
// family.go) through it, as one suite run across every flavour, and keeps only its own.
type Family struct {
	Suite  *e2e.Suite
	Flavor Flavor
}

// Env lays out a fresh Env of the flavour for t, skipping t unless the suite can run.
func (f Family) Env(t *testing.T) *Env {
	t.Helper()
	f.Suite.Need(t)
	e, err := NewEnv(t.TempDir(), f.Suite.Bin, f.Suite.RalphLoop)
	if err != nil {
		t.Fatal(err)
	}
	e.Flavor = f.Flavor
	return e
}

// World is an Env whose CLI serves a fake under "serve".
type World struct {
	*Env
	Srv *Server
}

// World is a fresh Env, changed by setup (nil: as laid out), with ralph-loop installed by
// its own installer at each of scopes ("path": ralph-loop put on PATH), and the CLI serving
// script.
func (f Family) World(t *testing.T, setup func(*Env), script Script, scopes ...string) *World {
	t.Helper()
	e := f.Env(t)
	if setup != nil {
		setup(e)
	}
	for _, scope := range scopes {
		if scope == "path" {
			if err := e.OnPath(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		out, err := e.Install(context.Background(), scope)
		if err != nil {
			t.Fatalf("install: %v", err)
		}
		t.Logf("install: %s", out)
	}
	return Serve(t, e, script)
}

// Serve starts e's CLI serving script, closed (its log shown if t failed) when t ends.
func Serve(t *testing.T, e *Env, script Script) *World {
	t.Helper()
	srv, err := e.Serve(context.Background(), script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's log:\n%s", e.Host, tail(srv.Log.String(), 6000))
		}
		srv.Close()
	})
	return &World{Env: e, Srv: srv}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Start opens a session and sends the first prompt: a command ("!/ralph-loop ARGS" is run
// as the TUI runs "/ralph-loop ARGS") or text as typed; then it waits until the session
// settles and done holds.
func (w *World) Start(t *testing.T, prompt string, done func() bool) string {
	t.Helper()
	id, err := w.Srv.NewSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.Send(t, id, prompt, done)
	return id
}

// Send sends prompt to session id as Start does, and waits as it does.
func (w *World) Send(t *testing.T, id, prompt string, done func() bool) {
	t.Helper()
	ctx := context.Background()
	before, since := len(w.Srv.Fake.MainRequests()), time.Now()
	var answered <-chan struct{}
	if name, args, ok := strings.Cut(strings.TrimPrefix(prompt, "!"), " "); strings.HasPrefix(prompt, "!/") && ok {
		answered = w.Srv.Command(ctx, id, strings.TrimPrefix(name, "/"), args)
	} else if err := w.Srv.Prompt(ctx, id, prompt); err != nil {
		t.Fatal(err)
	}
	turns, err := w.Srv.Settled(ctx, id, since, settle, done, answered)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("settled after %d busy spells, %d agent requests; toasts: %q", turns, len(w.Srv.Fake.MainRequests())-before, w.Srv.Toasts())
}

// Ended is true once every loop has ended (and there is one).
func (w *World) Ended() bool { return e2e.Ended(w.Env) }

// Failed is true once the CLI has reported a session error (the fake's HTTP 400 when its
// script allows no more requests).
func (w *World) Failed() bool { return len(w.Srv.Errors()) > 0 }

// Always is a done that holds at once: the session's settling is enough.
func Always() bool { return true }

// Expect checks a loop's status, iteration and tool calls, and that it is e's host's.
func (e *Env) Expect(t *testing.T, l Loop, status string, iteration, tools int) {
	t.Helper()
	e2e.ExpectLoop(t, l, e.Host, status, iteration, tools)
}

// Saw checks that the user was shown each of wants as a toast, waiting up to 10 s: the plugin
// shows one toast at a time, so a notice may follow the one before it by a few seconds.
func (w *World) Saw(t *testing.T, wants ...string) {
	t.Helper()
	e2e.Shown(t, "the toasts", w.Toasts, wants...)
}

// Toasts are the toasts the user was shown, a line each.
func (w *World) Toasts() string { return strings.Join(w.Srv.Toasts(), "\n") }

// NoErrors checks that the session reported no error and the user was shown none.
func (w *World) NoErrors(t *testing.T) {
	t.Helper()
	if errs := w.Srv.Errors(); len(errs) > 0 {
		t.Errorf("session errors: %q", errs)
	}
	for _, m := range w.Srv.Toasts() {
		if strings.Contains(m, "error") {
			t.Errorf("an error toast: %s", m)
		}
	}
}
