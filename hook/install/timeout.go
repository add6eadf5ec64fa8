package install

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// StopTimeout finds the timeout of ralph-loop's Stop hook in Claude Code's settings: the
// user's (in configDir) and the project's (shared and local). ok is false when none of them
// sets one.
func StopTimeout(configDir, projectDir string) (d time.Duration, ok bool) {
	files := []string{filepath.Join(configDir, "settings.json")}
	if projectDir != "" {
		files = append(files, filepath.Join(projectDir, ".claude", "settings.json"), filepath.Join(projectDir, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		// Only a regular file, of a sane size: a repository's .claude/settings.json that is a
		// FIFO or a link to /dev/zero must not hang or flood the Stop hook.
		data, err := state.ReadRegular(f, 16<<20)
		if err != nil {
			continue
		}
		var s struct {
			Hooks struct {
				Stop []struct {
					Hooks []struct {
						Command string  `json:"command"`
						Timeout float64 `json:"timeout"`
					} `json:"hooks"`
				} `json:"Stop"`
			} `json:"hooks"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		for _, g := range s.Hooks.Stop {
			for _, h := range g.Hooks {
				if IsHookCommand(h.Command) && h.Timeout > 0 {
					t := time.Duration(h.Timeout * float64(time.Second))
					if !ok || t > d {
						d, ok = t, true
					}
				}
			}
		}
	}
	return d, ok
}
