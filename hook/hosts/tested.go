package hosts

// Tested is the version of each host's CLI that the real-CLI suites run (README's host
// table; cmd/internal/e2e checks both against the suites' pins). Cursor has none: it is
// tested against its documented protocol only.
var Tested = map[string]string{
	"claude":   "2.1.332",
	"codex":    "0.171.0",
	"qwen":     "0.24.4",
	"copilot":  "1.0.102",
	"gemini":   "0.61.0",
	"opencode": "1.18.33",
	"droid":    "0.225.2",
	"kilo":     "7.7.9",
	"pi":       "0.73.1",
}
