package gemini

// TrustsFolder reports whether Gemini CLI trusts dir (its trusted-folders file, see
// Trusted), where it runs hooks only in folders the user trusts.
func TrustsFolder(getenv func(string) string, dir string) bool {
	u, err := userDir(getenv)
	if err != nil {
		return false
	}
	return Trusted(trustedFoldersFile(getenv, u), dir)
}
