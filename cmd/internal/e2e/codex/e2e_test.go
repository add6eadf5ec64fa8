package codex

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// The scenarios below run the real Codex CLI ("codex exec", no trust bypass) with ralph-loop
// installed by "ralph-loop install --host codex", each prompt typed as a user would.

// newEnv is a fresh Env, its fake serving script, with ralph-loop's hooks installed.
func newEnv(t *testing.T, script Script) *Env {
	t.Helper()
	env := bareEnv(t, t.TempDir(), suite.RalphLoop, script)
	if out, err := env.InstallHooks(context.Background()); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("install: %s", out)
	}
	return env
}

func run(t *testing.T, env *Env, session, prompt string) *Result {
	t.Helper()
	res, err := env.Exec(context.Background(), session, prompt)
	return e2e.Dumped(t, res, err, func(r *Result) { dump(t, env, r) })
}

// dump logs what a failed test needs to be understood.
func dump(t *testing.T, env *Env, r *Result) {
	t.Logf("codex exit %d after %s; session %s", r.ExitCode, r.Elapsed.Round(time.Millisecond), r.SessionID)
	for _, m := range r.Messages() {
		t.Logf("agent: %q", m)
	}
	for _, q := range env.Fake.Requests() {
		l := q.Last()
		t.Logf("request %d ends with %s/%s: %.300q", q.Index, l.Type, l.Role, l.Text)
	}
	t.Logf("stderr: %s", r.Stderr)
	if out, err := env.RalphLoopCmd(context.Background(), "log", "--session", r.SessionID); err == nil {
		t.Logf("ralph-loop log:\n%s", out)
	}
}

// bareEnv is a fresh Env under root, its fake serving script, running ralphLoop, with
// nothing installed; t skips unless the suite can run.
func bareEnv(t *testing.T, root, ralphLoop string, script Script) *Env {
	t.Helper()
	suite.Need(t)
	fake, err := NewFake(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	env, err := NewEnv(root, suite.Bin, ralphLoop, fake)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// runOK runs prompt in a new session; t fails unless codex exits 0.
func runOK(t *testing.T, env *Env, prompt string) *Result {
	t.Helper()
	r := run(t, env, "", prompt)
	if r.ExitCode != 0 {
		t.Fatalf("codex exit %d", r.ExitCode)
	}
	return r
}

// requests checks that the model had n requests, and returns them.
func requests(t *testing.T, env *Env, n int) []Request {
	t.Helper()
	reqs := env.Fake.Requests()
	if len(reqs) != n {
		t.Fatalf("%d model requests, want %d", len(reqs), n)
	}
	return reqs
}

func loopOf(t *testing.T, env *Env, session string) Loop {
	t.Helper()
	return e2e.LoopOf(t, env.Status, session)
}

func expectLoop(t *testing.T, l Loop, status string, iteration, toolCalls int) {
	t.Helper()
	if l.Status != status || l.Iteration != iteration || l.ToolCalls != toolCalls || l.Host != "codex" {
		t.Errorf("loop %s at %d/%d with %d tool calls, host %q (%s); want %s at %d with %d tool calls, host codex",
			l.Status, l.Iteration, l.MaxIterations, l.ToolCalls, l.Host, l.EndReason, status, iteration, toolCalls)
	}
}

// continuation is the stop hook's block reason as the model read it in request q: the text
// of Codex's <hook_prompt>, unescaped ("" if the request does not end with one).
func continuation(q Request) string {
	l := q.Last()
	if l.Role != "user" || !strings.HasPrefix(l.Text, "<hook_prompt") {
		return ""
	}
	s := l.Text[strings.IndexByte(l.Text, '>')+1:]
	return html.UnescapeString(strings.TrimSuffix(s, "</hook_prompt>"))
}

// TestBlockedThenAccepted arms a loop as the TUI does ($ralph-loop, through the skill
// install wrote): a stop without the promise is blocked and the task comes back, escaped
// by Codex; the promise after real work ends the loop.
func TestBlockedThenAccepted(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{
		Text("I will start now."),
		Shell("echo done > x.txt"),
		Text("x.txt is written.\n<promise>R&D</promise>"),
	}})
	r := runOK(t, env, `$ralph-loop "Write x.txt <with> & care" --completion-promise "R&D" --max-iterations 5`)
	expectLoop(t, loopOf(t, env, r.SessionID), "PROMISE_ACCEPTED", 2, 1)
	reqs := requests(t, env, 3)
	var contract bool
	for _, it := range reqs[0].Input() {
		if it.Role == "developer" && strings.Contains(it.Text, "ralph-loop: a loop is now active") && strings.Contains(it.Text, "<promise>R&D</promise>") &&
			strings.Contains(it.Text, "Write x.txt <with> & care") {
			contract = true
		}
	}
	if !contract {
		t.Error("the first request has no contract with the exact marker and task")
	}
	raw := reqs[1].Last().Text
	c := continuation(reqs[1])
	if !strings.Contains(c, "iteration 2/5") || !strings.Contains(c, "Write x.txt <with> & care") || !strings.Contains(c, "exactly <promise>R&D</promise>") {
		t.Errorf("the second request does not end with the continuation: %q", raw)
	}
	if !strings.Contains(raw, "&lt;promise&gt;R&amp;D&lt;/promise&gt;") || !strings.Contains(raw, "shown as an HTML entity") {
		t.Errorf("Codex no longer escapes the continuation as seen, or the note is missing: %q", raw)
	}
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "done\n" {
		t.Errorf("x.txt: %q %v", b, err)
	}
}

