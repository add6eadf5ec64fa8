package qwen

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// Qwen Code's own /goal keeps the agent going too (a goal turn after each turn, until it is
// met or paused). A session whose goal was active when Qwen Code stopped (killed here after
// the goal's first turn) takes it up again on --continue, beside a loop armed there: the
// agent would be pushed twice. ralph-loop reads the goal from the chat recording (its last
// goal_state record) when the loop is armed, and says so at the loop's first stop (Qwen
// Code shows no notice of the prompt hook's).
func TestGoalActive(t *testing.T) {
	e := newEnv(t, "user")
	ctx := context.Background()
	first, err := e2e.RunHeadless(ctx, "qwen", fakechat.Script{Turns: []fakechat.Turn{
		Shell("Working on the goal.", "echo 1 >> log.txt"), fakechat.Text("Step 1 done."),
	}, WhenDone: fakechat.Text("Working.")}, func(ctx context.Context, url string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, e.Qwen, "-p", "/goal Create x.txt containing hi", "--yolo")
		cmd.Dir, cmd.Env = e.Project, e.environ(url, nil)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}, func(f *fakechat.Fake) bool { return len(f.MainRequests()) >= 3 }) // the goal's second turn began
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the goal's run: %s", first.Log)
	res := run(t, e, Run{Prompt: `/ralph-loop "Create x.txt containing hi" --max-iterations 3`, Args: []string{"--continue"},
		Script: fakechat.Script{Turns: []fakechat.Turn{Shell("Working.", "echo hi > x.txt"), fakechat.Text("Done. <promise>DONE</promise>")},
			WhenDone: fakechat.Text("Working.")}})
	contains(t, "what the user saw", res.Stderr,
		`ralph-loop: Note: this session also has Qwen Code's own goal active ("Create x.txt containing hi"), which keeps the agent going too: the agent would be pushed twice. Clear it with /goal clear, or end this loop with /cancel-ralph`)
	if strings.Count(res.Stderr, "own goal") > 1 {
		t.Errorf("the goal named more than once:\n%s", res.Stderr)
	}
}
