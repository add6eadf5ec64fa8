// Package check runs a loop's checks: shell commands that must all exit 0 before a promise
// is accepted. Each runs in the loop's directory with its output in a log file, under a
// timeout that kills its whole process group.
package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ralph-loop/ralph-loop/state"
)

// Result is the outcome of one check.
type Result struct {
	Index, Total int // 1-based
	Command      string
	ExitCode     int
	TimedOut     bool
	Timeout      time.Duration
	// Failure is why the check could not run at all ("" if it ran).
	Failure  string
	Duration time.Duration
	LogPath  string
	// Tail is the end of the combined output, at most the characters asked for.
	Tail string
}

// Passed reports whether the check exited 0.
func (r Result) Passed() bool { return r.Failure == "" && !r.TimedOut && r.ExitCode == 0 }

// Describe says in a few words how the check ended.
func (r Result) Describe() string {
	switch {
	case r.Failure != "":
		return r.Failure
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", r.Timeout)
	case r.ExitCode == 0:
		return fmt.Sprintf("passed in %s", r.Duration.Round(time.Millisecond))
	}
	return fmt.Sprintf("exited with code %d after %s", r.ExitCode, r.Duration.Round(time.Millisecond))
}

// Options says how to run the checks.
type Options struct {
	Dir     string        // where they run
	Timeout time.Duration // for each
	// Deadline bounds them all (the host's hook timeout, less a margin); zero: none.
	Deadline time.Time
	// LogPrefix is the path prefix of the log files: <prefix>-check-<n>.log.
	LogPrefix string
	// TailChars is how much of the output's end Result.Tail keeps.
	TailChars int
	// Sandbox, when set, is the sandbox the checks run in (the agent's shell's); nil: none.
	Sandbox *Sandbox
}

// Run runs the commands in order until one fails, and returns the results of those that
// ran (the last one failed, unless all passed).
func Run(ctx context.Context, cmds []string, opt Options) []Result {
	var out []Result
	for i, c := range cmds {
		r := runOne(ctx, c, i+1, opt)
		r.Index, r.Total = i+1, len(cmds)
		out = append(out, r)
		if !r.Passed() {
			break
		}
	}
	return out
}

func runOne(ctx context.Context, command string, n int, opt Options) Result {
	r := Result{Command: command, Timeout: opt.Timeout, LogPath: fmt.Sprintf("%s-check-%d.log", opt.LogPrefix, n)}
	timeout := opt.Timeout
	if !opt.Deadline.IsZero() {
		left := time.Until(opt.Deadline)
		if left <= 0 {
			r.Failure = "not run: no time left within the Stop hook's timeout"
			return r
		}
		if left < timeout {
			timeout, r.Timeout = left, left.Round(time.Second)
		}
	}
	if why := dirGone(opt.Dir); why != "" {
		r.Failure = "not run: " + why
		return r
	}
	// A fresh file of its own: whatever was planted at the log's path (a link, a FIFO) is
	// replaced, never written through or waited on.
	log, err := state.CreateLog(r.LogPath)
	if err != nil {
		r.Failure = fmt.Sprintf("not run: create its log: %v", err)
		return r
	}
	defer log.Close()
	fmt.Fprintf(log, "$ %s\n", command)
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, shell, "-c", command)
	if opt.Sandbox != nil {
		if opt.Sandbox.Runner == "" {
			r.Failure = "not run: its sandbox cannot start: " + unavailable()
			return r
		}
		tmp, err := os.MkdirTemp("", "check-")
		if err != nil {
			r.Failure = fmt.Sprintf("not run: make its temporary directory: %v", err)
			return r
		}
		defer os.RemoveAll(tmp)
		c, closeFiles, err := opt.Sandbox.command(cctx, command, opt.Dir, tmp)
		if err != nil {
			r.Failure = fmt.Sprintf("not run: its sandbox: %v", err)
			return r
		}
		defer closeFiles()
		cmd = c
	}
	cmd.Dir = opt.Dir
	cmd.Stdout, cmd.Stderr = log, log
	configure(cmd)
	err = cmd.Run()
	r.Duration = time.Since(start)
	killGroup(cmd) // whatever the check left running
	var exit *exec.ExitError
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		r.TimedOut = true
		r.ExitCode = -1
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
	case err != nil:
		if why := dirGone(opt.Dir); why != "" {
			r.Failure = "could not run: " + why // removed while it started
		} else {
			r.Failure = fmt.Sprintf("could not run: %v", err)
		}
	}
	fmt.Fprintf(log, "\n[ralph-loop: %s]\n", r.Describe())
	r.Tail = tail(log, opt.TailChars)
	return r
}

// dirGone says why a check cannot run in dir ("" if it can): the directory no longer
// exists (the loop's worktree was removed), or is not one.
func dirGone(dir string) string {
	if dir == "" {
		return ""
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("its directory %s no longer exists", dir)
	case err != nil:
		return fmt.Sprintf("its directory %s: %v", dir, err)
	case !fi.IsDir():
		return fmt.Sprintf("%s, where it runs, is not a directory", dir)
	}
	return ""
}

// tail returns the last n characters of the output in the log f (without the closing
// ralph-loop line).
func tail(f *os.File, n int) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	size := fi.Size()
	want := int64(n)*utf8.UTFMax + 256
	if want > size {
		want = size
	}
	buf := make([]byte, want)
	if _, err := f.ReadAt(buf, size-want); err != nil && err != io.EOF {
		return ""
	}
	s := string(buf)
	if i := strings.LastIndex(s, "\n[ralph-loop: "); i >= 0 {
		s = s[:i]
	}
	if want == size {
		s = strings.TrimPrefix(s, "$ ")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // the command line itself
		}
	}
	r := []rune(strings.ToValidUTF8(s, "\uFFFD"))
	if len(r) > n {
		r = r[len(r)-n:]
	}
	return string(r)
}