// TestIterationLimitNoHostCap runs a loop of 10 text-only iterations: Codex has no cap on
// stop blocks (Claude Code stops at 8), so the loop itself ends it, exactly at its limit.
func TestIterationLimitNoHostCap(t *testing.T) {
	env := newEnv(t, Script{WhenDone: Text("Still thinking.")})
	r := runOK(t, env, `/ralph-loop "Think hard" --max-iterations 10 --min-tool-calls 0 --max-stalls 0`)
	expectLoop(t, loopOf(t, env, r.SessionID), "MAX_ITERATIONS_REACHED", 10, 0)
	reqs := requests(t, env, 10)
	if c := continuation(reqs[9]); !strings.Contains(c, "iteration 10/10") {
		t.Errorf("the last request is not iteration 10/10: %q", reqs[9].Last().Text)
	}
}

// TestZeroToolPromiseRejected: a promise before any tool call is no work; it is rejected,
// and accepted once a tool has run.
func TestZeroToolPromiseRejected(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{
		Text("All done!\n<promise>DONE</promise>"),
		Shell("echo ok > y.txt"),
		Text("Now it is really done.\n<promise>DONE</promise>"),
	}})
	r := runOK(t, env, `/ralph-loop "Write y.txt" --max-iterations 4`)
	expectLoop(t, loopOf(t, env, r.SessionID), "PROMISE_ACCEPTED", 2, 1)
	reqs := requests(t, env, 3)
	if c := continuation(reqs[1]); !strings.Contains(c, "only 0 tool calls have been made") {
		t.Errorf("the no-work promise was not rejected as such: %q", c)
	}
}

// TestCancel: a turn ends while the loop is active (the model's API fails), which ends
// codex exec and with it (SessionEnd) the loop; the user then types the cancel command in
// the resumed session: the hook answers it, and the prompt goes no further.
func TestCancel(t *testing.T) {
	for _, cancel := range []string{"$cancel-ralph", "/cancel-ralph"} {
		t.Run(cancel, func(t *testing.T) {
			env := newEnv(t, Script{Turns: []Turn{Text("Working on it."), {Status: 400}}})
			r := run(t, env, "", `$ralph-loop "Keep going" --max-iterations 5`)
			if r.SessionID == "" {
				t.Fatal("no session id")
			}
			// The run's end (SessionEnd) ended the loop with it; the cancel in the resumed
			// session is answered by the hook (what became of the loop), not the model.
			expectLoop(t, loopOf(t, env, r.SessionID), "SESSION_ENDED", 2, 0)
			n := len(env.Fake.Requests())
			env.Fake.SetScript(Script{WhenDone: Text("I should not be asked.")})
			r2 := run(t, env, r.SessionID, cancel)
			expectLoop(t, loopOf(t, env, r.SessionID), "SESSION_ENDED", 2, 0)
			if got := len(env.Fake.Requests()); got != n {
				t.Errorf("the cancel prompt reached the model (%d requests, was %d)", got, n)
			}
			// codex exec --json shows no hook output; the cancel answer is the prompt hook's
			// block reason, which the TUI shows.
			_ = r2
		})
	}
}

