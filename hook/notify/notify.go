// Package notify tells the user something outside the agent's host, where they may not be
// looking: a desktop notification where the system has one (notify-send on Linux and the
// BSDs, osascript on macOS), else the terminal's bell.
package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// System is what Send needs from the machine; Default is the real one.
type System struct {
	// GOOS is the operating system ("darwin", "linux", …).
	GOOS string
	// LookPath finds a program (exec.LookPath).
	LookPath func(string) (string, error)
	// Run runs a program to its end.
	Run func(ctx context.Context, path string, args ...string) error
	// TTY is the terminal the bell is rung on ("/dev/tty"; "": none).
	TTY string
	// Timeout bounds each way tried.
	Timeout time.Duration
}

// Default is the machine ralph-loop runs on, finding its programs with lookPath (a hook's:
// outside the project, see package program).
func Default(lookPath func(string) (string, error)) System {
	return System{
		GOOS:     runtime.GOOS,
		LookPath: lookPath,
		Run: func(ctx context.Context, path string, args ...string) error {
			cmd := exec.CommandContext(ctx, path, args...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v: %s", path, err, out)
			}
			return nil
		},
		TTY:     "/dev/tty",
		Timeout: 3 * time.Second,
	}
}

// Send shows title and body, the first way that works, and says which: "notify-send",
// "osascript" or "bell". It fails when none does.
func (s System) Send(ctx context.Context, title, body string) (string, error) {
	var errs []error
	try := func(name string, args ...string) bool {
		path, err := s.LookPath(name)
		if err != nil {
			return false
		}
		c, cancel := context.WithTimeout(ctx, s.Timeout)
		defer cancel()
		if err := s.Run(c, path, args...); err != nil {
			errs = append(errs, err)
			return false
		}
		return true
	}
	if s.GOOS == "darwin" {
		// The texts go in as arguments, never into the script: no quoting to get wrong.
		if try("osascript", "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title, body) {
			return "osascript", nil
		}
	} else if try("notify-send", "--app-name=ralph-loop", "--", title, body) {
		return "notify-send", nil
	}
	if s.TTY != "" {
		f, err := os.OpenFile(s.TTY, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write([]byte("\a"))
			f.Close()
		}
		if err == nil {
			return "bell", nil
		}
		errs = append(errs, fmt.Errorf("no terminal for the bell: %w", err))
	}
	if len(errs) == 0 {
		return "", errors.New("no desktop notification program and no terminal")
	}
	return "", errors.Join(errs...)
}
