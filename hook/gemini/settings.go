package gemini

import "time"

// stopTimeout is the AfterAgent hook's timeout: as the project's or the user's settings give
// it for ralph-loop's hook (in milliseconds), or Gemini CLI's default.
func stopTimeout(getenv func(string) string, project string) time.Duration {
	if d, ok := Installer.HookTimeout("AfterAgent", project, getenv); ok && d > 0 {
		return d
	}
	return DefaultTimeout
}