// TestNoLoopUntouched: a session without a loop runs as if ralph-loop were not there.
func TestNoLoopUntouched(t *testing.T) {
	env := newEnv(t, Script{Turns: []Turn{Shell("echo hi > z.txt"), Text("Hello. <promise>DONE</promise>")}})
	r := runOK(t, env, "Say hello")
	if loops, err := env.Status(context.Background(), ""); err != nil || len(loops) != 0 {
		t.Errorf("loops %v %v; want none", loops, err)
	}
	reqs := requests(t, env, 2)
	// The skills install wrote are listed to the model ($ralph-loop is how the TUI arms a
	// loop); nothing else of ralph-loop's may reach it.
	for _, q := range reqs {
		for _, it := range q.Input() {
			if strings.HasPrefix(it.Text, "<skills_instructions>") {
				continue
			}
			if strings.Contains(it.Text, "ralph-loop") || strings.HasPrefix(it.Text, "<hook_prompt") {
				t.Errorf("request %d holds ralph-loop's text: %.200q", q.Index, it.Text)
			}
		}
	}
	if m := r.Messages(); len(m) == 0 || m[len(m)-1] != "Hello. <promise>DONE</promise>" {
		t.Errorf("messages %q", m)
	}
}

// TestUntrustedHooksDoNotRun is the control for trust: the same install with its trust
// entries taken out of config.toml runs no hook at all (Codex skips untrusted hooks without
// a word), and "ralph-loop status" says what to do.
func TestUntrustedHooksDoNotRun(t *testing.T) {
	env := newEnv(t, Script{WhenDone: Text("Still thinking.")})
	path := filepath.Join(env.CodexHome, "config.toml")
	b := e2e.Read(t, path)
	if !strings.Contains(string(b), "trusted_hash") {
		t.Fatalf("install wrote no trust into %s:\n%s", path, b)
	}
	cut := string(b)[:strings.Index(string(b), "[hooks.state.")]
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, env, "", `/ralph-loop "Think" --max-iterations 3`)
	if loops, _ := env.Status(context.Background(), ""); len(loops) != 0 {
		t.Errorf("a loop was armed by untrusted hooks: %+v", loops)
	}
	if n := len(env.Fake.Requests()); n != 1 {
		t.Errorf("%d requests; want 1 (no hook ran)", n)
	}
	_ = r
	out, err := env.RalphLoopCmd(context.Background(), "install", "--host", "codex", "--scope", "user")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "trust") {
		t.Errorf("install did not say it restored the trust: %s", out)
	}
	env.Fake.SetScript(Script{Turns: []Turn{Text("Thinking."), Shell("true"), Text(fmt.Sprintf("Done. %s", "<promise>DONE</promise>"))}})
	r = run(t, env, "", `/ralph-loop "Think" --max-iterations 3`)
	expectLoop(t, loopOf(t, env, r.SessionID), "PROMISE_ACCEPTED", 2, 1)
}

