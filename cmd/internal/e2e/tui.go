package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// TUI is Claude Code's interactive TUI running in tmux against a fake API.
type TUI struct {
	*tmux.Session
	Fake *Fake
	env  *Env
}

// Ready is what the TUI shows once it waits for input: the permission mode line under the
// prompt box.
const Ready = "bypass permissions"

// Seed writes what a returning user's ~/.claude.json holds, so that the TUI opens on its
// prompt instead of the first-run dialogs (theme, API key, folder trust, bypass mode).
func (e *Env) Seed() error {
	key := "sk-ant-test-dummy"
	cfg := map[string]any{
		"hasCompletedOnboarding":        true,
		"lastOnboardingVersion":         Claude.Version,
		"theme":                         "dark",
		"numStartups":                   1,
		"autoUpdates":                   false,
		"bypassPermissionsModeAccepted": true,
		"customApiKeyResponses":         map[string]any{"approved": []string{key[max(len(key)-20, 0):]}, "rejected": []string{}},
		"projects": map[string]any{e.Project: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{},
		}},
	}
	data, _ := json.MarshalIndent(cfg, "", " ")
	return os.WriteFile(filepath.Join(e.Home, ".claude.json"), data, 0o600)
}

// StartTUI starts a fake API for script and "claude --dangerously-skip-permissions ARGS" in
// tmux, in the project, with more environment extra, and waits until it takes input.
func (e *Env) StartTUI(ctx context.Context, script Script, extra []string, args ...string) (*TUI, error) {
	if err := e.Seed(); err != nil {
		return nil, err
	}
	fake, err := StartFake(script)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(e.Root, "tmux-")
	if err != nil {
		fake.Close()
		return nil, err
	}
	argv := append([]string{e.Claude, "--dangerously-skip-permissions"}, args...)
	s, err := tmux.Start(ctx, tmux.Options{Dir: e.Project, Env: e.Environ(fake.URL, append([]string{"TERM=xterm-256color"}, extra...)),
		Width: 160, Height: 100, Scratch: scratch}, argv...)
	if err != nil {
		fake.Close()
		return nil, err
	}
	t := &TUI{Session: s, Fake: fake, env: e}
	if _, err := t.WaitFor(ctx, Ready, 3*time.Minute); err != nil { // minutes on a loaded machine
		t.Close()
		return nil, fmt.Errorf("the TUI did not start: %w", err)
	}
	return t, nil
}

// Submit types text at the prompt and presses Enter, once the prompt box shows it (keys
// sent together with the text would be taken as part of a paste). If the text is still in
// the box after a while (a completion menu took the Enter), Enter is pressed once more.
func (t *TUI) Submit(ctx context.Context, text string) error {
	if err := t.Type(ctx, text); err != nil {
		return err
	}
	head := text[:min(len(text), 20)]
	if _, err := t.WaitUntil(ctx, "the typed text in the prompt box", 10*time.Second, func(screen string) bool {
		return strings.Contains(InputBox(screen), head)
	}); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond)
	if err := t.Keys(ctx, "Enter"); err != nil {
		return err
	}
	if _, err := t.WaitUntil(ctx, "an empty prompt box", 2*time.Second, func(screen string) bool {
		return !strings.Contains(InputBox(screen), head)
	}); err != nil {
		return t.Keys(ctx, "Enter")
	}
	return nil
}

// InputBox returns the prompt box of a screen: the lines from the last one that starts
// with the prompt sign to the rule under it.
func InputBox(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "❯") {
			var box []string
			for _, l := range lines[i:] {
				if strings.HasPrefix(l, "──") {
					break
				}
				box = append(box, l)
			}
			return strings.Join(box, "\n")
		}
	}
	return ""
}

// Exit types /exit and waits for the program to end.
func (t *TUI) Exit(ctx context.Context) (string, error) {
	if err := t.Submit(ctx, "/exit"); err != nil {
		return "", err
	}
	return t.WaitFor(ctx, "[exited ", 30*time.Second)
}

// Close kills tmux and the fake API.
func (t *TUI) Close() {
	t.Kill()
	t.Fake.Close()
}

// Requests waits until the fake has had at least n agent requests.
func (t *TUI) Requests(ctx context.Context, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for len(t.Fake.MainRequests()) < n {
		if time.Now().After(deadline) {
			screen, _ := t.Screen(ctx, 200)
			return fmt.Errorf("%d agent requests within %s, want %d; the screen:\n%s", len(t.Fake.MainRequests()), timeout, n, tmux.Trim(screen))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// SessionID returns the id of the session the TUI runs: the newest transcript's name.
func (e *Env) SessionID() (string, error) {
	files, _ := filepath.Glob(filepath.Join(e.Home, ".claude", "projects", "*", "*.jsonl"))
	var newest string
	var at time.Time
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.ModTime().After(at) {
			newest, at = f, st.ModTime()
		}
	}
	if newest == "" {
		return "", fmt.Errorf("no transcript under %s", filepath.Join(e.Home, ".claude", "projects"))
	}
	return strings.TrimSuffix(filepath.Base(newest), ".jsonl"), nil
}
