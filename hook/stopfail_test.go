package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/proc"
	"github.com/ralph-loop/ralph-loop/state"
)

// failWorld runs the synthetic host of said_test.go against a store with a keep, its hooks
// sent by a host process (caller) of the test's choosing.
type failWorld struct {
	t      *testing.T
	root   string
	store  *state.Store
	now    time.Time
	caller func() (proc.Caller, error)
	turn   int
	// fullDisk: events go to a hook process whose disk is full (fullDiskHook).
	fullDisk bool
}

func newFailWorld(t *testing.T) *failWorld {
	root := t.TempDir()
	w := &failWorld{t: t, root: root, now: time.Now().Add(-time.Hour)}
	w.store = w.newStore()
	self, err := proc.Self()
	if err != nil {
		t.Skip(err)
	}
	// The loop's host: this process, proving itself with a socket it made.
	host := proc.Caller{Host: self, Stdin: proc.Stdin{Kind: "socket", Peer: self.PID}, SameSession: true, PidNS: proc.PidNS()}
	w.caller = func() (proc.Caller, error) { return host, nil }
	return w
}

func (w *failWorld) newStore() *state.Store {
	s := state.NewStore(filepath.Join(w.root, "state"))
	s.SetKeepDir(filepath.Join(w.root, "keep"))
	s.Warn = func(string) {}
	return s
}

func (w *failWorld) send(fields map[string]string) (Reply, string) {
	w.t.Helper()
	fields["session"] = "s1"
	fields["cwd"] = w.root
	in, _ := json.Marshal(fields)
	w.now = w.now.Add(time.Second)
	now := w.now
	var out, errs bytes.Buffer
	if w.fullDisk {
		time.Sleep(20 * time.Millisecond) // a later event than the last (see duplicate)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "HOOK_TEST_FULL_DISK="+w.root)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &errs
		if err := cmd.Run(); err != nil {
			w.t.Fatalf("%v: %s", err, errs.String())
		}
		return replyOf(w.t, out.Bytes()), errs.String()
	}
	env := Env{Store: w.store, Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Stderr: &errs,
		CatchUp: 500 * time.Millisecond, Sleep: func(d time.Duration) { now = now.Add(d) }, Caller: w.caller}
	return handleSaid(w.t, env, in), errs.String()
}

// stop ends the agent's turn, with the promise in its last message.
func (w *failWorld) stop() (Reply, string) {
	w.turn++
	turn := fmt.Sprintf("g%d", w.turn)
	w.send(map[string]string{"kind": "said", "turn": turn, "text": "Done.\n<promise>DONE</promise>"})
	return w.send(map[string]string{"kind": "stop", "turn": turn})
}

func (w *failWorld) loopFile() string { return filepath.Join(w.store.SessionDir("s1"), "loop.json") }
func (w *failWorld) copyFile() string { return filepath.Join(w.store.CopiesDir(), "s1.json") }

// TestMain lets the test binary stand for a hook process of failWorld whose disk is full
// (see fullDisk).
func TestMain(m *testing.M) {
	if root := os.Getenv("HOOK_TEST_FULL_DISK"); root != "" {
		os.Exit(fullDiskHook(root))
	}
	os.Exit(m.Run())
}

// fullDiskHook answers the event on stdin for the store under root, in a process whose every
// write fails past a few hundred bytes, as on a full disk (a file size limit; the signal it
// sends is ignored).
func fullDiskHook(root string) int {
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 512, Max: 512}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	w := &failWorld{root: root}
	env := Env{Store: w.newStore(), Getenv: func(string) string { return "" }, Stderr: os.Stderr, CatchUp: time.Millisecond}
	return Handle(context.Background(), env, saidHost{}, os.Stdin, os.Stdout)
}