// TestProjectScope installs into the project (.codex/hooks.json, committed, so its hooks
// run the ralph-loop on PATH): with the project trusted, as Codex asks at its first start
// there, and the hooks trusted by install, a loop runs.
func TestProjectScope(t *testing.T) {
	env := bareEnv(t, t.TempDir(), suite.RalphLoop, Script{Turns: []Turn{Text("Starting."), Shell("echo p > p.txt"), Text("Done.\n<promise>DONE</promise>")}})
	env.Path = filepath.Dir(suite.RalphLoop)
	out, err := env.RalphLoopCmd(context.Background(), "install", "--host", "codex", "--scope", "project", "--dir", env.Project)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(env.Project, ".codex", "hooks.json")); err != nil {
		t.Fatalf("no project hooks: %v\n%s", err, out)
	}
	r := run(t, env, "", `$ralph-loop "Write p.txt" --max-iterations 4`)
	expectLoop(t, loopOf(t, env, r.SessionID), "PROMISE_ACCEPTED", 2, 1)
	// Codex reads the project's .codex/skills: the skill install wrote there came with the
	// prompt.
	skill := "<path>" + filepath.Join(env.Project, ".codex", "skills", "ralph-loop", "SKILL.md") + "</path>"
	found := false
	for _, it := range env.Fake.Requests()[0].Input() {
		found = found || strings.Contains(it.Text, skill)
	}
	if !found {
		t.Errorf("the project's skill %s did not come with the prompt", skill)
	}
}

// TestUninstall takes out exactly what install added: the hooks file and the skills it
// created, and its trust entries, leaving config.toml as it was.
func TestUninstall(t *testing.T) {
	env := bareEnv(t, t.TempDir(), suite.RalphLoop, Script{})
	config := filepath.Join(env.CodexHome, "config.toml")
	before, _ := os.ReadFile(config)
	if _, err := env.InstallHooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := env.RalphLoopCmd(context.Background(), "uninstall", "--host", "codex", "--scope", "user"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(config)
	if string(after) != string(before) {
		t.Errorf("config.toml after install and uninstall:\n%s\nwant\n%s", after, before)
	}
	for _, p := range []string{"hooks.json", "skills"} {
		if _, err := os.Stat(filepath.Join(env.CodexHome, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

// TestGuardApplyPatch: the agent's apply_patch at the loop's state, through Codex's
// apply_patch tool (a patch whose first file is the project's, its second in the state
// directory) and through the shell (apply_patch reading a here-document), is denied; the
// state is untouched, and the next stop is blocked.
func TestGuardApplyPatch(t *testing.T) {
	env := newEnv(t, Script{})
	if err := env.UseModel("gpt-5.5"); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(env.State, "ralph-loop", "sessions", "planted", "loop.json")
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: " + planted + "\n+{}\n*** End Patch\n"
	env.Fake.SetScript(Script{Turns: []Turn{
		Patch(patch),
		Shell("apply_patch <<'EOF'\n" + patch + "EOF"),
		Text("I am done."),
		{Status: 400},
	}})
	r := run(t, env, "", `$ralph-loop "Keep the notes" --max-iterations 5`)
	if r.SessionID == "" {
		t.Fatal("no session id")
	}
	// Blocked at the stop after the denials; the run's end (the model's API then fails)
	// ends the loop with the session.
	expectLoop(t, loopOf(t, env, r.SessionID), "SESSION_ENDED", 2, 0)
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the patch reached the state directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.Project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("a denied patch was applied in part: %v", err)
	}
	reqs := requests(t, env, 4)
	for i, q := range reqs[1:3] {
		if l := q.Last(); !strings.Contains(l.Text, "ralph-loop: ") || !strings.Contains(l.Text, "only the user can end the loop") {
			t.Errorf("request %d: the denial is not what the agent read: %s %.300q", i+2, l.Type, l.Text)
		}
	}
	if c := continuation(reqs[3]); !strings.Contains(c, "iteration 2/5") {
		t.Errorf("the stop after the denied patches was not blocked: %.300q", reqs[3].Last().Text)
	}
	log, err := env.RalphLoopCmd(context.Background(), "log", "--session", r.SessionID)
	if err != nil || strings.Count(log, "denied the agent's") != 2 || !strings.Contains(log, "denied the agent's apply_patch of notes.txt, "+planted) {
		t.Errorf("the log does not show two denials (%v):\n%s", err, log)
	}
}
