package notify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fake is a machine with the programs named, each answering err.
func fake(t *testing.T, goos string, programs map[string]error, tty string) (System, *[]string) {
	var ran []string
	return System{
		GOOS: goos,
		LookPath: func(name string) (string, error) {
			if _, ok := programs[name]; ok {
				return "/bin/" + name, nil
			}
			return "", errors.New("not found")
		},
		Run: func(_ context.Context, path string, args ...string) error {
			ran = append(ran, path+" "+strings.Join(args, "|"))
			return programs[filepath.Base(path)]
		},
		TTY:     tty,
		Timeout: time.Second,
	}, &ran
}

func TestSend(t *testing.T) {
	tty := filepath.Join(t.TempDir(), "tty")
	os.WriteFile(tty, nil, 0o600)
	tests := []struct {
		name     string
		goos     string
		programs map[string]error
		tty      string
		how      string
		ran      string
		fails    bool
	}{
		{"linux", "linux", map[string]error{"notify-send": nil}, tty, "notify-send", "/bin/notify-send --app-name=ralph-loop|--|T|B", false},
		{"macOS", "darwin", map[string]error{"osascript": nil, "notify-send": nil}, tty, "osascript",
			"/bin/osascript -e|on run argv|-e|display notification (item 2 of argv) with title (item 1 of argv)|-e|end run|T|B", false},
		{"no session bus: the bell", "linux", map[string]error{"notify-send": errors.New("no bus")}, tty, "bell", "/bin/notify-send --app-name=ralph-loop|--|T|B", false},
		{"nothing installed: the bell", "linux", nil, tty, "bell", "", false},
		{"nothing at all", "linux", nil, filepath.Join(t.TempDir(), "none"), "", "", true},
		{"no terminal, notify-send failed", "linux", map[string]error{"notify-send": errors.New("no bus")}, "", "", "/bin/notify-send --app-name=ralph-loop|--|T|B", true},
	}
	for _, tt := range tests {
		os.WriteFile(tty, nil, 0o600)
		s, ran := fake(t, tt.goos, tt.programs, tt.tty)
		how, err := s.Send(context.Background(), "T", "B")
		if how != tt.how || (err != nil) != tt.fails || strings.Join(*ran, ";") != tt.ran {
			t.Errorf("%s: Send = %q, %v; ran %q; want %q (fails %v), ran %q", tt.name, how, err, *ran, tt.how, tt.fails, tt.ran)
		}
		if rung, _ := os.ReadFile(tty); (how == "bell") != (string(rung) == "\a") {
			t.Errorf("%s: the terminal got %q", tt.name, rung)
		}
	}
}
