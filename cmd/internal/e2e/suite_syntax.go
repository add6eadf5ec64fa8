package e2e

import (
	"context"
	"errors"
	"testing"
)

// SyntaxBySession is SettingsSyntax for a host whose suite reads loops by session: run lays
// out a fresh Env with ralph-loop installed, rewrites its settings file in the syntax s,
// runs the loop of 2 iterations that never promises (prompt, or the host's spelling of it),
// and returns the loops of the run's session and what install then said of the file (nil:
// it took it).
func SyntaxBySession(t *testing.T, title, host string, run func(t *testing.T, s Syntax, prompt string) ([]Loop, error)) {
	SettingsSyntax(t, title, host, func(t *testing.T, s Syntax, prompt string) Installer {
		loops, err := run(t, s, prompt)
		return said{loops, err}
	})
}

// said is what SettingsSyntax reads of a run of SyntaxBySession: its loops, and install's
// word on its settings file.
type said struct {
	loops   []Loop
	install error
}

func (s said) Status(context.Context) ([]Loop, error)          { return s.loops, nil }
func (s said) Install(context.Context, string) (string, error) { return "", s.install }
func (s said) RalphLoopCmd(context.Context, ...string) (string, error) {
	return "", errors.ErrUnsupported
}
