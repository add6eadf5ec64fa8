package tmux

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestFlat(t *testing.T) {
	screen := "  ⎿  UserPromptSubmit says: picks it up with the 9 \n     iterations it had left\n"
	if !Contains(screen, "picks it up with the 9 iterations it had left") {
		t.Errorf("Contains missed text wrapped over two lines")
	}
	if Contains(screen, "the 9iterations") {
		t.Errorf("Contains joined words")
	}
}

// A program that turns bracketed paste on gets a paste between the bracket markers, typed
// text as keys, and its output is read back from the screen.
func TestSession(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip("tmux is not installed")
	}
	ctx := context.Background()
	s, err := Start(ctx, Options{Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm"}, Width: 80, Height: 20, Scratch: t.TempDir()},
		"sh", "-c", `printf '\033[?2004hready\n'; exec cat -v`)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	if _, err := s.WaitFor(ctx, "ready", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Paste(ctx, "pasted text"); err != nil {
		t.Fatal(err)
	}
	if err := s.Type(ctx, " typed"); err != nil {
		t.Fatal(err)
	}
	if err := s.Keys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitFor(ctx, "^[[200~pasted text^[[201~ typed", 10*time.Second); err != nil {
		t.Fatal(err)
	}
}
