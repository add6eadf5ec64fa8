package codex

import (
	"os"
	"path/filepath"
)

// Untrusted counts the hooks of ralph-loop's (ours) in the hooks file at path that Codex's
// config.toml does not trust as they are now (Codex skips them without a word), and says
// whether a project's hooks file lies in a project Codex does not trust.
func Untrusted(getenv func(string) string, path, projectDir string, ours func(string) bool) (n int, projectUntrusted bool) {
	u, err := userDir(getenv)
	if err != nil {
		return 0, false
	}
	config, _ := os.ReadFile(filepath.Join(u, "config.toml"))
	content, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	hs, err := Handlers(path, content, ours)
	if err != nil {
		return 0, false
	}
	trusted := TrustedHashes(string(config))
	for _, h := range hs {
		if h.Ours && trusted[h.Key] != h.Hash {
			n++
		}
	}
	return n, projectDir != "" && !projectTrusted(string(config), projectDir)
}
