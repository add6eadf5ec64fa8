// Package tmux drives an interactive terminal program in a detached tmux session of its
// own (its own server socket): keys and text typed in, bracketed pastes, the screen read
// back. The end-to-end suite uses it to drive Claude Code's TUI as a user would.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Available reports whether the tmux command is installed, or why not.
func Available() error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return errors.New("tmux is not installed")
	}
	return nil
}

// Session is one program running in a detached tmux session with its own server.
type Session struct {
	socket string
	name   string
	// pidFile holds the program's process id, written by the launcher before it execs it.
	pidFile string
}

// Options say how to start a session.
type Options struct {
	// Dir is the program's working directory; Env its whole environment (set through a
	// launcher script, so that the tmux server's own environment does not matter).
	Dir string
	Env []string
	// Width and Height are the terminal's size (default 200x50).
	Width, Height int
	// Scratch is a directory for the socket and the launcher script.
	Scratch string
}

// Start runs argv in a new session. The program's exit status is written to the screen
// ("[exited N]") and the pane is kept, so that what it printed last can be read.
func Start(ctx context.Context, o Options, argv ...string) (*Session, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if o.Width == 0 {
		o.Width = 200
	}
	if o.Height == 0 {
		o.Height = 50
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&script, "cd %s || exit 1\n", quote(o.Dir))
	pidFile := filepath.Join(o.Scratch, "pid")
	fmt.Fprintf(&script, "echo $$ > %s\n", quote(pidFile))
	script.WriteString("exec env -i")
	for _, kv := range o.Env {
		script.WriteString(" " + quote(kv))
	}
	for _, a := range argv {
		script.WriteString(" " + quote(a))
	}
	script.WriteString("\n")
	launch := filepath.Join(o.Scratch, "launch.sh")
	if err := writeProgram(launch, []byte(script.String())); err != nil {
		return nil, err
	}
	s := &Session{socket: filepath.Join(o.Scratch, "tmux.sock"), name: "t", pidFile: pidFile}
	// The socket path must be short (sun_path): fall back to a temporary directory.
	if len(s.socket) > 100 {
		d, err := os.MkdirTemp("", "tmux-")
		if err != nil {
			return nil, err
		}
		s.socket = filepath.Join(d, "s")
	}
	shell := fmt.Sprintf("%s; echo \"[exited $?]\"; sleep 3600", quote(launch))
	if _, err := s.tmux(ctx, "-f", "/dev/null", "new-session", "-d", "-s", s.name,
		"-x", fmt.Sprint(o.Width), "-y", fmt.Sprint(o.Height), shell); err != nil {
		return nil, err
	}
	return s, nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *Session) tmux(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", s.socket}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

// Keys sends key names ("Enter", "Escape", "C-c", "Up").
func (s *Session) Keys(ctx context.Context, keys ...string) error {
	_, err := s.tmux(ctx, append([]string{"send-keys", "-t", s.name}, keys...)...)
	return err
}

// Type sends text literally, as typed keys.
func (s *Session) Type(ctx context.Context, text string) error {
	_, err := s.tmux(ctx, "send-keys", "-t", s.name, "-l", text)
	return err
}

// Paste sends text as a bracketed paste (as a terminal does when the user pastes).
func (s *Session) Paste(ctx context.Context, text string) error {
	cmd := exec.CommandContext(ctx, "tmux", "-S", s.socket, "load-buffer", "-b", "paste", "-")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux load-buffer: %v: %s", err, out)
	}
	_, err := s.tmux(ctx, "paste-buffer", "-p", "-d", "-b", "paste", "-t", s.name)
	return err
}

// Screen returns what the terminal shows now, with history lines (up to scrollback
// lines above the visible screen).
func (s *Session) Screen(ctx context.Context, scrollback int) (string, error) {
	args := []string{"capture-pane", "-p", "-J", "-t", s.name}
	if scrollback > 0 {
		args = append(args, "-S", fmt.Sprint(-scrollback))
	}
	return s.tmux(ctx, args...)
}

// WaitFor polls the screen (every Poll, up to timeout) until it contains text, taking
// every run of blanks and line breaks as one space (programs wrap long lines themselves).
// On a timeout the error holds the screen as it was last seen.
func (s *Session) WaitFor(ctx context.Context, text string, timeout time.Duration) (string, error) {
	return s.WaitUntil(ctx, fmt.Sprintf("%q on the screen", text), timeout, func(screen string) bool {
		return Contains(screen, text)
	})
}

// Contains reports whether screen shows text, taking every run of blanks and line breaks
// as one space.
func Contains(screen, text string) bool {
	return strings.Contains(Flat(screen), Flat(text))
}

// Flat is s with every run of blanks and line breaks made one space.
func Flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// Poll is how often WaitFor and WaitUntil read the screen: each read is a tmux process and
// a capture of the history, which at every 100 ms cost a TUI test more CPU than its waits
// save (a host's notice stays on the screen for seconds).
const Poll = 250 * time.Millisecond

// WaitUntil polls the screen (with 2000 lines of history, every Poll) until ok holds for it.
func (s *Session) WaitUntil(ctx context.Context, what string, timeout time.Duration, ok func(screen string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	var screen string
	for {
		var err error
		screen, err = s.Screen(ctx, 2000)
		if err != nil {
			return "", err
		}
		if ok(screen) {
			return screen, nil
		}
		if time.Now().After(deadline) {
			return screen, fmt.Errorf("no %s within %s; the screen:\n%s", what, timeout, Trim(screen))
		}
		select {
		case <-ctx.Done():
			return screen, ctx.Err()
		case <-time.After(Poll):
		}
	}
}

// Trim drops trailing blanks of each line and blank lines at the end.
func Trim(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Kill ends the session and its server, and waits (up to 10 s) for the program and every
// process of its session to be gone, so that nothing writes to its directories any more;
// then what is left is killed outright.
func (s *Session) Kill() error {
	pid := 0
	if b, err := os.ReadFile(s.pidFile); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	// The launcher runs in the pane's session: the program's children (a CLI's workers,
	// which may still be writing its files) are found by that session's id.
	sid := sessionOf(pid)
	if sid == sessionOf(os.Getpid()) {
		sid = 0 // never the test's own session
	}
	_, err := s.tmux(context.Background(), "kill-server")
	if pid > 0 {
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		left := []int{pid}
		if sid > 0 {
			left = append(left, inSession(sid)...)
		}
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			if syscall.Kill(pid, 0) != nil && (sid <= 0 || len(inSession(sid)) == 0) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if d := filepath.Dir(s.socket); strings.HasPrefix(filepath.Base(d), "tmux-") {
		os.RemoveAll(d)
	}
	return err
}

// sessionOf is the session id of process pid (Linux: /proc/PID/stat's sixth field), or 0.
func sessionOf(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(fields[3])
	return sid
}

// inSession lists the processes of session sid; on another system, or without /proc, none.
func inSession(sid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, f := range stats {
		p, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err == nil && p != os.Getpid() && sessionOf(p) == sid {
			pids = append(pids, p)
		}
	}
	return pids
}

// writeProgram writes an executable file with no process forked from the test meanwhile
// (see e2e.WriteProgram: a child holding it open for writing makes its exec fail with
// "text file busy").
func writeProgram(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}
