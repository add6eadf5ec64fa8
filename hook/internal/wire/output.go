package wire

// Output is the hook output object of the hosts whose protocol has Claude Code's shape
// (Claude Code, Codex, Gemini CLI, and Qwen Code and Factory Droid through Claude Code's
// encoder). Each host fills only the fields its events accept (Codex refuses any other);
// empty fields are left out.
type Output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is Output's hookSpecificOutput: context added to a prompt, or a tool call's
// permission decision.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}
