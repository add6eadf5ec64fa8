package e2e

import (
	"context"
	"errors"
	"testing"
)

// SyntaxBySession is SettingsSyntax for a host whose suite reads loops by session: run lays
// out a fresh Env with ralph-loop installed, rewrites its settings file in the syntax s,
// runs the loop of 2 iterations that never promises (prompt, or the host's spelling of it),
// and returns the Env, the run's session, and the arguments of the ralph-loop command that
// installs again into that settings file.
func SyntaxBySession(t *testing.T, title, host string, run func(t *testing.T, s Syntax, prompt string) (e Logged, session string, install []string)) {
	SettingsSyntax(t, title, host, func(t *testing.T, s Syntax, prompt string) Installer {
		e, session, install := run(t, s, prompt)
		out, err := e.RalphLoopCmd(context.Background(), "status", "--json")
		if err != nil {
			t.Fatal(err)
		}
		all, err := DecodeStatus(out)
		if err != nil {
			t.Fatal(err)
		}
		var loops []Loop
		for _, l := range all {
			if l.SessionID == session || session == "" {
				loops = append(loops, l)
			}
		}
		_, err = e.RalphLoopCmd(context.Background(), install...)
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
