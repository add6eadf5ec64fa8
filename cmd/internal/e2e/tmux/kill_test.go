package tmux_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/tmux"
)

// TestKillEndsTheSession: a child of the program that outlives it (a CLI's worker that
// ignores the hangup) no longer writes to the test's directories once Kill returns (Qwen
// Code's chats directory was written to while the test's temporary directory was removed).
func TestKillEndsTheSession(t *testing.T) {
	if err := tmux.Available(); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "written")
	s, err := tmux.Start(context.Background(), tmux.Options{Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")},
		Width: 80, Height: 20, Scratch: t.TempDir()},
		"sh", "-c", "(trap '' HUP TERM; while :; do echo x >> "+out+"; sleep 0.05; done) & echo started; sleep 1000")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitFor(context.Background(), "started", 30*time.Second); err != nil {
		s.Kill()
		t.Fatal(err)
	}
	s.Kill()
	before, _ := os.ReadFile(out)
	time.Sleep(300 * time.Millisecond)
	after, _ := os.ReadFile(out)
	if len(before) != len(after) {
		t.Errorf("the program's child still writes after Kill: %d bytes, then %d", len(before), len(after))
	}
}
