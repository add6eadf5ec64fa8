package hook

// testJudge returns the guard of a session s1 of Claude Code whose state is in stateDir.
func testJudge(stateDir, home, stateHome string) func(Input) string {
	g := newGuard(stateDir, home, stateHome)
	g.cli, g.sessionEnv, g.sessionID = "claude", "CLAUDE_CODE_SESSION_ID", "s1"
	return g.check
}
