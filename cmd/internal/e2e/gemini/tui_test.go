package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// The scenarios below drive Gemini CLI's interactive TUI under tmux, as a user types into
// it, with ralph-loop installed by "ralph-loop install --host gemini --scope user".

// tmuxTUI is Gemini CLI's TUI in tmux against a fake model.
type tmuxTUI struct {
	*tmux.Session
	fake *Fake
}

// startTmuxTUI starts "gemini --yolo" in tmux in e's project, against a fake serving
// script, and waits until it takes input. On failure the test's log gets the last screen and
// ralph-loop's log.
func startTmuxTUI(t *testing.T, e *Env, script Script) *tmuxTUI {
	t.Helper()
	if err := tmux.Available(); err != nil {
		t.Skip("TUI test: tmux is not installed")
	}
	fake, err := StartFake(script)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tmux.Start(context.Background(), tmux.Options{Dir: e.Project, Env: append(e.environ(fake.URL), "TERM=xterm-256color"),
		Width: 160, Height: 60, Scratch: t.TempDir()}, e.Gemini, "--yolo", "-m", Model)
	if err != nil {
		fake.Close()
		t.Fatal(err)
	}
	u := &tmuxTUI{Session: s, fake: fake}
	t.Cleanup(func() {
		if t.Failed() {
			screen, _ := u.Screen(context.Background(), 400)
			t.Logf("the screen at the end:\n%s", tmux.Trim(screen))
			if out, err := e.RalphLoopCmd(context.Background(), "log"); err == nil {
				t.Logf("ralph-loop log:\n%s", out)
			}
		}
		u.Kill()
		u.fake.Close()
	})
	u.waitFor(t, "Type your message")
	return u
}

func (u *tmuxTUI) waitFor(t *testing.T, text string) string {
	t.Helper()
	screen, err := u.WaitFor(context.Background(), text, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return screen
}

// submit types text, then Enter a moment later (the TUI takes a fast Enter as part of a
// paste).
func (u *tmuxTUI) submit(t *testing.T, text string) {
	t.Helper()
	if err := u.Type(context.Background(), text); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := u.Keys(context.Background(), "Enter"); err != nil {
		t.Fatal(err)
	}
}

// Blocked then accepted in the TUI: the loop goes on after the first stop and ends with
// the promise. Gemini CLI's TUI follows the first block of a prompt with "This request
// failed. Press F12 for diagnostics…" (no reply avoids it: see gemini.Words.BlockLabel), so
// the first block's notice, shown just above that line, says it is the loop going on.
func TestTUIBlockedThenAccepted(t *testing.T) {
	env := newEnv(t)
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Say("Let me think about the file first."),
		Shell("Creating it now.", "echo hi > x.txt"),
		Say("x.txt is created.\n<promise>DONE</promise>"),
	}})
	u.submit(t, `/ralph-loop "Create x.txt holding hi" --max-iterations 5`)
	screen := tmux.Flat(u.waitFor(t, "promise accepted at iteration 2/5"))
	if b, err := os.ReadFile(filepath.Join(env.Project, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("x.txt: %q %v", b, err)
	}
	if n := len(u.fake.MainRequests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	note := `ralph-loop: iteration 2/5: no promise yet, continuing (Gemini CLI shows the task sent back to the agent as "This request failed": that is the loop going on, not an error)`
	failed := strings.Index(screen, "This request failed. Press F12")
	switch {
	case !strings.Contains(screen, note):
		t.Errorf("the first block's notice does not say what Gemini CLI's failure line is; want %q", note)
	case failed >= 0 && failed < strings.Index(screen, note):
		t.Error(`"This request failed. Press F12…" is shown before the notice that explains it`)
	}
	if strings.Count(screen, "This request failed. Press F12") > 1 {
		t.Error(`"This request failed. Press F12…" is shown more than once for one prompt`)
	}
}

// With ui.errorVerbosity "full" in the user's settings (their choice; install leaves it
// alone), Gemini CLI adds no "This request failed" line after a block, and the loop runs the
// same: the line is the TUI's, not the hook's. The notice then does not speak of it.
func TestTUIBlockedWithFullErrorVerbosity(t *testing.T) {
	env := newEnv(t)
	settings := filepath.Join(env.Home, ".gemini", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	full := strings.Replace(string(b), `"privacy":`, `"ui": {"errorVerbosity": "full"}, "privacy":`, 1)
	if full == string(b) {
		t.Fatal("settings.json: no place for the ui setting")
	}
	if err := os.WriteFile(settings, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Say("Let me think about the file first."),
		Shell("Creating it now.", "echo hi > x.txt"),
		Say("x.txt is created.\n<promise>DONE</promise>"),
	}})
	u.submit(t, `/ralph-loop "Create x.txt holding hi" --max-iterations 5`)
	screen := tmux.Flat(u.waitFor(t, "promise accepted at iteration 2/5"))
	if !strings.Contains(screen, "iteration 2/5: no promise yet, continuing") {
		t.Error("the block's notice is not on the screen")
	}
	if strings.Contains(screen, "This request failed. Press F12") {
		t.Error(`with ui.errorVerbosity "full", the screen still says "This request failed"`)
	}
	if strings.Contains(screen, "Gemini CLI shows the task sent back") {
		t.Error("the notice explains a line Gemini CLI does not show with this setting")
	}
	if n := len(u.fake.MainRequests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}

// Esc while a command of the loop runs: the loop ends there, and nothing runs on its
// account after (no model request, no tool call past the interrupted one); the first block's
// notice said Esc is how to end it (Gemini CLI refuses a slash command typed then).
func TestTUIEscDuringTool(t *testing.T) {
	env := newEnv(t)
	u := startTmuxTUI(t, env, Script{Turns: []Turn{
		Say("Let me think first."),
		Shell("Working.", "sleep 30"),
		Shell("More work.", "echo more > more.txt"),
		Say("Done. <promise>DONE</promise>"),
	}})
	u.submit(t, `/ralph-loop "Create more.txt" --max-iterations 5`)
	screen := tmux.Flat(u.waitFor(t, "sleep 30"))
	if !strings.Contains(screen, "press Esc to end the loop") {
		t.Errorf("the first block's notice does not say Esc ends the loop")
	}
	time.Sleep(2 * time.Second)
	if err := u.Keys(context.Background(), "Escape"); err != nil {
		t.Fatal(err)
	}
	before := len(u.fake.MainRequests())
	deadline := time.Now().Add(2 * time.Minute)
	for {
		loops, _ := env.Status(context.Background(), "")
		if len(loops) == 1 && loops[0].Status != "ACTIVE" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the loop did not end after Esc: %+v", loops)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(10 * time.Second) // anything sent on the loop's account would show by now
	if n := len(u.fake.MainRequests()); n != before {
		t.Errorf("%d model requests after Esc, want none (%d before, %d after)", n-before, before, n)
	}
	if _, err := os.Stat(filepath.Join(env.Project, "more.txt")); err == nil {
		t.Error("a tool call ran after Esc ended the loop")
	}
}
