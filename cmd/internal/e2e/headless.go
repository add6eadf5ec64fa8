package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// timeline says when each request to fake came and when the CLI exited, from its start.
func timeline(fake *fakechat.Fake, start, end time.Time) string {
	var b strings.Builder
	for i, q := range fake.Requests() {
		fmt.Fprintf(&b, "request %d (tools %v) at %s; ", i+1, q.Tools > 0, q.At.Sub(start).Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "exit at %s", end.Sub(start).Round(time.Millisecond))
	return b.String()
}

// RunHeadless starts a fake serving script and runs the CLI named name, as command makes
// it for the fake's URL (its Dir and Env set; ctx, which bounds the run to 5 minutes, its
// context), with stdin closed, to its exit. With killWhen, once it holds for the fake
// (polled), the CLI's process group (cmd's own: Setpgid) is killed with SIGKILL, and no
// hook of the CLI's runs. An exit code is not an error; not finishing in time is. The run's
// Log says when each request came and when the CLI exited.
func RunHeadless(ctx context.Context, name string, script fakechat.Script, command func(ctx context.Context, fakeURL string) *exec.Cmd,
	killWhen func(*fakechat.Fake) bool) (*Ran, error) {
	fake, err := fakechat.StartFake(script)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := command(ctx, fake.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {}
	if killWhen != nil {
		stop = Watch(50*time.Millisecond, func() bool { return killWhen(fake) }, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	}
	err = cmd.Wait()
	stop()
	res := &Ran{Stdout: stdout.String(), Stderr: stderr.String(), Fake: fake, Log: timeline(fake, start, time.Now())}
	res.Code, err = Exited(ctx, name, err)
	return res, err
}

// Exited reads how the CLI named name ended from its Wait's error err: its exit code (not
// an error), a failure to run it, or that it did not finish within ctx.
func Exited(ctx context.Context, name string, err error) (code int, _ error) {
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		return 0, fmt.Errorf("run %s: %w", name, err)
	}
	if ctx.Err() != nil {
		return code, fmt.Errorf("%s did not finish: %w", name, ctx.Err())
	}
	return code, nil
}

// Watch polls cond every interval until it holds, then runs act once; stop ends the
// watching (and waits for an act under way).
func Watch(every time.Duration, cond func() bool, act func()) (stop func()) {
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		for {
			select {
			case <-done:
				return
			case <-time.After(every):
			}
			if cond() {
				act()
				return
			}
		}
	}()
	return func() { close(done); <-over }
}
