package e2e

// ClaudeVersion is the Claude Code release the suite runs. It is pinned: on node 20 an
// unpinned install resolves to an old release, and the hook protocol changes between
// releases.
const ClaudeVersion = "2.1.332"

// Claude is Claude Code on the npm registry. The CLI is a native binary in a platform
// package; the postinstall links it to node_modules/.bin/claude.
var Claude = Package{
	Name:    "@anthropic-ai/claude-code",
	Version: ClaudeVersion,
	Bins: []string{
		"node_modules/.bin/claude",
		"node_modules/@anthropic-ai/claude-code-linux-x64/claude",
		"node_modules/@anthropic-ai/claude-code-linux-x64-musl/claude",
		"node_modules/@anthropic-ai/claude-code-linux-arm64/claude",
		"node_modules/@anthropic-ai/claude-code-darwin-arm64/claude",
		"node_modules/@anthropic-ai/claude-code-darwin-x64/claude",
	},
}
