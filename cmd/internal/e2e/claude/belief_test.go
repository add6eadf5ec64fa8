package claude

import (
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Nothing the agent can write decides how a loop ends or pauses (issue 36): on the real
// Claude Code, each script below writes what ralph-loop once believed, and the loop goes
// on as the host's own record says.

// stateDir is ralph-loop's state directory as the agent's shell finds it.
const stateDir = `"${XDG_STATE_HOME:-$HOME/.local/state}"/ralph-loop`

// The file in which the hooks' command line records a /cancel-ralph typed while it cannot
// run ralph-loop, written by the agent, with the binary touched so that it looks changed
// since: refused (the transcript shows no stop the command line blocked), the stop blocked,
// and the user's own cancel ends the loop.
func TestPlantedCancelRefused(t *testing.T) {
	env := newEnv(t)
	plant := `: > ` + stateDir + `/sessions/"$CLAUDE_CODE_SESSION_ID"/cancel-typed; sleep 1; touch -c "$(command -v ralph-loop)"`
	_, l := attackThenUserCancel(t, env, []e2e.Turn{
		writeScript("plant.sh", plant),
		e2e.Bash("Record a cancel.", "sh plant.sh"),
	})
	if r := refused(l); len(r) == 0 || !strings.Contains(strings.Join(r, "\n"), "cancel") {
		t.Errorf("refused events %q: want the planted cancel refused", r)
	}
}

// Thirty lines the agent appends to the tool log never count towards --min-tool-calls: the
// promise after two real calls is rejected with the real count, and accepted once the
// agent has really made the calls.
func TestForgedToolLogIsNoWork(t *testing.T) {
	env := newEnv(t)
	forge := `id=$(sed -n 's/.*"loop_id": *"\([^"]*\)".*/\1/p' ` + stateDir + `/sessions/"$CLAUDE_CODE_SESSION_ID"/loop.json | head -1)
for i in $(seq 30); do printf '{"version":1,"loop_id":"%s","tool_use_id":"toolu_forged%d"}\n' "$id" "$i" >> ` + stateDir + `/sessions/"$CLAUDE_CODE_SESSION_ID"/tools.jsonl; done`
	turns := []e2e.Turn{
		writeScript("forge.sh", forge),
		e2e.Bash("Count some work.", "sh forge.sh"),
		e2e.Text("All done. <promise>DONE</promise>"),
		e2e.Bash("", "echo 1 > a.txt"), e2e.Bash("", "echo 2 > b.txt"), e2e.Bash("", "echo 3 > c.txt"),
		e2e.Text("Now really done. <promise>DONE</promise>"),
	}
	res := prompted(t, env, `/ralph-loop "Write a.txt, b.txt and c.txt" --max-iterations 5 --min-tool-calls 5`, turns...)
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 5)
	f := blocks(t, res, 1)
	contains(t, "the block", f[0], "only 2 tool calls have been made")
}

// A line naming a model with no known price, appended to the transcript by the agent
// under --max-cost: its stop is blocked like any other (counted at the highest price known,
// never a pause that lets the stop through), and the loop goes on to the promise.
func TestForgedUnpricedModelDoesNotPause(t *testing.T) {
	env := newEnv(t)
	forge := `f=$(ls "$HOME"/.claude/projects/*/"$CLAUDE_CODE_SESSION_ID".jsonl) && echo '{"type":"assistant","message":{"id":"msg_mystery","model":"mystery-model-9","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1000,"output_tokens":10}}}' >> "$f"`
	res := prompted(t, env, `/ralph-loop "Make x.txt" --max-iterations 5 --max-cost 50`,
		e2e.Bash("Working.", forge), e2e.Text("Taking a break."), e2e.Bash("", "echo hi > x.txt"), e2e.Text("Done. <promise>DONE</promise>"))
	l := loopOf(t, env, res.SessionID)
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	for _, e := range l.Events {
		if e.Action == "paused" {
			t.Errorf("the loop paused for the forged model: %+v", e)
		}
	}
	blocks(t, res, 1)
}

// A process the agent leaves running kills ralph-loop's Stop hook (SIGKILL) while it runs
// the loop's check: the host lets that stop through with no decision. The user's next
// message finds it (the stop's mark in flight, its process gone): they are told, and the
// loop's next stop is blocked, promise or not; the loop then goes on as ever.
func TestKilledHookFound(t *testing.T) {
	env := newEnv(t)
	// Only this test's hook (other tests run beside it): the one in its project that has run
	// its check for a second; then the check itself, and the killer is gone.
	killer := `setsid nohup sh -c 'for i in $(seq 300); do for p in $(pgrep -f "hook --hos[t] claude"); do
  if [ "$(readlink /proc/$p/cwd)" = "$PWD" ] && [ "$(ps -o etimes= -p $p | tr -d " ")" -ge 1 ]; then kill -9 $p; pkill -9 -f "sleep 3.17"; exit; fi
done; sleep 0.1; done' >/dev/null 2>&1 &`
	done := e2e.Text("Done. <promise>DONE</promise>")
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			writeScript("killer.sh", killer),
			e2e.Bash("Start a helper.", "sh killer.sh"),
			done, done, done,
		}},
		Inputs: []e2e.Input{
			{Prompt: `/ralph-loop "Write done.txt" --max-iterations 10 --check "sleep 3.17"`},
			{Prompt: "Go on.", Wait: e2e.AfterResults(1)},
		},
		Timeout: 3 * time.Minute,
	})
	l := loopOf(t, env, res.SessionID)
	if !hasNotice(res, "went through with no decision") {
		t.Errorf("the user was not told of the killed hook: %q", res.Notices())
	}
	var missed bool
	for _, e := range l.Events {
		missed = missed || strings.Contains(e.Reason, "went through with no decision")
	}
	if !missed {
		t.Errorf("no event says a stop went through undecided: %+v", l.Events)
	}
	expectLoop(t, l, "PROMISE_ACCEPTED", 2, 2)
	contains(t, "the block", blocks(t, res, 1)[0], "a stop before this one went through with no decision")
}
