package gemini

import "github.com/ralph-loop/ralph-loop/hook/install"

// TrustsFolder reports whether Gemini CLI trusts dir (its trusted-folders file, see
// Trusted), where it runs hooks only in folders the user trusts.
func TrustsFolder(getenv func(string) string, dir string) bool {
	u, err := userDir(getenv)
	if err != nil {
		return false
	}
	return Trusted(trustedFoldersFile(getenv, u), dir)
}

// Trust reports, for doctor, whether Gemini CLI trusts dir, where it runs hooks only if so.
func (Host) Trust(r install.Report, getenv func(string) string, dir string, _ []install.Found) {
	if TrustsFolder(getenv, dir) {
		r.Say("trust: Gemini CLI trusts %s", dir)
	} else {
		r.Problem("Gemini CLI: %s is not a trusted folder, and Gemini CLI runs no hooks there: start gemini in it and trust the folder (or /permissions)", dir)
	}
}
