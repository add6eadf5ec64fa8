package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The binary the hooks run, got out of the way by the agent mid-loop (moved, removed, made
// unrunnable): the hooks install wrote can no longer run ralph-loop and answer by
// themselves. The guard denies the plain spellings (checked in the first case); the agent
// gets past it the way docs/guard.md says it can, with a script it writes and then runs,
// which the guard does not read. The next stop must be blocked with the reason and the loop
// stay ACTIVE; the user's /cancel-ralph, typed while the binary is still gone, is answered,
// and once the user has put the binary back, ralph-loop's next run ends the loop CANCELLED
// by the user. Before, the hooks read the missing binary as "uninstalled": the stop went
// through, the loop stayed ACTIVE and nothing was told.
func TestBinaryGone(t *testing.T) {
	cases := []struct {
		name  string
		scope string // install's: user names the binary's path, project runs the one on PATH
		plain string // the agent's plain command, denied by the guard ("" for none)
		away  string // the agent's script
		back  func(bin, home string) error
	}{
		{
			name: "moved", scope: "user",
			plain: `mv "$(command -v ralph-loop)" "$HOME/x"`,
			away:  "mv \"$(command -v ralph-loop)\" \"$HOME/x\"\n",
			back:  func(bin, home string) error { return os.Rename(filepath.Join(home, "x"), bin) },
		},
		{
			name: "removed", scope: "project",
			away: "rm -f \"$(command -v ralph-loop)\"\n",
			back: func(bin, _ string) error { return copyFile(suite.RalphLoop, bin) },
		},
		{
			name: "made unrunnable", scope: "user",
			away: "chmod -x \"$(command -v ralph-loop)\"\n",
			back: func(bin, _ string) error { return os.Chmod(bin, 0o755) },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			suite.Need(t)
			root := t.TempDir()
			// A ralph-loop of the test's own, on the session's PATH: the one the agent moves.
			bin := copyBinary(t, filepath.Join(root, "bin"))
			env, err := e2e.NewEnv(root, suite.Bin, bin)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := env.RalphLoopCmd(ctx, "install", "--host", "claude", "--scope", c.scope, "--dir", env.Project); err != nil {
				t.Fatal(err)
			}
			// The suite's binary reads the state while the test's is gone.
			probe := *env
			probe.RalphLoop = suite.RalphLoop

			slow := e2e.Text("Still working on it.")
			slow.Delay = 3 * time.Second
			var turns []e2e.Turn
			if c.plain != "" {
				turns = append(turns, e2e.Bash("I'll move ralph-loop out of the way.", c.plain))
			}
			turns = append(turns,
				writeScript("away.sh", c.away),
				e2e.Bash("Then through a script.", "sh away.sh"),
				e2e.Text("Not done yet."),
			)
			var during []e2e.Loop
			var statusErr, backErr error
			res := run(t, env, e2e.Session{
				Script: e2e.Script{Turns: turns, WhenDone: slow, MaxMain: 40},
				Inputs: []e2e.Input{
					{Prompt: `/ralph-loop "Write done.txt" --max-iterations 20`},
					// The user presses Esc once a stop was blocked (or the run ended).
					{Interrupt: true, Wait: func(r *e2e.Result) bool { return len(r.Feedback()) >= 1 || len(r.Results()) >= 1 }},
					// and types /cancel-ralph, the binary still gone; the loop is looked at first.
					{Prompt: "/cancel-ralph", Wait: func(r *e2e.Result) bool {
						if len(r.Results()) < 1 {
							return false
						}
						during, statusErr = probe.Status(ctx, r.SessionID)
						return true
					}},
					// The user puts ralph-loop back, then says something.
					{Prompt: "Say hi", Wait: func(r *e2e.Result) bool {
						if len(r.Results()) < 2 {
							return false
						}
						backErr = c.back(bin, env.Home)
						return true
					}},
				},
				Timeout: 4 * time.Minute,
			})
			if statusErr != nil || backErr != nil {
				t.Fatalf("status while gone: %v; putting it back: %v", statusErr, backErr)
			}
			if c.plain != "" {
				var sent strings.Builder
				for _, m := range res.Fake.MainRequests()[1].Messages() {
					sent.WriteString(m.Text + "\n")
				}
				contains(t, "the plain command's tool result", sent.String(), "denied while the loop is active", bin)
			}
			f := res.Feedback()
			if len(f) == 0 || !strings.Contains(f[0], "its hooks cannot run") {
				t.Errorf("feedback %q: want the stop after the binary went blocked, saying why", f)
			}
			if len(during) != 1 || during[0].Status != "ACTIVE" {
				t.Errorf("loop while the binary was gone: %+v; want it ACTIVE", during)
			}
			if !hasNotice(res, "type /cancel-ralph to end the loop") {
				t.Errorf("the user was not told why the stop was blocked: %q", res.Notices())
			}
			if !hasNotice(res, "the cancel is recorded") {
				t.Errorf("the user's /cancel-ralph was not answered: %q", res.Notices())
			}
			if !hasNotice(res, "the /cancel-ralph you typed while ralph-loop could not run ended the loop") {
				t.Errorf("the user was not told the cancel was taken: %q", res.Notices())
			}
			l := loopOf(t, env, res.SessionID)
			if l.Status != "CANCELLED" || l.EndedBy != "user" {
				t.Errorf("loop %s (%s, by %q) at %d/%d; want CANCELLED by the user", l.Status, l.EndReason, l.EndedBy, l.Iteration, l.MaxIterations)
			}
			if n := len(res.Results()); n != 3 {
				t.Errorf("%d turns finished, want 3 (the loop's, the cancel, the hi)", n)
			}
		})
	}
}

// copyFile copies the file src to dst, executable.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return e2e.WriteProgram(dst, data)
}
