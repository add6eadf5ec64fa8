// Package claudeshape is Claude Code's hook protocol, which other hosts share in shape (Qwen
// Code and Factory Droid: the same event names, fields and output JSON; Gemini CLI and
// Codex the same field names or output object): Input and DecodeInput (DecodeWith, for a
// host's own fields) read an event's fields, Output and Encode write a reply, and Scan reads Claude Code's JSONL transcript
// (Factory Droid's has the same messages on lines of type "message"): whether the agent's
// text holds the completion marker, which tools it called, what its replies used. A host
// of this shape keeps its own facts in its package and imports this one, never another
// host's.
package claudeshape
