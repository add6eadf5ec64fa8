package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestHookTime is make bench's figure for GitHub Copilot CLI: the loop (each iteration one
// shell call, then a text turn), ralph-loop's hooks timed (see e2e.BenchHost). Copilot CLI
// honours 8 blocked stops in a row, so its loop runs 9 iterations.
func TestHookTime(t *testing.T) {
	headless.HookTime(t, "", 9, func(t *testing.T, e *Env) {
		// Project hooks run only in a folder the user trusts.
		trust, _ := json.Marshal(map[string]any{"trustedFolders": []string{e.Project}})
		if err := os.WriteFile(filepath.Join(e.UserDir(), "config.json"), trust, 0o644); err != nil {
			t.Fatal(err)
		}
	})
}
