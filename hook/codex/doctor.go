package codex

import (
	"os"
	"path/filepath"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
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

// Trust reports, for doctor, the hooks of ralph-loop's that Codex does not trust as they are
// now in the hooks files found, and a project Codex does not trust, whose hooks it skips.
func (Host) Trust(r install.Report, getenv func(string) string, dir string, found []install.Found) {
	for _, f := range found {
		n, project := Untrusted(getenv, f.Settings, map[bool]string{true: dir}[f.Scope.Base == install.ProjectBase],
			func(c string) bool { return Installer.Ours(c, nil) })
		if n > 0 {
			r.Problem("Codex CLI: %s of ralph-loop's in %s are not trusted, and Codex skips them: run ralph-loop install --host codex --scope %s again (or trust them in Codex's /hooks screen)", inject.Plural(n, "hook", "hooks"), f.Settings, f.Scope.Name)
		}
		if project {
			r.Problem("Codex CLI: the project %s is not trusted, and Codex runs none of its hooks: start codex there and trust it", dir)
		}
	}
}
