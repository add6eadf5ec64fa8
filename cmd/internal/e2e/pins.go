package e2e

// The host CLIs the real-CLI suites run, each from the npm registry at the one release it is
// pinned to, with why: a CLI is bumped here, and in hosts.Tested and README's host table,
// which cmd/internal/e2e/release checks against these. NAME_VERSION runs a suite on another
// release (see Suite).
var (
	// Claude Code: on node 20 an unpinned install resolves to an old release, and the hook
	// protocol changes between releases. The CLI is a native binary in a platform package;
	// the postinstall links it to node_modules/.bin/claude.
	Claude = Package{Name: "@anthropic-ai/claude-code", Version: "2.1.332", Bins: []string{
		"node_modules/.bin/claude",
		"node_modules/@anthropic-ai/claude-code-linux-x64/claude",
		"node_modules/@anthropic-ai/claude-code-linux-x64-musl/claude",
		"node_modules/@anthropic-ai/claude-code-linux-arm64/claude",
		"node_modules/@anthropic-ai/claude-code-darwin-arm64/claude",
		"node_modules/@anthropic-ai/claude-code-darwin-x64/claude",
	}}

	// Codex CLI: the hook protocol and the trust hash change between releases. A node
	// launcher and the native binary in a platform package.
	Codex = Package{Name: "@openai/codex", Version: "0.171.0", Bins: []string{"node_modules/.bin/codex"}}

	// GitHub Copilot CLI; its version check runs, as the suite's runs do, offline and
	// without updating itself.
	Copilot = Package{Name: "@github/copilot", Version: "1.0.102", Bins: []string{"node_modules/.bin/copilot"},
		Env: []string{"COPILOT_AUTO_UPDATE=false", "COPILOT_OFFLINE=true"}}

	// Factory Droid, installed as its Linux x64 platform package, the native binary, which
	// runs on its own: the launcher package droid stays at 0.215.0, and @factory/cli's
	// wrapper does not install here (its own platform package is missing).
	Droid = Package{Name: "@factory/cli-linux-x64", Version: "0.225.2", Bins: []string{"node_modules/@factory/cli-linux-x64/bin/droid"}}

	// Gemini CLI: the hook protocol and the chat file change between releases.
	Gemini = Package{Name: "@google/gemini-cli", Version: "0.61.0", Bins: []string{"node_modules/.bin/gemini"}}

	// Kilo Code's CLI, its Linux x64 platform package, the native binary, which runs on its
	// own (the @kilocode/cli wrapper only links to it; the wrapper of 7.8.1 has no platform
	// packages in the registry).
	Kilo = Package{Name: "@kilocode/cli-linux-x64", Version: "7.7.9", Bins: []string{"node_modules/@kilocode/cli-linux-x64/bin/kilo"}}

	// opencode, a native binary: its postinstall links it to bin/opencode.exe, and
	// bin/opencode is a node launcher.
	OpenCode = Package{Name: "opencode-ai", Version: "1.18.33", Bins: []string{"node_modules/opencode-ai/bin/opencode.exe", "node_modules/.bin/opencode"}}

	// pi, a node program.
	Pi = Package{Name: "@mariozechner/pi-coding-agent", Version: "0.73.1", Bins: []string{"node_modules/.bin/pi"}}

	// Qwen Code: it declares node >= 22, and on node 20 an unpinned install resolves to an old
	// 0.15 (0.24.4 only warns and works).
	Qwen = Package{Name: "@qwen-code/qwen-code", Version: "0.24.4", Bins: []string{"node_modules/.bin/qwen"}}
)
