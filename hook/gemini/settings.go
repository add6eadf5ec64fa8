package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stopTimeout is the AfterAgent hook's timeout: as the project's or the user's settings
// give it for ralph-loop's hook (in milliseconds), or Gemini CLI's default.
func stopTimeout(getenv func(string) string, project string) time.Duration {
	var files []string
	if project != "" {
		files = append(files, filepath.Join(project, ".gemini", "settings.json"))
	}
	if home := getenv("HOME"); home != "" {
		files = append(files, filepath.Join(home, ".gemini", "settings.json"))
	}
	for _, f := range files {
		if d, ok := settingsTimeout(f); ok {
			return d
		}
	}
	return DefaultTimeout
}

// settingsTimeout reads the timeout of ralph-loop's AfterAgent hook from a settings file.
func settingsTimeout(path string) (time.Duration, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Timeout *float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(b, &s) != nil {
		return 0, false
	}
	for _, g := range s.Hooks["AfterAgent"] {
		for _, h := range g.Hooks {
			if strings.Contains(h.Command, "ralph-loop") && strings.Contains(h.Command, " hook") {
				if h.Timeout == nil || *h.Timeout <= 0 {
					return DefaultTimeout, true
				}
				return time.Duration(*h.Timeout * float64(time.Millisecond)), true
			}
		}
	}
	return 0, false
}