// Every error path of a stop decision, with an active loop whose agent printed the promise:
// none lets the stop through, none ends the loop, and the user is told why. (Before, a lock
// timeout, a failed save past its grace, an unreadable state file with no copy, a state
// file of an unknown version, a failed recheck, and a sender that could not be traced each
// let the stop through.)
func TestStopErrorPathsBlock(t *testing.T) {
	for _, c := range []struct {
		name string
		// fail makes the stop fail, and returns what undoes it (or nil).
		fail func(t *testing.T, w *failWorld) func()
		// notice is what the user is told.
		notice string
	}{
		{"the lock held by a live ralph-loop past the wait", func(t *testing.T, w *failWorld) func() {
			w.store.LockWait = 50 * time.Millisecond
			w.store.Holder = func(string) state.LockHolder { return state.LockHolder{Who: "ralph-loop (pid 7)"} }
			held, release := make(chan struct{}), make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				w.newStore().Update(context.Background(), "s1", func(*state.Tx, *state.Loop) (*state.Loop, error) {
					close(held)
					<-release
					return nil, nil
				})
			}()
			<-held
			return func() { close(release); <-done }
		}, "timed out waiting for the session lock after 50ms (held by ralph-loop (pid 7))"},
		{"the state cannot be saved (a full disk)", func(t *testing.T, w *failWorld) func() {
			w.fullDisk = true
			return nil
		}, "could not write the state"},
		{"the loop file and its copy overwritten with garbage", func(t *testing.T, w *failWorld) func() {
			os.WriteFile(w.loopFile(), []byte("garbage"), 0o600)
			os.WriteFile(w.copyFile(), []byte("garbage"), 0o600)
			return nil
		}, "cannot be verified (its state file was made unreadable; ralph-loop's copy of it was made unreadable)"},
		{"the loop file and its copy removed", func(t *testing.T, w *failWorld) func() {
			os.Remove(w.loopFile())
			os.Remove(w.copyFile())
			return nil
		}, "its state file was removed; ralph-loop's copy of it was removed"},
		{"the loop file a directory, its copy removed", func(t *testing.T, w *failWorld) func() {
			os.Remove(w.loopFile())
			os.Mkdir(w.loopFile(), 0o700)
			os.Remove(w.copyFile())
			return func() { os.Remove(w.loopFile()) }
		}, "replaced by something that is not a file"},
		{"an unknown version in the loop file and its copy", func(t *testing.T, w *failWorld) func() {
			for _, f := range []string{w.loopFile(), w.copyFile()} {
				b, _ := os.ReadFile(f)
				os.WriteFile(f, bytes.Replace(b, []byte(`"version": 1,`), []byte(`"version": 9,`), 1), 0o600)
			}
			return nil
		}, "cannot be verified"},
		{"both keys removed, the loop file rewritten as accepted", func(t *testing.T, w *failWorld) func() {
			os.Remove(filepath.Join(w.root, "keep", "key"))
			os.Remove(filepath.Join(w.root, "state", "key"))
			b, _ := os.ReadFile(w.loopFile())
			os.WriteFile(w.loopFile(), bytes.Replace(b, []byte(`"ACTIVE"`), []byte(`"PROMISE_ACCEPTED"`), 1), 0o600)
			w.store = w.newStore()
			return nil
		}, "ralph-loop's key was removed"},
		{"the state garbled between the first look and the decision", func(t *testing.T, w *failWorld) func() {
			host := w.caller
			w.caller = func() (proc.Caller, error) {
				os.WriteFile(w.loopFile(), []byte("garbage"), 0o600)
				os.WriteFile(w.copyFile(), []byte("garbage"), 0o600)
				return host()
			}
			return nil
		}, "cannot be verified"},
		{"who sent the stop cannot be traced to its host", func(t *testing.T, w *failWorld) func() {
			w.caller = func() (proc.Caller, error) {
				return proc.Caller{}, fmt.Errorf("find the host: %w: its parent (pid 9) exited", proc.ErrIncomplete)
			}
			return nil
		}, "cannot tell whether this stop came from the session's host"},
		{"the state garbled while the checks ran", func(t *testing.T, w *failWorld) func() {
			return nil // armed with a check that does it (see below)
		}, "cannot be verified"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newFailWorld(t)
			arm := `/ralph-loop "Fix it" --max-iterations 5 --min-tool-calls 0`
			if strings.Contains(c.name, "checks") {
				arm += fmt.Sprintf(` --check 'echo garbage > %s; echo garbage > %s'`, w.loopFile(), w.copyFile())
			}
			if rep, _ := w.send(map[string]string{"kind": "prompt", "text": arm}); !strings.Contains(rep.Notice, "loop armed") {
				t.Fatalf("not armed: %+v", rep)
			}
			if rep, _ := w.send(map[string]string{"kind": "stop", "turn": "g0"}); !rep.Block {
				t.Fatalf("the first stop was not blocked: %+v", rep)
			}
			undo := c.fail(t, w)
			rep, stderr := w.stop()
			if undo != nil {
				undo()
			}
			if !rep.Block || !strings.Contains(rep.Notice, c.notice) || !strings.Contains(stderr, c.notice) {
				t.Fatalf("stop = %+v (stderr %q); want it blocked, saying %q", rep, stderr, c.notice)
			}
			l, err := w.newStore().Peek("s1")
			if !errors.Is(err, state.ErrUnverified) && (err != nil || l == nil || l.Status != state.Active) {
				t.Fatalf("after the stop: %+v, %v; want the loop active", l, err)
			}
		})
	}
}
